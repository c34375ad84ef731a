// Browser mode against the real stack: follow-ups queued while a slow reply streams can be reordered with
// the keyboard alone (focus stays on the moved message) and the runs start in the new order; a follow-up
// removed with its × leaves nothing in the conversation, live or after a reload.
import { expect, test, type Page } from '@playwright/test'
import type { CapturedRequest } from '../test/fixtures/model-server'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-queue-order-token-0123456789abcdef'

/** The last user message's text of a Chat Completions request. */
function lastUser(req: CapturedRequest): string {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const u = [...msgs].reverse().find((m) => m.role === 'user')
  const c = u?.content
  return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : ''
}

// "slow start" streams for ~6 s; every other message is echoed back at once
const env = useBrowserGateway(TOKEN, (req) =>
  /slow start/.test(lastUser(req))
    ? { text: 'A long first reply, streamed slowly. '.repeat(6), chunks: 60, delayMs: 100 }
    : { text: `Answer to ${lastUser(req).trim()}.`, chunks: 2 },
)

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json). */
type DomLike = { getAttribute(name: string): string | null; textContent: string | null }
const focusedLabel = (page: Page) => page.evaluate(() => (globalThis as unknown as { document: { activeElement: DomLike | null } }).document.activeElement?.getAttribute('aria-label') ?? null)
const queued = (page: Page) => page.getByRole('region', { name: 'Queued messages' }).locator('.q-queued .queue-text').allTextContents()

test('queued follow-ups reorder with the keyboard, focus stays on the moved one, runs start in the new order; a removed one leaves nothing', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  const log = page.getByRole('log', { name: 'Conversation' })

  await box.fill('slow start')
  await box.press('Enter')
  await expect(log.getByText(/A long first reply/)).toBeVisible({ timeout: 10_000 })
  for (const m of ['first follow-up', 'second follow-up', 'third follow-up', 'dropped follow-up']) {
    await box.fill(m)
    await box.press('Enter')
    await expect(page.getByRole('region', { name: 'Queued messages' }).getByText(m)).toBeVisible()
  }
  expect(await queued(page)).toEqual(['first follow-up', 'second follow-up', 'third follow-up', 'dropped follow-up'])

  // × on the last one
  await page.getByRole('button', { name: 'Remove queued message: dropped follow-up' }).focus()
  await page.keyboard.press('Enter')
  // it stays listed as an outcome ("Removed"), no longer waiting
  await expect(page.getByRole('button', { name: 'Remove queued message: dropped follow-up' })).toHaveCount(0)
  await expect(page.locator('.queue-item', { hasText: 'dropped follow-up' }).locator('.badge')).toHaveText('Removed')
  // live, while the first reply still streams: no pill for the removed message's closed run
  await page.waitForTimeout(300)
  await expect(log).not.toContainText('Stopped')
  await expect(log).not.toContainText('dropped follow-up')

  // keyboard only: Move down twice on the first one (Enter, then Space), then Move up on the third
  await page.getByRole('button', { name: 'Move down: first follow-up' }).focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => queued(page)).toEqual(['second follow-up', 'first follow-up', 'third follow-up'])
  expect(await focusedLabel(page)).toBe('Move down: first follow-up')
  await page.keyboard.press('Space')
  await expect.poll(() => queued(page)).toEqual(['second follow-up', 'third follow-up', 'first follow-up'])
  // at the end of the list Move down is disabled: focus moves to the same message's Move up
  await expect.poll(() => focusedLabel(page)).toBe('Move up: first follow-up')
  await page.getByRole('button', { name: 'Move up: third follow-up' }).focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => queued(page)).toEqual(['third follow-up', 'second follow-up', 'first follow-up'])
  // first in the list: its Move up is disabled now, focus goes to its Move down
  await expect.poll(() => focusedLabel(page)).toBe('Move down: third follow-up')
  // the slow reply is still streaming: the reorder happened before any follow-up ran
  expect(env.model.requests.length).toBe(1)

  await expect(log.getByText('Answer to first follow-up.')).toBeVisible({ timeout: 30_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/, { timeout: 10_000 })
  expect(env.model.requests.slice(1).map(lastUser)).toEqual(['third follow-up', 'second follow-up', 'first follow-up'])

  const expectConversation = async () => {
    await expect(log.getByText('Answer to first follow-up.')).toBeVisible({ timeout: 10_000 })
    const text = (await log.textContent()) ?? ''
    const order = ['third follow-up', 'second follow-up', 'first follow-up'].map((m) => text.indexOf(`Answer to ${m}.`))
    expect(order.every((i) => i >= 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    expect(text).not.toContain('dropped follow-up')
    expect(text).not.toMatch(/Stopped/)
    expect(await log.getByRole('status').filter({ hasText: /Stopped|Error|Failed/ }).count()).toBe(0)
  }
  await expectConversation()
  await page.reload()
  await expectConversation()
  expect(errors).toEqual([])
})

test('a reordered queue reloads in its new order and runs in it', async ({ page }) => {
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  const sessions = await page.locator('li.session').count()
  await page.keyboard.press('Control+Shift+O')
  await expect(page.locator('li.session')).toHaveCount(sessions + 1)
  const log = page.getByRole('log', { name: 'Conversation' })
  const from = env.model.requests.length
  await box.fill('slow start again')
  await box.press('Enter')
  await expect(log.getByText(/A long first reply/)).toBeVisible({ timeout: 10_000 })
  for (const m of ['alpha', 'beta', 'gamma']) {
    await box.fill(m)
    await box.press('Enter')
    await expect(page.getByRole('region', { name: 'Queued messages' }).getByText(m)).toBeVisible()
  }
  await page.getByRole('button', { name: 'Move up: gamma' }).focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => queued(page)).toEqual(['alpha', 'gamma', 'beta'])
  await page.keyboard.press('Enter')
  await expect.poll(() => queued(page)).toEqual(['gamma', 'alpha', 'beta'])
  await expect.poll(() => focusedLabel(page)).toBe('Move down: gamma')

  await page.reload()
  await expect(log.getByText(/A long first reply/)).toBeVisible({ timeout: 10_000 })
  await expect.poll(() => queued(page)).toEqual(['gamma', 'alpha', 'beta'])
  await expect(log.getByText('Answer to beta.')).toBeVisible({ timeout: 30_000 })
  expect(env.model.requests.slice(from + 1).map(lastUser)).toEqual(['gamma', 'alpha', 'beta'])
})
