// History paging in the built renderer (Debian Chromium, in-page FakeBridge): a session longer than
// one chat.history call can return. Scrolling up loads older pages without moving what the user is
// reading; every message shows exactly once, in order; a run's refetch keeps what was scrolled back to.
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'

const KEY = 'agent:main:long'
const MESSAGES = 2400 // 1,200 questions and answers: more than the 1,000 one history call returns
const QUESTIONS = MESSAGES / 2

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json). */
interface El {
  scrollTop: number
  scrollHeight: number
  clientHeight: number
  textContent: string | null
  getAttribute(name: string): string | null
  getBoundingClientRect(): { top: number }
  querySelectorAll(selector: string): ArrayLike<El>
}
interface Doc {
  querySelector(selector: string): El | null
  querySelectorAll(selector: string): ArrayLike<El>
}

async function openLong(page: Page) {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, { tickMs: 20, historyDelayMs: 300, seed: [{ key: KEY, label: 'Long history', messages: MESSAGES }] })
  await page.goto('/')
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText(`Question ${QUESTIONS}:`)).toBeVisible()
  return errors
}

/** The first question row fully inside the conversation's viewport, and its position. */
function topQuestion(page: Page) {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: Doc }).document
    const scroller = d.querySelector('.conversation-scroll')!
    const top = scroller.getBoundingClientRect().top
    const bottom = top + scroller.clientHeight
    for (const row of Array.from(d.querySelectorAll('[data-msg][data-kind=user]'))) {
      const y = row.getBoundingClientRect().top
      if (y >= top && y < bottom) return { text: (row.textContent ?? '').split(':')[0], y }
    }
    return undefined
  })
}

/**
 * Scrolls to the top until the first message is in view, one older page at a time; `whileLoading` runs
 * while each page loads (it must wait for the load to end). Returns how many pages were loaded.
 */
async function pageBackToFirst(page: Page, whileLoading?: (pageNo: number) => Promise<void>): Promise<number> {
  const scroller = page.locator('.conversation-scroll')
  const loadingOlder = page.getByText('Loading earlier messages…')
  const first = page.getByRole('log', { name: 'Conversation' }).getByText('Question 1:')
  for (let pages = 0; pages < 20; ) {
    // Reach the top: either the first message is there, or the next older page loads.
    await scroller.evaluate((el) => ((el as unknown as El).scrollTop = 0))
    await expect(loadingOlder.or(first)).toBeVisible()
    if (await first.isVisible()) return pages
    pages++
    if (whileLoading) await whileLoading(pages)
    else await expect(loadingOlder).toHaveCount(0)
  }
  throw new Error('the first message was not reached within 20 older pages')
}

