// The built renderer in Debian Chromium against the in-page FakeBridge (window.__LOOPDESK_FAKE__):
// the runtime is simulated from scripts, so these run without main/preload/gateway.
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json). */
type DomLike = { getAttribute(name: string): string | null; textContent: string | null }

async function openApp(page: Page, opts: Record<string, unknown> = {}) {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, { tickMs: 25, ...opts })
  await page.goto('/')
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible()
  return errors
}

const lastStatus = (page: Page) => page.getByRole('log', { name: 'Conversation' }).getByRole('status').last()

test('send → streamed text → tool card running then done → Done', async ({ page }) => {
  const errors = await openApp(page)
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('list the files with a tool')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('list the files with a tool')).toBeVisible()
  await expect(lastStatus(page)).toHaveText(/Running…/)
  const tool = log.getByRole('group', { name: 'Tool exec' })
  await expect(tool).toContainText('Running…')
  await expect(tool).toContainText('ls -la')
  await expect(log.getByText("I'll look at the workspace first.")).toBeVisible()
  await shot(page, 'stub-tool-running')
  await expect(tool).toContainText('Done')
  await expect(log.getByText('The workspace has')).toBeVisible()
  await expect(lastStatus(page)).toHaveText(/^Done · .* tokens · \$/)
  // text before the tool stays above its card
  const before = await log.getByText("I'll look at the workspace first.").boundingBox()
  const card = await tool.boundingBox()
  const after = await log.getByText('The workspace has').boundingBox()
  expect(before!.y).toBeLessThan(card!.y)
  expect(card!.y).toBeLessThan(after!.y)
  await tool.getByRole('button', { name: /exec/ }).click()
  await expect(tool.getByText('"command": "ls -la"')).toBeVisible()
  await shot(page, 'stub-done')
  expect(errors).toEqual([])
})

test('Stop mid-stream keeps the partial reply; the run status says Stopped', async ({ page }) => {
  await openApp(page, { tickMs: 40 })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('write a long answer')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText(/This is a long answer/).first()).toBeVisible()
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await expect(lastStatus(page)).toHaveText(/^Stopped/)
  // said once, by the run's status, not again on the message
  await expect(log.getByText('Stopped', { exact: true })).toHaveCount(0)
  await expect(log.getByText(/This is a long answer/).first()).toBeVisible()
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible()
  await shot(page, 'stub-stopped')
})

test('Queue and Steer while running', async ({ page }) => {
  await openApp(page, { tickMs: 30 })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('write a long answer')
  await box.press('Enter')
  await expect(page.getByRole('button', { name: 'Queue' })).toBeVisible()
  await box.fill('then summarize it')
  await page.getByRole('button', { name: 'Queue' }).click()
  const queue = page.getByRole('region', { name: 'Queued messages' })
  await expect(queue.getByText('then summarize it')).toBeVisible()
  await box.fill('keep it short')
  await page.getByRole('button', { name: 'Steer' }).click()
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('keep it short')).toBeVisible()
  await expect(log.getByText(/Understood — keep it short/)).toBeVisible()
  await shot(page, 'stub-queue-steer')
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  // Stop holds the queued follow-up: paused until the user sends (or removes) it
  await expect(queue.getByText('Paused')).toBeVisible()
  await queue.getByRole('button', { name: /^Send queued message: then summarize it/ }).click()
  await expect(queue.getByText('Started as the next run')).toBeVisible()
  // its user row comes first; the stub's streamed reply may echo the words too (<em>then summarize it</em>)
  await expect(log.getByText('then summarize it', { exact: true }).first()).toBeVisible()
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await expect(lastStatus(page)).toHaveText(/^Stopped/)
})

