// Browser mode against the real stack: Regenerate and Edit send a message again in a session forked just before
// it (sessions.fork) — the model never sees the replaced reply, and the original session keeps it; the header
// leads back. Then keyboard switching: the sidebar list is one Tab stop with arrow keys, Alt+↓/↑ step sessions.
import { expect, test, type Page } from '@playwright/test'
import type { CapturedRequest } from '../test/fixtures/model-server'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-regenerate-token-0123456789abcdef'

function lastUser(req: CapturedRequest): string {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const u = [...msgs].reverse().find((m) => m.role === 'user')
  const c = u?.content
  return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : ''
}

// every reply is numbered, so a regenerated one differs from the one it replaces
let n = 0
const env = useBrowserGateway(TOKEN, (req) => ({ text: `Reply ${++n} to ${lastUser(req).trim()}.`, chunks: 2 }))

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json) */
type Li = { querySelector(sel: string): unknown; contains(node: unknown): boolean; ownerDocument: { activeElement: unknown } }
const title = (page: Page) => page.locator('.chat-header h1')

test('Regenerate and Edit send again in a new session forked before the message; the original keeps its reply', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  await page.keyboard.press('Control+Shift+O')
  await expect(page.locator('nav li[data-key]')).toHaveCount(2)
  const log = page.getByRole('log', { name: 'Conversation' })
  const done = async (count: number) => expect(log.getByRole('status').filter({ hasText: /^Done/ })).toHaveCount(count, { timeout: 10_000 })

  await box.fill('Name a colour')
  await box.press('Enter')
  await done(1)
  await box.fill('Name a fruit')
  await box.press('Enter')
  await done(2)
  const second = (await log.getByText(/^Reply \d+ to Name a fruit\.$/).textContent())!
  const requestsBefore = env.model.requests.length

  // Regenerate: only on the last turn
  await expect(log.getByRole('button', { name: 'Regenerate' })).toHaveCount(1)
  await log.getByRole('button', { name: 'Regenerate' }).click()
  await expect(title(page)).toHaveText('Name a colour (fork)')
  await expect(log.getByText(/^Reply \d+ to Name a fruit\.$/)).not.toHaveText(second, { timeout: 10_000 })
  await expect(log.getByText(second)).toHaveCount(0)
  // the model got the first turn and the question again, never the reply being replaced
  const regen = env.model.requests[requestsBefore]
  expect(JSON.stringify(regen.body?.messages)).toContain('Name a colour')
  expect(JSON.stringify(regen.body?.messages)).not.toContain(second)
  expect(lastUser(regen)).toBe('Name a fruit')
  // the header leads back to the original, which still has its reply
  const header = page.locator('.chat-header')
  await expect(header).toContainText('Branched from')
  await header.getByRole('button', { name: 'Name a colour' }).click()
  await expect(title(page)).toHaveText('Name a colour')
  await expect(log.getByText(second)).toBeVisible()

  // Edit the first message of the original: inline, then sent in a new session holding nothing before it
  const firstBubble = log.locator('.msg-user', { hasText: 'Name a colour' })
  await firstBubble.hover()
  await firstBubble.getByRole('button', { name: 'Edit' }).click()
  const editor = page.getByRole('textbox', { name: 'Edit message' })
  await expect(editor).toBeFocused()
  await expect(editor).toHaveValue('Name a colour')
  await editor.fill('Name a planet')
  await editor.press('Enter')
  await expect(title(page)).toHaveText('Name a colour (fork 2)', { timeout: 10_000 }) // the Regenerate above made "(fork)"
  await expect(log.getByText(/^Reply \d+ to Name a planet\.$/)).toBeVisible({ timeout: 10_000 })
  await expect(log).not.toContainText('Name a fruit')
  expect(env.model.requests.at(-1)!.body?.messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(1)
  expect(errors).toEqual([])
})

test('the session list is one Tab stop with arrow keys; Alt+↓/Alt+↑ switch sessions from the composer', async ({ page }) => {
  for (const label of ['Keys one', 'Keys two', 'Keys three', 'Keys four']) await env.rt.call('sessions.create', { label })
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  const items = nav.locator('li[data-key]')
  await expect.poll(() => items.count()).toBeGreaterThanOrEqual(4)
  const count = await items.count()
  // (two forks share a name: rows are told apart by their place in the list)
  const openAt = () => items.evaluateAll((els) => (els as unknown as Li[]).findIndex((e) => e.querySelector('[aria-current="true"]')))
  const focusAt = () => items.evaluateAll((els) => (els as unknown as Li[]).findIndex((e) => e.contains(e.ownerDocument.activeElement)))

  // Alt+↓ / Alt+↑ from the composer: the next / previous listed session opens, the composer keeps the keyboard
  await items.nth(0).locator('.session-main').click()
  await expect.poll(openAt).toBe(0)
  await box.focus()
  await page.keyboard.press('Alt+ArrowDown')
  await expect.poll(openAt).toBe(1)
  await page.keyboard.press('Alt+ArrowDown')
  await expect.poll(openAt).toBe(2)
  await page.keyboard.press('Alt+ArrowUp')
  await expect.poll(openAt).toBe(1)
  await expect(box).toBeFocused()

  // Tab from the search box: one stop in the list, at the open session; arrows, Home, End move; Enter opens
  await nav.getByRole('searchbox', { name: 'Search sessions' }).focus()
  await page.keyboard.press('Tab')
  expect(await focusAt()).toBe(1)
  await page.keyboard.press('End')
  expect(await focusAt()).toBe(count - 1)
  await page.keyboard.press('Home')
  expect(await focusAt()).toBe(0)
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect.poll(openAt).toBe(2)
  // opening a session gives the composer the keyboard; Shift+Tab from it reaches the list in a few presses (past
  // the header's buttons), at the open session — not at the bottom row, with every row two stops
  await expect(box).toBeFocused()
  let presses = 0
  while ((await focusAt()) < 0 && presses < 10) {
    await page.keyboard.press('Shift+Tab')
    presses++
  }
  expect(await focusAt()).toBe(2)
  // (the header's Settings, Inspector and the session's model button)
  expect(presses).toBeLessThanOrEqual(4)
  // → opens the row's actions menu
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('menu')).toBeVisible()
  await expect(page.getByRole('menuitem').first()).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('menu')).toHaveCount(0)
})
