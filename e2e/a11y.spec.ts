// Accessibility audit: axe-core (WCAG 2.0/2.1/2.2 A and AA rules) over the states a user meets, in Chromium
// against the real stack (browser mode), in the light and the dark theme. A `serious` or `critical`
// violation fails the state it was found in, and so does a heading-order finding; the rest are printed so
// they stay visible.
import { rmSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { startGateway } from '../src/main/gateway/server'
import { startTestRuntime } from '../test/fixtures/test-runtime'
import { STATIC_DIR, useBrowserGateway } from './browser-gateway'
import { startProxy } from './forwarding-proxy'

const TOKEN = 'e2e-a11y-token-0123456789abcdef'
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']
const THEMES = ['light', 'dark'] as const
const env = useBrowserGateway(TOKEN, { text: 'Fallback answer.', chunks: 2 })

/** best-practice rules that fail like a serious WCAG violation: the outline stays consistent (a screen
 * reader's heading list is how a long conversation is walked) */
const ALSO_BLOCKING = ['heading-order']

/** Runs axe on the page as it is now; fails (softly: every state is still audited) on a serious/critical
 * WCAG violation or one of ALSO_BLOCKING. axe's other best-practice rules (landmarks…) are printed, never fail —
 * except with `moderate`: a state cleared of them (the refused-token screen, a tool group's row) fails on any
 * moderate or worse finding, best-practice ones included, so it stays clear. */
async function audit(page: Page, state: string, { moderate = false } = {}): Promise<void> {
  // let transitions and lazy chunks settle: axe reads computed colours
  await page.waitForTimeout(150)
  const { violations } = await new AxeBuilder({ page }).withTags([...TAGS, 'best-practice']).analyze()
  const line = (v: (typeof violations)[number]) =>
    `  [${v.impact}] ${v.id} ×${v.nodes.length}: ${v.help}\n${v.nodes
      .slice(0, 4)
      .map((n) => `      ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('').trim() ?? ''}`)
      .join('\n')}`
  if (violations.length) console.log(`axe ${state}:\n${violations.map(line).join('\n')}`)
  const blocking = violations.filter(
    (v) =>
      ((v.impact === 'serious' || v.impact === 'critical') && v.tags.some((t) => TAGS.includes(t))) ||
      ALSO_BLOCKING.includes(v.id) ||
      (moderate && v.impact !== 'minor'),
  )
  expect.soft(blocking.map((v) => `${v.id} ×${v.nodes.length}`), `blocking axe violations in ${state}`).toEqual([])
}

/** In the page (e2e/ has no DOM lib): what shows focus on an element — its own and its nearest ancestors'
 * outline, shadow, border and background — and a short name for it. */
const FOCUS_HELPERS = `
  window.__focusSig = (el) => {
    const out = []
    for (let e = el, i = 0; e && i < 4; e = e.parentElement, i++) {
      const c = getComputedStyle(e)
      out.push([c.outlineStyle, c.outlineWidth, c.outlineColor, c.boxShadow, c.borderColor, c.backgroundColor].join('|'))
    }
    return out.join('#')
  }
  // the contrast of an element's own focus ring (box-shadow or outline, drawn around it) against the
  // background it sits on; null when the element draws none itself (its container shows focus-within)
  window.__ringContrast = (el) => {
    const rgba = (s) => {
      let m = /color\\(srgb ([\\d.]+) ([\\d.]+) ([\\d.]+)(?: \\/ ([\\d.]+))?\\)/.exec(s)
      if (m) return [m[1] * 255, m[2] * 255, m[3] * 255, m[4] === undefined ? 1 : +m[4]]
      m = /rgba?\\(([\\d.]+), ([\\d.]+), ([\\d.]+)(?:, ([\\d.]+))?\\)/.exec(s)
      return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null
    }
    const c = getComputedStyle(el)
    const ring = c.boxShadow !== 'none' ? rgba(c.boxShadow) : c.outlineStyle !== 'none' && parseFloat(c.outlineWidth) > 0 ? rgba(c.outlineColor) : null
    if (!ring) return null
    let bg = [255, 255, 255, 1]
    for (let e = el.parentElement; e; e = e.parentElement) {
      const b = rgba(getComputedStyle(e).backgroundColor)
      if (b && b[3] > 0) { bg = b; break }
    }
    const over = ring.slice(0, 3).map((v, i) => v * ring[3] + bg[i] * (1 - ring[3]))
    const lum = (rgb) => rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4 }).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0)
    const [hi, lo] = [lum(over), lum(bg.slice(0, 3))].sort((a, b) => b - a)
    return (hi + 0.05) / (lo + 0.05)
  }
  window.__describe = (el) => ((el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || '').trim().slice(0, 40) + ' <' + el.tagName.toLowerCase() + '>')
`