test('attach an image with the paperclip’s file input, send: the message row names it; its thumbnail showed while pending', async ({ page }) => {
  const errors = await openApp(page)
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  await expect(page.getByRole('button', { name: 'Attach files' })).toBeVisible()
  await page.getByLabel('Choose files to attach').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') })
  const chips = page.getByRole('list', { name: 'Attachments' })
  await expect(chips.getByRole('listitem')).toHaveText(['dot.png70 B'])
  // the thumbnail is an object URL the CSP lets load (img-src blob:)
  await expect.poll(() => chips.locator('img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1)
  await shot(page, 'stub-attachment-chip')
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('what is in this picture?')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  const row = log.locator('.msg-user')
  await expect(row).toContainText('what is in this picture?')
  await expect(row).toContainText('[Image attached: dot.png (image/png, 70 bytes)')
  await expect(chips).toHaveCount(0)
  await expect(lastStatus(page)).toHaveText(/^Done/)
  // history replaced the local echo with the runtime's lines (saved path): still one row
  await expect(row).toContainText(/dot\.png \(image\/png, 70 bytes\) saved at ~\/\.loopdesk\/media\/inbound\/\S+\.png\]/)
  await expect(row).toHaveCount(1)
  expect(await page.content()).not.toContain(png)
  expect(errors).toEqual([])
})

test('exec approval: Approve lets the tool run', async ({ page }) => {
  await openApp(page)
  await page.getByRole('textbox', { name: 'Message' }).fill('please approve the cleanup')
  await page.keyboard.press('Enter')
  const approval = page.getByRole('group', { name: 'Approval required' })
  await expect(approval).toContainText('rm -rf build')
  await shot(page, 'stub-approval')
  await approval.getByRole('button', { name: 'Approve' }).click()
  // the tool card carries the answer; the answered approval card goes
  await expect(page.getByRole('group', { name: 'Tool exec' })).toContainText('Approved once')
  await expect(approval).toHaveCount(0)
  await expect(page.getByRole('group', { name: 'Tool exec' })).toContainText('Done')
  await expect(lastStatus(page)).toHaveText(/^Done/)
})

/** Whether `word` (found in a text node under the element) is laid out left to right, from its characters' boxes. */
const readsLeftToRight = (scope: import('@playwright/test').Locator, word: string) =>
  scope.evaluate((el, w) => {
    type N = { data: string }
    type R = { setStart(n: N, o: number): void; setEnd(n: N, o: number): void; getBoundingClientRect(): { x: number } }
    const doc = (globalThis as unknown as { document: { createTreeWalker(r: unknown, w: number): { nextNode(): N | null }; createRange(): R } }).document
    const walker = doc.createTreeWalker(el, 4)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.data.indexOf(w)
      if (i < 0) continue
      const xs: number[] = []
      for (let k = 0; k < w.length; k++) {
        const r = doc.createRange()
        r.setStart(n, i + k)
        r.setEnd(n, i + k + 1)
        xs.push(r.getBoundingClientRect().x)
      }
      return xs.every((x, k) => k === 0 || x > xs[k - 1])
    }
    throw new Error(`no text node holds ${w}`)
  }, word)

