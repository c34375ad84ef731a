// Accessibility audit: axe-core (WCAG 2.0/2.1/2.2 A and AA rules) over the states a user meets, in Chromium
// against the real stack (browser mode), in the light and the dark theme. A `serious` or `critical`
// violation fails the state it was found in; the rest are printed so they stay visible.
import { rmSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { startGateway } from '../src/main/gateway/server'
import { startTestRuntime } from '../test/fixtures/test-runtime'
import { STATIC_DIR, useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-a11y-token-0123456789abcdef'
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']
const THEMES = ['light', 'dark'] as const
const env = useBrowserGateway(TOKEN, { text: 'Fallback answer.', chunks: 2 })

/** Runs axe on the page as it is now; fails (softly: every state is still audited) on serious/critical. */
async function audit(page: Page, state: string): Promise<void> {
  // let transitions and lazy chunks settle: axe reads computed colours
  await page.waitForTimeout(150)
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze()
  const line = (v: (typeof violations)[number]) =>
    `  [${v.impact}] ${v.id} ×${v.nodes.length}: ${v.help}\n${v.nodes
      .slice(0, 4)
      .map((n) => `      ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('').trim() ?? ''}`)
      .join('\n')}`
  if (violations.length) console.log(`axe ${state}:\n${violations.map(line).join('\n')}`)
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect.soft(blocking.map((v) => `${v.id} ×${v.nodes.length}`), `serious/critical axe violations in ${state}`).toEqual([])
}

const log = (page: Page) => page.getByRole('log', { name: 'Conversation' })

async function open(page: Page, origin: string, theme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme })
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
    await approval.getByRole('button', { name: 'Deny' }).click()
    await expect(approval).toHaveCount(0)
    await expect(log(page).getByRole('status').last()).not.toHaveText(/Running|Waiting/)

    await page.getByRole('button', { name: 'Inspector' }).click()
    const panel = page.getByRole('complementary', { name: 'Inspector' })
    await expect(panel.getByRole('list', { name: 'Events' }).getByText('lifecycle').first()).toBeVisible()
    await audit(page, `Inspector open (${theme})`)
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

    await page.keyboard.press('Control+,')
    const dialog = page.getByRole('dialog', { name: 'Settings' })
    await expect(dialog).toBeVisible()
    await audit(page, `Settings (${theme})`)
  })
}
