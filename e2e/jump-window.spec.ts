// A jump to an early message of a 2,000-turn session, in Chromium against the real stack: the page holds a
// detached window of rows around the match (bounded), not every row from the end down to it; paging down reaches
// the end (the live transcript takes over), and "Jump to latest" goes there at once.
import { appendFileSync, readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { expect, test, type Page } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-jump-window-token-0123456789abcdef'
const KEY = 'agent:main:jump-window'
const TURNS = 2000
const NEEDLE = 'quokka-ledger'
const NEEDLE_AT = 10
// a word three times in one early message: the find bar counts and steps through occurrences
const THRICE = 'ochre'
const THRICE_AT = 20
// the detached window a jump opens holds 201 rows (state/detached-window.ts OPEN_ROWS), each turn two items
// and a run footer: well under this, while the rows from the end down to turn 10 would be ~6,000 items
const BOUNDED = 700
const env = useBrowserGateway(TOKEN, { text: 'Short answer.', chunks: 2 })

/** A long session as the runtime writes it: one real turn, then TURNS more appended to its transcript. */
async function buildLongSession() {
  await env.rt.call('agent', { message: 'Question 0: where do we start?', sessionKey: KEY, idempotencyKey: 'jump-e2e-0' })
  await env.rt.call('agent.wait', { runId: 'jump-e2e-0', timeoutMs: 15_000 })
  const store = env.rt.runtime.core.store('main')
  const file = store.transcriptPath(store.get(KEY)!.sessionId)
  const lines = readFileSync(file, 'utf8').trim().split('\n')
  let parentId = (JSON.parse(lines[lines.length - 1]) as { id: string }).id
  let t = Date.now() - TURNS * 60_000
  const out: string[] = []
  for (let i = 1; i <= TURNS; i++) {
    const runId = randomUUID()
    const extra = i === NEEDLE_AT ? ` ${NEEDLE}` : i === THRICE_AT ? ` in ${THRICE}, ${THRICE} or ${THRICE}` : ''
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

const itemsLoaded = async (page: Page) => Number(await page.getByRole('log', { name: 'Conversation' }).getAttribute('data-items'))
/** The highest question number rendered in the conversation (e2e/ has no DOM lib: read in the page). */
const bottomQuestion = (page: Page) =>
  page.evaluate(`Math.max(...Array.from(document.querySelectorAll('[data-kind=user]')).map((r) => Number((/Question (\\d+)/.exec(r.textContent) || [])[1] ?? -1)))`) as Promise<number>

test('a jump to an early match loads a bounded window; paging down reaches the end; Jump to latest', async ({ page }) => {
  test.setTimeout(180_000)
  await buildLongSession()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  const log = page.getByRole('log', { name: 'Conversation' })
  const found = log.locator('[data-found]')
  const latest = page.getByRole('button', { name: 'Jump to latest' })

  await nav.getByRole('searchbox', { name: 'Search sessions' }).fill(NEEDLE)
  const hit = nav.getByText(new RegExp(`item ${NEEDLE_AT} ${NEEDLE}`))
  await expect(hit).toBeVisible({ timeout: 20_000 })
  await hit.click()
  await expect(found).toContainText(`Question ${NEEDLE_AT}: tell me about item ${NEEDLE_AT} ${NEEDLE}`, { timeout: 20_000 })
  await expect(found).toBeInViewport()
  await expect(log).toHaveAttribute('data-detached', 'true')
  expect(await itemsLoaded(page)).toBeLessThan(BOUNDED)
  await expect(latest).toBeVisible()

  // paging down: each bottom reached loads newer rows (the window stays bounded) until the live end takes over
  const scroller = page.locator('.conversation-scroll')
  let last = await bottomQuestion(page)
  for (let round = 0; round < 80; round++) {
    if ((await log.getAttribute('data-detached')) === null) break
    await scroller.evaluate((el) => ((el as unknown as { scrollTop: number; scrollHeight: number }).scrollTop = (el as unknown as { scrollHeight: number }).scrollHeight))
    await page.waitForTimeout(150)
    expect(await itemsLoaded(page)).toBeLessThan(3 * BOUNDED)
    const now = await bottomQuestion(page)
    expect(now).toBeGreaterThanOrEqual(last)
    last = now
  }
  await expect(log).not.toHaveAttribute('data-detached', 'true')
  await scroller.evaluate((el) => ((el as unknown as { scrollTop: number; scrollHeight: number }).scrollTop = (el as unknown as { scrollHeight: number }).scrollHeight))
  await expect(log.getByText(`Answer ${TURNS}. Item ${TURNS} is fine.`)).toBeVisible({ timeout: 20_000 })

  // again, then "Jump to latest" at once
  await hit.click()
  await expect(found).toContainText(`Question ${NEEDLE_AT}:`, { timeout: 20_000 })
  await expect(log).toHaveAttribute('data-detached', 'true')
  expect(await itemsLoaded(page)).toBeLessThan(BOUNDED)
  await latest.click()
  await expect(log).not.toHaveAttribute('data-detached', 'true')
  await expect(log.getByText(`Answer ${TURNS}. Item ${TURNS} is fine.`)).toBeVisible({ timeout: 20_000 })
  await expect(latest).toHaveCount(0)

  // find: three occurrences in one message far back, counted and stepped one by one, the current one marked apart
  await page.getByRole('textbox', { name: 'Message' }).focus()
  await page.keyboard.press('Control+f')
  const bar = page.getByRole('search', { name: 'Find in conversation' })
  await bar.getByRole('searchbox', { name: 'Find in conversation' }).fill(THRICE)
  const status = bar.getByRole('status')
  await expect(status).toHaveText('3 of 3', { timeout: 20_000 })
  await expect(found).toContainText(`Question ${THRICE_AT}:`, { timeout: 20_000 })
  await expect(log).toHaveAttribute('data-detached', 'true')
  await expect.poll(() => page.evaluate('CSS.highlights.get("loopdesk-find-current")?.size')).toBe(1)
  expect(await page.evaluate('CSS.highlights.get("loopdesk-find")?.size')).toBe(2)
  const currentAt = () => page.evaluate('(() => { const r = [...CSS.highlights.get("loopdesk-find-current")][0]; return r.startContainer.textContent.slice(0, r.startOffset).split("ochre").length - 1 })()')
  expect(await currentAt()).toBe(2)
  await page.keyboard.press('Enter')
  await expect(status).toHaveText('1 of 3')
  await expect.poll(currentAt).toBe(0)
  await page.keyboard.press('Enter')
  await expect(status).toHaveText('2 of 3')
  await expect.poll(currentAt).toBe(1)
  expect(errors).toEqual([])
})