test('Trojan Source: hidden characters are tokens in the approval and tool card; a U+202E reverses nothing past its paragraph or markup', async ({ page }) => {
  const errors = await openApp(page, {
    scripts: [
      {
        steps: [
          { kind: 'text', text: 'Run `\u202eexe.txt` and more words.\n\nNext paragraph here.' },
          { kind: 'tool', name: 'exec', args: { command: 'cat notes\u202etxt.exe\u200b' }, result: { content: [{ type: 'text', text: 'ok' }] }, approval: true, durationMs: 100 },
        ],
      },
    ],
  })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('first \u202eline one\nsecond line')
  await box.press('Enter')
  const approval = page.getByRole('group', { name: 'Approval required' })
  await expect(approval.locator('pre')).toHaveText('cat notes⟨U+202E⟩txt.exe⟨U+200B⟩')
  await expect(approval.locator('pre .hidden-char-bidi')).toHaveAttribute('title', 'U+202E right-to-left override (hidden in the text)')
  await expect(approval.getByRole('note')).toContainText('Hidden or bidirectional characters in this command: U+202E right-to-left override, U+200B zero width space')
  // the command reads in order on screen: nothing left for the bidi algorithm to reverse
  expect(await readsLeftToRight(approval.locator('pre'), 'txt.exe')).toBe(true)
  await expect(page.getByRole('group', { name: 'Tool exec' }).locator('.tool-summary')).toContainText('cat notes⟨U+202E⟩txt.exe⟨U+200B⟩')
  await shot(page, 'stub-approval-hidden-chars')

  const log = page.getByRole('log', { name: 'Conversation' })
  // the U+202E in `code` ends with it (Chromium let it reverse "and more words" after the element)
  const reply = log.locator('.msg-assistant p').first()
  await expect(reply).toContainText('and more words')
  expect(await readsLeftToRight(reply, 'and more')).toBe(true)
  expect(await readsLeftToRight(log.locator('.msg-assistant p').nth(1), 'Next')).toBe(true)
  // in the user's bubble the override reverses the rest of its own line only
  const bubble = log.locator('.user-text').first()
  expect(await readsLeftToRight(bubble, 'first')).toBe(true)
  expect(await readsLeftToRight(bubble, 'line one')).toBe(false)
  expect(await readsLeftToRight(bubble, 'second')).toBe(true)
  await approval.getByRole('button', { name: 'Deny' }).click()
  expect(errors).toEqual([])
})

test('inspector shows the run’s events; a model error is readable', async ({ page }) => {
  await openApp(page)
  await page.getByRole('textbox', { name: 'Message' }).fill('this will error')
  await page.keyboard.press('Enter')
  await expect(lastStatus(page)).toContainText('Error: 401 Unauthorized: invalid x-api-key')
  await page.getByRole('button', { name: 'Inspector' }).click()
  const panel = page.getByRole('complementary', { name: 'Inspector' })
  await expect(panel.getByRole('list', { name: 'Events' }).getByText('error: 401 Unauthorized', { exact: false }).first()).toBeVisible()
  await expect(panel.getByRole('list', { name: /Timeline of run/ })).toContainText('Failed')
  await shot(page, 'stub-error-inspector')
})

test('reload restores the conversation identically; settings and theme persist', async ({ page }) => {
  await openApp(page, { persistKey: 'fake-e2e' })
  await page.getByRole('textbox', { name: 'Message' }).fill('list the files with a tool')
  await page.keyboard.press('Enter')
  await expect(lastStatus(page)).toHaveText(/^Done/)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await dialog.getByRole('button', { name: 'Appearance' }).click()
  await dialog.getByText('Dark').click()
  await dialog.getByRole('button', { name: 'Close' }).click()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  const log = page.getByRole('log', { name: 'Conversation' })
  const snapshot = async () =>
    // durations masked: live they come from events, after this reload from transcript timestamps
    log.locator('[data-msg]:not([data-kind="run"])').evaluateAll((els) =>
      els.map((e) => `${(e as unknown as DomLike).getAttribute('data-kind')}: ${((e as unknown as DomLike).textContent ?? '').replace(/\d+(\.\d+)? (ms|s)\b/g, '<t>')}`),
    )
  const before = await snapshot()
  await page.reload()
  await expect(log.getByRole('group', { name: 'Tool exec' })).toContainText('Done')
  expect(await snapshot()).toEqual(before)
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await shot(page, 'stub-reloaded-dark')
})