test('scrolling up pages back through 2,400 messages; the reading position holds; each message once, in order', async ({ page }) => {
  test.setTimeout(180_000)
  const errors = await openLong(page)
  const scroller = page.locator('.conversation-scroll')
  const log = page.getByRole('log', { name: 'Conversation' })

  const loadingOlder = page.getByText('Loading earlier messages…')
  const pages = await pageBackToFirst(page, async (pageNo) => {
    // While it loads, note the question being read at the top.
    const before = (await topQuestion(page))!
    // The older page is prepended above it; the virtualized list keeps it where it was.
    await expect(loadingOlder).toHaveCount(0)
    await expect.poll(() => scroller.evaluate((el) => (el as unknown as El).scrollTop)).toBeGreaterThan(1000)
    await page.waitForTimeout(100)
    const row = log.locator('[data-kind=user]', { hasText: `${before.text}:` })
    const after = (await row.boundingBox())!
    expect(Math.abs(after.y - before.y), `${before.text} moved while page ${pageNo} loaded`).toBeLessThan(4)
    if (pageNo === 2) await shot(page, 'history-older-page')
  })
  expect(pages).toBeGreaterThanOrEqual(Math.ceil(MESSAGES / 200) - 1)
  await expect(page.getByText('Scroll up for earlier messages')).toHaveCount(0)
  await shot(page, 'history-first-message')

  // Walk down the whole conversation, each step putting the last rendered row at the top, and collect
  // every question row by its index: none twice, none missing.
  const seen = new Map<number, string>()
  await page.setViewportSize({ width: 1280, height: 2400 }) // more rows per step
  await scroller.evaluate((el) => ((el as unknown as El).scrollTop = 0))
  const collect = () =>
    scroller.evaluate((el) => {
      const s = el as unknown as El
      const all = Array.from(s.querySelectorAll('[data-msg]')) as Array<El & { scrollIntoView(o: object): void }>
      const rows = all.filter((r) => r.getAttribute('data-kind') === 'user').map((r) => [Number(r.getAttribute('data-index')), (r.textContent ?? '').split(':')[0]] as const)
      const lastRow = all.reduce((a, b) => (Number(b.getAttribute('data-index')) > Number(a.getAttribute('data-index')) ? b : a))
      lastRow.scrollIntoView({ block: 'start' })
      const atEnd = s.scrollTop + s.clientHeight >= s.scrollHeight - 2
      return { rows, last: Number(lastRow.getAttribute('data-index')), atEnd }
    })
  for (let step = 0; step < 5000; step++) {
    const { rows, last, atEnd } = await collect()
    for (const [i, text] of rows) seen.set(i, text)
    if (atEnd) {
      // the end is in view: what renders there now is the rest
      await page.waitForTimeout(300)
      for (const [i, text] of (await collect()).rows) seen.set(i, text)
      break
    }
    // Wait for the rows after it. The virtualizer may still be settling a measurement from the resize
    // or the last page and can move scrollTop once more (even back up); like a user, scroll down
    // again then: that row, or the lowest one rendered, back to the top of the view.
    await page
      .waitForFunction(
        (n) => {
          const d = (globalThis as unknown as { document: Doc }).document
          const rendered = Array.from(d.querySelectorAll('[data-msg]')) as Array<El & { scrollIntoView(o: object): void }>
          const index = (r: El) => Number(r.getAttribute('data-index'))
          if (rendered.some((r) => index(r) > n)) return true
          if (rendered.length === 0) return false
          const anchor = rendered.find((r) => index(r) === n) ?? rendered.reduce((a, b) => (index(b) > index(a) ? b : a))
          const s = d.querySelector('.conversation-scroll')!
          if (anchor.getBoundingClientRect().top > s.getBoundingClientRect().top + 2) anchor.scrollIntoView({ block: 'start' })
          return false
        },
        last,
        { timeout: 15_000, polling: 100 },
      )
      .catch(async (err: Error) => {
        const where = await scroller.evaluate((el) => {
          const s = el as unknown as El
          return { scrollTop: s.scrollTop, scrollHeight: s.scrollHeight, rows: Array.from(s.querySelectorAll('[data-msg]')).map((r) => r.getAttribute('data-index')).join(',') }
        })
        throw new Error(`no row after ${last} rendered at step ${step}: ${JSON.stringify(where)} (${err.message})`)
      })
  }
  const inOrder = [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text)
  expect(inOrder).toEqual(Array.from({ length: QUESTIONS }, (_, i) => `Question ${i + 1}`))
  expect(errors).toEqual([])
})

test('a run in a long session keeps the older pages already loaded (a refetch is not capped at 1,000)', async ({ page }) => {
  test.setTimeout(120_000)
  const errors = await openLong(page)
  const scroller = page.locator('.conversation-scroll')
  const log = page.getByRole('log', { name: 'Conversation' })
  // page back past the newest 1,000 messages, to the first one
  expect(await pageBackToFirst(page)).toBeGreaterThanOrEqual(Math.ceil(MESSAGES / 200) - 1)
  await expect(log.getByText('Question 1:')).toBeVisible()
  // a message and its run: the end of the run refetches the newest part of the transcript
  await page.getByRole('textbox', { name: 'Message' }).fill('and one more question')
  await page.keyboard.press('Enter')
  await expect(log.getByRole('status').last()).toHaveText(/^Done/)
  await page.waitForTimeout(800)
  // everything is still there: the top is the first message, nothing to load
  await scroller.evaluate((el) => ((el as unknown as El).scrollTop = 0))
  await page.waitForTimeout(300)
  await expect(log.getByText('Question 1:')).toBeVisible()
  await expect(page.getByText('Scroll up for earlier messages')).toHaveCount(0)
  await expect(page.getByText('Loading earlier messages…')).toHaveCount(0)
  expect(errors).toEqual([])
})