/** Tabs through the window (or the open dialog) once round: every control that takes Tab must be reached,
 * and each must look different focused than not (its focus is visible). Roving groups (tabindex -1 members)
 * count by their one Tab stop. */
async function keyboardWalk(page: Page, state: string): Promise<void> {
  await page.mouse.move(0, 0) // no hover style to confuse the comparison
  // each control's look with nothing focused: what its focused look is compared with (comparing it with
  // the look after the next Tab misleads when focus stays inside one :focus-within box)
  await page.evaluate(`(() => {
    document.activeElement && document.activeElement.blur()
    window.__walk = []
    window.__base = new Map()
    for (const el of document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')) window.__base.set(el, window.__focusSig(el))
  })()`)
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press('Tab')
    // a frame or two, as between a person's key presses: focus scrolled the conversation, and its virtualized
    // rows mount on the next frame (pressed back to back, Tab could pass rows not mounted yet)
    await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`)
    const done = await page.evaluate(`(() => {
      const w = window.__walk, el = document.activeElement
      const last = w[w.length - 1]
      if (last && last.visible === undefined) last.visible = window.__focusSig(last.el) !== last.sig
      // past the last control focus leaves the page (activeElement is <body>); the next Tab comes back —
      // unless nothing takes Tab (the refused-token screen): <body> twice running ends the walk, not 200 presses
      if (!el || el === document.body) return w.length === 0 && (window.__atBody = (window.__atBody || 0) + 1) >= 2
      if (w.length && el === w[0].el) return true
      const sig = window.__focusSig(el)
      w.push({ el, desc: window.__describe(el), sig, ring: window.__ringContrast(el), visible: window.__base.has(el) ? sig !== window.__base.get(el) : undefined })
      return false
    })()`)
    if (done) break
  }
  const result = (await page.evaluate(`(() => {
    const w = window.__walk, reached = new Set(w.map((x) => x.el))
    const scope = document.querySelector('[aria-modal="true"]') || document
    const candidates = [...scope.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter((el) =>
      el.tabIndex >= 0 && !el.disabled && !el.closest('[inert], [hidden]') &&
      // a closed <details> keeps its content laid out but out of reach, all but its summary
      !(el.closest('details:not([open])') && el.parentElement.closest('details:not([open])') !== el.parentElement && el.tagName !== 'SUMMARY') && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden' &&
      // a radio group is one Tab stop (its checked radio); arrows move inside it
      !(el.type === 'radio' && w.some((x) => x.el.type === 'radio' && x.el.name === el.name)))
    return {
      walk: w.map((x) => x.desc + ' ring=' + x.ring),
      stops: w.length,
      unreached: candidates.filter((el) => !reached.has(el)).map(window.__describe),
      invisible: w.filter((x) => x.visible === false).map((x) => x.desc),
      // WCAG 1.4.11: a focus indicator is 3:1 against what is next to it
      faint: w.filter((x) => x.ring !== null && x.ring < 3).map((x) => x.desc + ' ' + x.ring.toFixed(2) + ':1'),
    }
  })()`)) as { stops: number; walk: string[]; unreached: string[]; invisible: string[]; faint: string[] }
  console.log(`keyboard ${state}: ${result.stops} Tab stops${result.unreached.length || process.env.A11Y_WALK ? `\n  ${result.walk.join('\n  ')}` : ''}`)
  expect.soft(result.unreached, `controls Tab never reaches in ${state}`).toEqual([])
  expect.soft(result.invisible, `controls without a visible focus in ${state}`).toEqual([])
  expect.soft(result.faint, `focus rings under 3:1 in ${state}`).toEqual([])
}

const log = (page: Page) => page.getByRole('log', { name: 'Conversation' })

async function open(page: Page, origin: string, theme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme })
  await page.addInitScript({ content: FOCUS_HELPERS })
  await page.goto(`${origin}/#token=${TOKEN}`)
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible()
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
}

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

for (const theme of THEMES) {
  test(`first run: the welcome card (${theme})`, async ({ page }) => {
    // a runtime with no model set up: what a new user sees
    const rt = await startTestRuntime(env.model, { config: {} })
    const gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: STATIC_DIR })
    try {
      await open(page, gw.url.replace(/^ws:/, 'http:').replace(/\/$/, ''), theme)
      await expect(page.getByRole('heading', { name: /Welcome/i })).toBeVisible()
      await audit(page, `welcome (${theme})`)
    } finally {
      await gw.close()
      await rt.close()
      rmSync(rt.stateDir, { recursive: true, force: true })
    }
  })

  test(`a conversation: Markdown, code, tool card, error, approval; Settings, Inspector, menu, find (${theme})`, async ({ page }) => {
    test.setTimeout(90_000)
    await open(page, env.origin, theme)
    await page.getByRole('button', { name: 'New session' }).click()
    await expect(page.getByText('Start a conversation')).toBeVisible()
    await audit(page, `empty conversation (${theme})`)
    await page.getByRole('textbox', { name: 'Message' }).fill('/')
    await expect(page.getByRole('listbox', { name: 'Commands' })).toBeVisible()
    await audit(page, `slash command list (${theme})`)
    await page.getByRole('textbox', { name: 'Message' }).fill('')

    env.model.push(
      { text: 'Let me look first.', chunks: 2, toolCalls: [{ name: 'ls', args: { path: '.' } }] },
      {
        text: '## Findings\n\nThe workspace is **empty**, see [the docs](https://example.com/docs).\n\n- one\n- two\n\n```ts\n// the answer\nconst x: number = 1\nconsole.log(x)\n```\n\nUse `npm test` to check.',
        chunks: 4,
        usage: { input: 300, output: 20 },
      },
    )
    await send(page, 'list the files')
    const tool = log(page).getByRole('group', { name: 'Tool ls' })
    await expect(tool).toContainText('Done')
    await expect(log(page).getByRole('status').last()).toHaveText(/^Done · /)
    await expect(log(page).locator('pre code').first()).toBeVisible()
    await audit(page, `finished reply, tool card collapsed (${theme})`)
    await tool.getByRole('button', { name: /ls/ }).first().click()
    await expect(tool.getByText('"path": "."')).toBeVisible()
    await audit(page, `tool card open (${theme})`)

    env.model.push({ status: 500, message: 'upstream exploded' })
    await send(page, 'fail please')
    await expect(log(page).getByRole('status').last()).toHaveText(/Error/)
    await audit(page, `error card (${theme})`)

    env.model.push(
      { text: '', toolCalls: [{ name: 'exec', args: { command: 'rm -rf build' } }] },
      { text: 'Cleaned.', chunks: 1 },
    )
    await send(page, 'clean the build')
    const approval = page.getByRole('group', { name: 'Approval required' })
    await expect(approval).toContainText('rm -rf build')
    await audit(page, `approval card (${theme})`)
    await keyboardWalk(page, `conversation with tool, error and approval cards (${theme})`)
    await approval.getByRole('button', { name: 'Deny' }).click()
    await expect(approval).toHaveCount(0)
    await expect(log(page).getByRole('status').last()).not.toHaveText(/Running|Waiting/)

    await page.getByRole('button', { name: 'Inspector' }).click()
    const panel = page.getByRole('complementary', { name: 'Inspector' })
    await expect(panel.getByRole('list', { name: 'Events' }).getByText('lifecycle').first()).toBeVisible()
    await audit(page, `Inspector open (${theme})`)
    await keyboardWalk(page, `Inspector open (${theme})`)
    await panel.getByRole('button', { name: 'Close inspector' }).click()

    const nav = page.getByRole('navigation', { name: 'Sessions' })
    await nav.locator('button.session-main[aria-current="true"]').focus()
    await page.keyboard.press('ArrowRight')
    await expect(nav.getByRole('menu')).toBeVisible()
    await audit(page, `session list, row menu open (${theme})`)
    await page.keyboard.press('Escape')
    await expect(nav.getByRole('menu')).toHaveCount(0)

    await page.getByRole('textbox', { name: 'Message' }).focus()
    await page.keyboard.press('Control+f')
    await expect(page.getByRole('search')).toBeVisible()
    await page.keyboard.type('workspace')
    await audit(page, `find bar open (${theme})`)
    await page.keyboard.press('Escape')

    await page.getByRole('button', { name: /^Model: .* Change the model/ }).click()
    await expect(page.getByRole('listbox')).toBeVisible()
    await audit(page, `model picker (${theme})`)
    await page.keyboard.press('Escape')

    await page.keyboard.press('Control+,')
    const dialog = page.getByRole('dialog', { name: 'Settings' })
    await expect(dialog).toBeVisible()
    for (const section of ['Models', 'Agent', 'Gateway', 'Appearance']) {
      await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: section }).click()
      await audit(page, `Settings → ${section} (${theme})`)
      await keyboardWalk(page, `Settings → ${section} (${theme})`)
    }
  })
}