test('first start without a usable model shows onboarding that leads to settings', async ({ page }) => {
  await openApp(page, { configured: false })
  await expect(page.getByRole('heading', { name: 'Welcome to Loopdesk' })).toBeVisible()
  await shot(page, 'stub-onboarding')
  await page.getByRole('button', { name: 'Set up a model' }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await expect(dialog.getByLabel('Anthropic API key not set')).toBeVisible()
  await dialog.getByLabel('Anthropic API key', { exact: true }).fill('sk-ant-e2e-secret')
  await dialog.getByRole('button', { name: 'Save key' }).first().click()
  await expect(dialog.getByLabel('Anthropic API key set')).toBeVisible()
  await shot(page, 'stub-settings')
  expect(await page.content()).not.toContain('sk-ant-e2e-secret')
  await dialog.getByRole('button', { name: 'Close' }).click()
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
})

test('a config with problems: the welcome card names them; a refused save\'s toast leaves the Settings buttons uncovered', async ({ page }) => {
  await page.setViewportSize({ width: 1000, height: 620 })
  await openApp(page, {
    configured: false,
    configIssues: [
      { path: 'models.providers.local.models[0].contextWindow', message: 'must be integer >= 1' },
      { path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' },
    ],
  })
  const card = page.getByRole('alert', { name: 'Config problems' })
  await expect(card).toContainText('has 2 problems')
  await expect(card).toContainText('gateway.bind: must be one of')
  await shot(page, 'stub-onboarding-config-problems')
  await page.getByRole('button', { name: 'Fix in Settings' }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await page.evaluate(() => {
    const fake = (globalThis as { __LOOPDESK_FAKE_BRIDGE__?: { settingsSet: unknown } }).__LOOPDESK_FAKE_BRIDGE__!
    fake.settingsSet = async () => ({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: 'invalid config: models.providers.local.models[0].maxTokens: must be integer >= 1 — a long refusal that wraps over more than one line of the toast' },
    })
  })
  type Box = { x: number; y: number; width: number; height: number }
  const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
  await dialog.getByLabel('Model id').fill('llama3.1')
  await dialog.getByRole('button', { name: 'Save endpoint' }).click()
  const toast = page.locator('.toast', { hasText: /^Could not save the endpoint: invalid config/ })
  await expect(toast).toBeVisible()
  const toastBox = (await toast.boundingBox())!
  for (const name of ['Check', 'Save endpoint']) {
    const button = dialog.getByRole('button', { name, exact: true })
    await button.scrollIntoViewIfNeeded()
    expect(overlaps(toastBox, (await button.boundingBox())!), name).toBe(false)
  }
  await dialog.getByRole('button', { name: 'Agent' }).click()
  const save = dialog.getByRole('button', { name: 'Save', exact: true })
  await save.click()
  await expect(page.locator('.toast', { hasText: /^Could not save settings: invalid config/ })).toBeVisible()
  const toasts = (await page.locator('.toasts').boundingBox())!
  expect(overlaps(toasts, (await save.boundingBox())!)).toBe(false)
  // the buttons under the toasts' old place still take the click
  await save.click({ trial: true })
  await shot(page, 'stub-settings-refused-save')
})

test('sticks to the bottom while streaming until the user scrolls up; Jump to latest returns', async ({ page }) => {
  await openApp(page, { tickMs: 30, seed: [{ key: 'agent:main:main', label: 'Main', messages: 40 }] })
  await page.getByRole('textbox', { name: 'Message' }).fill('write a long answer')
  await page.keyboard.press('Enter')
  const scroller = page.locator('.conversation-scroll')
  type Box = { scrollHeight: number; scrollTop: number; clientHeight: number }
  const distance = () => scroller.evaluate((el) => ((b: Box) => b.scrollHeight - b.scrollTop - b.clientHeight)(el as unknown as Box))
  const scrollTop = () => scroller.evaluate((el) => (el as unknown as Box).scrollTop)
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText(/This is a long answer/).first()).toBeVisible()
  // following the stream (polled: a frame's new text can be measured before the snap that follows it)
  await expect.poll(distance).toBeLessThan(60)
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toHaveCount(0)
  // the user scrolls up: the view stays where they put it while text keeps arriving
  await scroller.hover()
  await page.mouse.wheel(0, -1500)
  await page.waitForTimeout(300)
  const top = await scrollTop()
  await page.waitForTimeout(1000)
  expect(Math.abs((await scrollTop()) - top)).toBeLessThan(5)
  expect(await distance()).toBeGreaterThan(300)
  const jump = page.getByRole('button', { name: 'Jump to latest' })
  await expect(jump).toBeVisible()
  await shot(page, 'stub-scrolled-up')
  // from the keyboard: the button goes away, the focus stays in the conversation (not on the page)
  await jump.focus()
  await page.keyboard.press('Enter')
  await expect.poll(distance).toBeLessThan(60)
  await expect(jump).toHaveCount(0)
  expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { className: string } | null } }).document.activeElement?.className)).toBe('conversation-scroll')
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
})

