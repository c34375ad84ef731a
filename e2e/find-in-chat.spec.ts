// Finding a message far back in a long session, in Chromium against the real stack: a sidebar search hit
// opens the session at the match (history loaded back to it, scrolled to, highlighted), paging up goes on
// from there; Ctrl+F's find bar counts matches across the whole transcript and steps through them.
import { appendFileSync, readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { expect, test, type Page } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'
import { shot } from './shots'

const TOKEN = 'e2e-find-in-chat-token-0123456789abcdef'
const KEY = 'agent:main:long-find'
const TURNS = 1500
// the search hit (one message), and the find term (four questions, spread over the session)
const NEEDLE = 'zephyr-lighthouse'
const FIND = 'saffron'
const FIND_AT = [100, 700, 1200, 1490]
const env = useBrowserGateway(TOKEN, { text: 'Short answer.', chunks: 2 })

/** A long session as the runtime writes it: one real turn, then TURNS more appended to its transcript. */
async function buildLongSession() {
  await env.rt.call('agent', { message: 'Question 0: where do we start?', sessionKey: KEY, idempotencyKey: 'find-e2e-0' })
  await env.rt.call('agent.wait', { runId: 'find-e2e-0', timeoutMs: 15_000 })
  const store = env.rt.runtime.core.store('main')
  const file = store.transcriptPath(store.get(KEY)!.sessionId)
  const lines = readFileSync(file, 'utf8').trim().split('\n')
  let parentId = (JSON.parse(lines[lines.length - 1]) as { id: string }).id
  let t = Date.now() - TURNS * 60_000
  const out: string[] = []
  for (let i = 1; i <= TURNS; i++) {
    const runId = randomUUID()
    const extra = i === 300 ? ` ${NEEDLE}` : FIND_AT.includes(i) ? ` with ${FIND}` : ''
    const user = { type: 'message', id: randomUUID(), parentId, timestamp: new Date(t).toISOString(), runId, message: { role: 'user', content: [{ type: 'text', text: `Question ${i}: tell me about item ${i}${extra}` }], timestamp: t } }
    const reply = {
      type: 'message',
      id: randomUUID(),
      parentId: user.id,
      timestamp: new Date(t + 500).toISOString(),
      runId,
      message: { role: 'assistant', content: [{ type: 'text', text: `Answer ${i}. Item ${i} is fine.` }], stopReason: 'stop', timestamp: t + 400 },
    }
    parentId = reply.id
    out.push(JSON.stringify(user), JSON.stringify(reply))
    t += 60_000
  }
  appendFileSync(file, `${out.join('\n')}\n`)
}

/** The lowest question number rendered in the conversation (e2e/ has no DOM lib: read in the page). */
const topQuestion = (page: Page) =>
  page.evaluate(`Math.min(...Array.from(document.querySelectorAll('[data-kind=user]')).map((r) => Number((/Question (\\d+)/.exec(r.textContent) || [])[1] ?? 1e9)))`) as Promise<number>

test('a search hit lands on its message far back; the find bar steps through matches across the whole session', async ({ page }) => {
  test.setTimeout(120_000)
  await buildLongSession()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  const log = page.getByRole('log', { name: 'Conversation' })
  const found = log.locator('[data-found]')

  await nav.getByRole('searchbox', { name: 'Search sessions' }).fill(NEEDLE)
  const hit = nav.getByText(new RegExp(`item 300 ${NEEDLE}`))
  await expect(hit).toBeVisible()
  await hit.click()
  await expect(found).toContainText(`Question 300: tell me about item 300 ${NEEDLE}`, { timeout: 20_000 })
  await expect(found).toBeInViewport()
  await shot(page, 'find-search-hit')
  // the highlight fades; paging up goes on from there
  await expect(found).toHaveCount(0, { timeout: 10_000 })
  const top = await topQuestion(page)
  expect(top).toBeLessThan(300)
  await page.locator('.conversation-scroll').evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 0))
  await expect.poll(() => topQuestion(page), { timeout: 20_000 }).toBeLessThan(top)
  // and down to the newest
  await page.getByRole('button', { name: 'Jump to latest' }).click()
  await expect(log.getByText(`Answer ${TURNS}. Item ${TURNS} is fine.`)).toBeVisible()

  const box = page.getByRole('textbox', { name: 'Message' })
  await box.focus()
  await page.keyboard.press('Control+f')
  const bar = page.getByRole('search', { name: 'Find in conversation' })
  const input = bar.getByRole('searchbox', { name: 'Find in conversation' })
  await expect(input).toBeFocused()
  await input.fill(FIND)
  const status = bar.getByRole('status')
  await expect(status).toHaveText('4 of 4', { timeout: 20_000 })
  await expect(found).toContainText('Question 1490:')
  await page.keyboard.press('Shift+Enter')
  await expect(status).toHaveText('3 of 4')
  await expect(found).toContainText('Question 1200:')
  await expect(found).toBeInViewport()
  // past the newest it wraps to the oldest, 1,400 turns back
  await page.keyboard.press('Enter')
  await page.keyboard.press('Enter')
  await expect(status).toHaveText('1 of 4')
  await expect(found).toContainText(`Question 100: tell me about item 100 with ${FIND}`, { timeout: 20_000 })
  await expect(found).toBeInViewport()
  // the query is marked inside the row (CSS Custom Highlight API): its one occurrence is the current one, marked apart
  expect(await page.evaluate('CSS.highlights.get("loopdesk-find-current")?.size')).toBe(1)
  expect(await page.evaluate('CSS.highlights.has("loopdesk-find")')).toBe(false)
  await shot(page, 'find-bar')
  await bar.getByRole('button', { name: 'Next match' }).click()
  await expect(status).toHaveText('2 of 4')
  await expect(found).toContainText('Question 700:', { timeout: 20_000 })
  await page.keyboard.press('Escape')
  await expect(bar).toHaveCount(0)
  await expect(found).toHaveCount(0)
  expect(await page.evaluate('CSS.highlights.has("loopdesk-find") || CSS.highlights.has("loopdesk-find-current")')).toBe(false)
  await expect(box).toBeFocused()
  expect(errors).toEqual([])
})
