// Browser mode against the real gateway: after a reconnect the open session resyncs with a chat.history delta
// cursor (not a full refetch), and what another client added while the page was away shows up, every row once.
import { expect, test, type Page } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-resync-token-0123456789abcdef'
const NEW_TOKEN = 'e2e-resync-token-NEW-9876543210fedcba'

const env = useBrowserGateway(TOKEN, { text: 'Fallback answer.', chunks: 2 })

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json). */
type DomLike = { getAttribute(name: string): string | null; textContent: string | null }

interface HistoryCall {
  params: { cursor?: string; offset?: number }
  reply?: { kind?: string; messages?: unknown[] }
}

/** Every chat.history request the page sends over the WebSocket, with its reply. */
function watchHistory(page: Page): HistoryCall[] {
  const calls: HistoryCall[] = []
  const byId = new Map<string, HistoryCall>()
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      const frame = parse(f.payload) as { type?: string; id?: string; method?: string; params?: HistoryCall['params'] } | undefined
      if (frame?.type !== 'req' || frame.method !== 'chat.history' || !frame.id) return
      const call: HistoryCall = { params: frame.params ?? {} }
      calls.push(call)
      byId.set(frame.id, call)
    })
    ws.on('framereceived', (f) => {
      const frame = parse(f.payload) as { type?: string; id?: string; payload?: HistoryCall['reply'] } | undefined
      const call = frame?.type === 'res' && frame.id ? byId.get(frame.id) : undefined
      if (call) call.reply = frame!.payload ?? {}
    })
  })
  return calls
}

function parse(payload: string | Buffer): unknown {
  try {
    return JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8'))
  } catch {
    return undefined
  }
}

const rows = (page: Page) =>
  page
    .getByRole('log', { name: 'Conversation' })
    .locator('[data-msg]')
    .evaluateAll((els) => els.map((e) => `${(e as unknown as DomLike).getAttribute('data-kind')}: ${(e as unknown as DomLike).textContent ?? ''}`))

test('a reconnect resyncs the open session with a history delta: what was added meanwhile shows, no row twice', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  const history = watchHistory(page)
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  const log = page.getByRole('log', { name: 'Conversation' })

  env.model.push({ text: 'First answer.', chunks: 2 })
  await box.fill('first question')
  await box.press('Enter')
  await expect(log.getByText('First answer.')).toBeVisible()
  await expect(log.getByRole('status').last()).toHaveText(/^Done · /)
  // the page has its cursor from the session's newest page
  await expect.poll(() => history.some((c) => !c.params.offset && c.params.cursor === undefined && typeof (c.reply as { deltaCursor?: unknown })?.deltaCursor === 'string')).toBe(true)
  const sessionKey = await page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('loopdesk.lastSession'))
  expect(sessionKey).toBeTruthy()

  // The gateway drops the page (its shared token was rotated; it comes back with its device token). Meanwhile
  // another client (the CLI) runs a question in the same session.
  const from = history.length
  env.gw.setToken(NEW_TOKEN)
  env.model.push({ text: 'Second answer, from elsewhere.', chunks: 2 })
  const run = (await env.rt.call('agent', { sessionKey: sessionKey!, message: 'second question from the CLI', idempotencyKey: 'resync-other-1' })) as { runId: string }
  await env.rt.call('agent.wait', { runId: run.runId, timeoutMs: 15_000 })

  await expect(log.getByText('Second answer, from elsewhere.')).toBeVisible({ timeout: 15_000 })
  await expect(log.getByText('second question from the CLI')).toBeVisible()
  // the resync asked with the cursor and got a delta
  await expect.poll(() => history.slice(from).some((c) => typeof c.params.cursor === 'string' && c.reply?.kind === 'delta'), { timeout: 15_000 }).toBe(true)
  // a quiet second for a late resync (the end-of-run one, when the page saw the run end) to go wrong, then every
  // request asked has its reply, and every row is there once
  await page.waitForTimeout(1000)
  await expect.poll(() => history.slice(from).every((c) => c.reply !== undefined)).toBe(true)
  const shown = await rows(page)
  const once = (text: string) => shown.filter((r) => r.includes(text)).length
  expect(once('first question')).toBe(1)
  expect(once('First answer.')).toBe(1)
  expect(once('second question from the CLI')).toBe(1)
  expect(once('Second answer, from elsewhere.')).toBe(1)
  expect(shown.filter((r) => r.startsWith('user:'))).toHaveLength(2)
  expect(shown.filter((r) => r.startsWith('run:'))).toHaveLength(2)
  // no full page was needed after the reconnect
  expect(history.slice(from).filter((c) => c.params.cursor === undefined)).toEqual([])
  expect(errors).toEqual([])
})