test('settings fit the dialog: the long CLI line scrolls inside its box, every control stays visible', async ({ page }) => {
  await page.setViewportSize({ width: 1000, height: 760 })
  await openApp(page)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  for (const tab of ['Models', 'Agent', 'Gateway', 'Appearance']) {
    await dialog.getByRole('button', { name: tab, exact: true }).click()
    const box = (await dialog.boundingBox())!
    // nothing in the section is wider than the dialog (a grid item or fieldset grown by its content); the
    // other sections stay mounted, hidden
    const overflow = await dialog.locator('.settings-section:visible').evaluate((el) => {
      const e = el as unknown as { scrollWidth: number; clientWidth: number; getBoundingClientRect(): { right: number } }
      return { scroll: e.scrollWidth - e.clientWidth, right: e.getBoundingClientRect().right }
    })
    expect(overflow.scroll, tab).toBeLessThanOrEqual(1)
    expect(overflow.right, tab).toBeLessThanOrEqual(box.x + box.width)
  }
  await dialog.getByRole('button', { name: 'Gateway', exact: true }).click()
  const save = dialog.getByRole('button', { name: 'Save port' })
  const b = (await save.boundingBox())!
  const d = (await dialog.boundingBox())!
  expect(b.x + b.width).toBeLessThanOrEqual(d.x + d.width)
  await shot(page, 'stub-settings-gateway-narrow')
})

test('settings: the section tabs stay in view while a long section scrolls', async ({ page }) => {
  await page.setViewportSize({ width: 1000, height: 600 })
  await openApp(page)
  for (const size of [{ width: 1000, height: 600 }, { width: 420, height: 700 }]) {
    await page.setViewportSize(size)
    await page.getByRole('button', { name: 'Settings', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Settings' })
    await dialog.getByRole('button', { name: 'Models', exact: true }).click()
    const body = dialog.locator('.modal-body')
    await body.evaluate((el) => {
      const e = el as unknown as { scrollTop: number; scrollHeight: number }
      e.scrollTop = e.scrollHeight
    })
    expect(await body.evaluate((el) => (el as unknown as { scrollTop: number }).scrollTop), `${size.width}: scrolled`).toBeGreaterThan(100)
    const area = (await body.boundingBox())!
    for (const tab of ['Models', 'Agent', 'Gateway', 'Appearance']) {
      const b = (await dialog.getByRole('button', { name: tab, exact: true }).boundingBox())!
      expect(b.y, `${size.width}: ${tab}`).toBeGreaterThanOrEqual(area.y - 0.5)
      expect(b.y + b.height, `${size.width}: ${tab}`).toBeLessThanOrEqual(area.y + area.height + 0.5)
    }
    // and a tab still answers a click there
    await dialog.getByRole('button', { name: 'Gateway', exact: true }).click()
    await expect(dialog.getByRole('button', { name: 'Save port' })).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(dialog).toBeHidden()
  }
})

test('a narrow window: the sidebar keeps "New session" inside it; the Inspector is a drawer that closes', async ({ page }) => {
  await page.setViewportSize({ width: 760, height: 600 })
  await openApp(page)
  const nav = (await page.getByRole('navigation', { name: 'Sessions' }).boundingBox())!
  const btn = (await page.getByRole('button', { name: 'New session' }).boundingBox())!
  expect(btn.x + btn.width).toBeLessThanOrEqual(nav.x + nav.width)
  await page.getByRole('button', { name: 'Inspector' }).click()
  const drawer = page.getByRole('complementary', { name: 'Inspector' })
  await expect(drawer).toBeVisible()
  await drawer.getByRole('button', { name: /Close/ }).click()
  await expect(drawer).toBeHidden()
  await shot(page, 'stub-narrow')
})