// The states above plus those a user meets less often: pairing (both ends), a refused token, the narrow layout,
// a confirmation dialog, a tool group closed and open, several approvals listed together.

/** The built renderer against the in-page FakeBridge (scripted runtime): states the real stack reaches slowly. */
async function openFake(page: Page, theme: 'light' | 'dark', opts: Record<string, unknown>): Promise<void> {
  await page.emulateMedia({ colorScheme: theme })
  await page.addInitScript({ content: FOCUS_HELPERS })
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, { tickMs: 5, ...opts })
  await page.goto('/')
  // (a narrow window hides the sessions behind a button)
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
}

const read = (path: string) => ({ kind: 'tool', name: 'read', args: { path }, result: { content: [{ type: 'text', text: `text of ${path}` }] } })
const exec = (command: string) => ({ kind: 'tool', name: 'exec', args: { command }, result: { content: [{ type: 'text', text: `ran ${command}` }] }, approval: true })

for (const theme of THEMES) {
  test(`a tool group closed and open, two approvals listed together, the delete confirmation (${theme})`, async ({ page }) => {
    test.setTimeout(90_000)
    await openFake(page, theme, {
      scripts: [{ steps: [read('a.txt'), read('b.txt'), read('c.txt'), read('d.txt'), { kind: 'parallel', tools: [exec('make build'), exec('make test')] }, { kind: 'text', text: 'Both ran.' }] }],
    })
    // a session of its own: the main one cannot be deleted
    await page.getByRole('button', { name: 'New session' }).click()
    await expect(page.getByText('Start a conversation')).toBeVisible()
    await send(page, 'read and build')
    await expect(page.getByRole('region', { name: '2 commands wait for approval' })).toBeVisible()
    const toggle = log(page).getByRole('button', { name: /^\d+ tool calls/ })
    await expect(toggle).toHaveAttribute('aria-expanded', 'false')
    // the row's list holds the calls waiting for approval: named for them, not "running"
    await expect(log(page).getByRole('list', { name: 'Calls waiting for approval' })).toBeVisible()
    await audit(page, `two approvals waiting, tool group closed (${theme})`, { moderate: true })
    await keyboardWalk(page, `two approvals waiting, tool group closed (${theme})`)
    await toggle.click()
    await expect(log(page).getByRole('group', { name: 'Tool read' }).first()).toBeVisible()
    // the view follows the end: back up to the group's row, open now, with its calls under it
    // (rows mount as the view passes them: scroll the conversation to its top until the group's row is back —
    // not by the wheel, which an open card's own scrolling output under the pointer can take)
    await expect(async () => {
      await page.evaluate(`(() => {
        for (let e = document.querySelector('[role="log"][aria-label="Conversation"]'); e; e = e.parentElement) {
          if (e.scrollHeight > e.clientHeight && getComputedStyle(e).overflowY !== 'visible') return void (e.scrollTop = 0)
        }
      })()`)
      await expect(toggle).toHaveAttribute('aria-expanded', 'true', { timeout: 500 })
    }).toPass({ timeout: 10_000 })
    await audit(page, `tool group open (${theme})`, { moderate: true })
    await page.getByRole('button', { name: 'Allow all 2' }).click()
    await expect(log(page).getByText('Both ran.')).toBeVisible()

    const nav = page.getByRole('navigation', { name: 'Sessions' })
    await nav.locator('button.session-main[aria-current="true"]').focus()
    await page.keyboard.press('ArrowRight')
    await nav.getByRole('menuitem', { name: 'Delete' }).click()
    await expect(page.getByRole('alertdialog', { name: 'Delete session?' })).toBeVisible()
    await audit(page, `delete confirmation (${theme})`)
    await keyboardWalk(page, `delete confirmation (${theme})`)
    await page.keyboard.press('Escape')
    await expect(page.getByRole('alertdialog')).toHaveCount(0)
  })

  test(`a narrow window: the Inspector and the sessions as drawers (${theme})`, async ({ page }) => {
    await page.setViewportSize({ width: 420, height: 800 })
    await openFake(page, theme, { scripts: [{ steps: [read('a.txt'), { kind: 'text', text: 'Read it.' }] }] })
    await send(page, 'read it')
    await expect(log(page).getByText('Read it.')).toBeVisible()
    await page.getByRole('button', { name: 'Inspector' }).click()
    await expect(page.getByRole('complementary', { name: 'Inspector' })).toBeVisible()
    await audit(page, `narrow, Inspector drawer (${theme})`)
    await keyboardWalk(page, `narrow, Inspector drawer (${theme})`)
    await page.getByRole('button', { name: 'Close inspector' }).click()
    await page.getByRole('button', { name: 'Show sessions' }).click()
    await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeInViewport()
    await audit(page, `narrow, sessions drawer (${theme})`)
  })

  test(`pairing: the request card in a paired window, the wait screen in the new browser (${theme})`, async ({ page, browser }) => {
    test.setTimeout(60_000)
    await open(page, env.origin, theme)
    // a browser the gateway sees as remote (through a forwarding proxy) must be paired first
    const proxy = await startProxy(env.origin, theme === 'light' ? '203.0.113.70' : '203.0.113.71')
    const context = await browser.newContext({ colorScheme: theme })
    try {
      const remote = await context.newPage()
      await remote.addInitScript({ content: FOCUS_HELPERS })
      await remote.goto(`${proxy.origin}/#token=${TOKEN}`)
      await expect(remote.getByRole('main', { name: 'This browser is waiting for approval' })).toBeVisible({ timeout: 15_000 })
      await audit(remote, `pairing wait screen (${theme})`)
      await keyboardWalk(remote, `pairing wait screen (${theme})`)
      const prompt = page.getByRole('region', { name: 'Device pairing requests' })
      await expect(prompt).toBeVisible({ timeout: 10_000 })
      await audit(page, `pairing request card (${theme})`)
      await keyboardWalk(page, `pairing request card (${theme})`)
      // answered, so later states do not carry the request
      await prompt.getByRole('button', { name: /^Approve / }).first().click()
      await expect(prompt).toHaveCount(0, { timeout: 10_000 })
    } finally {
      await context.close()
      proxy.server.closeAllConnections()
      await new Promise((r) => proxy.server.close(r))
    }
  })

  test(`a link whose token the gateway refuses: the token screen (${theme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme })
    await page.addInitScript({ content: FOCUS_HELPERS })
    await page.goto(`${env.origin}/#token=e2e-a11y-not-the-token-0123456789`)
    await expect(page.getByRole('alert', { name: 'This link’s gateway token is not valid' })).toBeVisible({ timeout: 15_000 })
    await expect(page.getByRole('main', { name: 'This link’s gateway token is not valid' })).toBeVisible()
    await audit(page, `token refused (${theme})`, { moderate: true })
    await keyboardWalk(page, `token refused (${theme})`)
  })
}
