// A 420 px wide window (the built renderer against the in-page FakeBridge): the header, the composer and
// the sidebar / inspector overlays stay usable, and a wide markdown table scrolls inside its own wrapper.
import { expect, test, type Locator, type Page } from '@playwright/test'
import { shot } from './shots'

const W = 420
const H = 800
const TABLE = [
  '| Task | Status | Notes |',
  '| --- | --- | --- |',
  `| Build | Done | ${Array.from({ length: 60 }, (_, i) => `detail${i}`).join(' ')} |`,
  '| Deploy | Pending | short |',
].join('\n')

test.use({ viewport: { width: W, height: H } })

async function openApp(page: Page) {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, {
    tickMs: 5,
    chunkChars: 400,
    scripts: [
      { steps: [{ kind: 'text', text: `Here is the table:\n\n${TABLE}\n\nThat is all.` }] },
      // the second message's reply runs until Stop: on a loaded machine a timed stream ended before the click
      { steps: [{ kind: 'text', text: 'Working on a long answer…' }, { kind: 'untilAborted' }] },
    ],
    seed: [
      { key: 'agent:main:main', label: 'A session with a rather long title that cannot fit on one line here' },
      { key: 'agent:main:other', label: 'Other' },
    ],
  })
  await page.goto('/')
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  return errors
}

/** The box lies inside the viewport horizontally (and is not zero-sized). */
async function expectInside(l: Locator) {
  const b = await l.boundingBox()
  expect(b, 'has a box').not.toBeNull()
  expect(b!.width).toBeGreaterThan(0)
  expect(b!.x).toBeGreaterThanOrEqual(0)
  expect(b!.x + b!.width).toBeLessThanOrEqual(W + 0.5)
}

const pageScrollsSideways = (page: Page) =>
  page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
    return d.documentElement.scrollWidth > d.documentElement.clientWidth
  })

test('header and composer fit; sidebar opens as an overlay and closes', async ({ page }) => {
  const errors = await openApp(page)
  const header = page.locator('header.chat-header')
  const title = header.getByRole('heading', { level: 1 })
  await expect(title).toHaveText(/rather long title/)
  // one line: its height is one line-height, and the text is cut with an ellipsis
  const lineHeight = await title.evaluate((e) => parseFloat((globalThis as unknown as { getComputedStyle(e: unknown): { lineHeight: string } }).getComputedStyle(e).lineHeight))
  expect((await title.boundingBox())!.height).toBeLessThanOrEqual(lineHeight + 1)
  await expectInside(title)
  for (const name of ['Show sessions', 'Inspector', 'Settings']) await expectInside(header.getByRole('button', { name }))
  const composer = page.locator('form.composer')
  for (const b of await composer.getByRole('button').all()) await expectInside(b)
  await expectInside(page.getByRole('button', { name: 'Send' }))
  expect(await pageScrollsSideways(page)).toBe(false)
  await shot(page, 'narrow-main')

  // the sidebar is hidden until asked for
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  await expect(nav).toBeHidden()
  await header.getByRole('button', { name: 'Show sessions' }).click()
  await expect(nav).toBeVisible()
  await expectInside(nav.getByRole('button', { name: 'New session' }))
  await shot(page, 'narrow-sidebar')
  await page.keyboard.press('Escape')
  await expect(nav).toBeHidden()
  // click outside (on the backdrop, right of the panel) closes it too
  await header.getByRole('button', { name: 'Show sessions' }).click()
  await expect(nav).toBeVisible()
  await page.mouse.click(W - 10, H / 2)
  await expect(nav).toBeHidden()
  // picking a session closes it and switches
  await header.getByRole('button', { name: 'Show sessions' }).click()
  await nav.getByRole('button', { name: /^Other/ }).click()
  await expect(nav).toBeHidden()
  await expect(title).toHaveText('Other')
  expect(errors).toEqual([])
})

test('while a reply streams, Steer / Queue / Stop stay inside the composer', async ({ page }) => {
  const errors = await openApp(page)
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('first')
  await box.press('Enter')
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('That is all.')).toBeVisible()
  await box.fill('write a long answer')
  await box.press('Enter')
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toBeVisible()
  await box.fill('and then?')
  const composer = page.locator('form.composer')
  for (const name of ['Attach files', 'Steer', 'Queue', 'Stop']) await expectInside(composer.getByRole('button', { name, exact: true }))
  const form = (await composer.locator('.composer-box').boundingBox())!
  for (const b of await composer.locator('.composer-actions').getByRole('button').all()) {
    const r = (await b.boundingBox())!
    expect(r.y + r.height).toBeLessThanOrEqual(form.y + form.height)
  }
  expect(await pageScrollsSideways(page)).toBe(false)
  await shot(page, 'narrow-running')
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toBeHidden()
  expect(errors).toEqual([])
})

test('the inspector is a closable drawer that leaves the app reachable', async ({ page }) => {
  const errors = await openApp(page)
  await page.getByRole('button', { name: 'Inspector' }).click()
  const panel = page.getByRole('complementary', { name: 'Inspector' })
  await expect(panel).toBeVisible()
  await expectInside(panel.getByRole('button', { name: 'Close inspector' }))
  await shot(page, 'narrow-inspector')
  await page.keyboard.press('Escape')
  await expect(panel).toBeHidden()
  await page.getByRole('button', { name: 'Inspector' }).click()
  await expect(panel).toBeVisible()
  // the strip left of the drawer closes it
  const box = (await panel.boundingBox())!
  expect(box.x).toBeGreaterThan(0)
  await page.mouse.click(box.x / 2, H / 2)
  await expect(panel).toBeHidden()
  await page.getByRole('button', { name: 'Inspector' }).click()
  await panel.getByRole('button', { name: 'Close inspector' }).click()
  await expect(panel).toBeHidden()
  // the composer is usable again
  await page.getByRole('textbox', { name: 'Message' }).fill('still here')
  expect(errors).toEqual([])
})

test('Settings fit: its sections are tabs above the content, and no field or button runs out of the dialog', async ({ page }) => {
  const errors = await openApp(page)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await expect(dialog).toBeVisible()
  for (const tab of ['Models', 'Agent', 'Gateway', 'Appearance']) {
    await dialog.getByRole('button', { name: tab, exact: true }).click()
    // every visible control lies inside the dialog's box (the content column was ~130 px wide, clipped)
    const outside = await dialog.evaluate((d) => {
      type Box = { left: number; right: number; width: number }
      type El = { getBoundingClientRect(): Box; outerHTML: string }
      const r = (d as unknown as El).getBoundingClientRect()
      const all = (d as unknown as { querySelectorAll(s: string): Iterable<El> }).querySelectorAll('button, input, select, textarea, .badge')
      return [...all]
        .filter((e) => {
          const b = e.getBoundingClientRect()
          return b.width > 0 && (b.right > r.right + 0.5 || b.left < r.left - 0.5)
        })
        .map((e) => e.outerHTML.slice(0, 100))
    })
    expect(outside, tab).toEqual([])
    // the tabs stay a short row, not stretched over the dialog's height
    const nav = (await dialog.getByRole('button', { name: 'Models', exact: true }).boundingBox())!
    expect(nav.height, tab).toBeLessThan(48)
  }
  await shot(page, 'narrow-settings')
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  expect(errors).toEqual([])
})

test('a wide markdown table scrolls inside its wrapper, not the page', async ({ page }) => {
  const errors = await openApp(page)
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('show me a table')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('That is all.')).toBeVisible()
  const wrap = log.locator('.md-table-wrap')
  await expect(wrap).toHaveCount(1)
  const dims = await wrap.evaluate((e) => ({ scrollWidth: (e as HTMLElementLike).scrollWidth, clientWidth: (e as HTMLElementLike).clientWidth }))
  expect(dims.scrollWidth).toBeGreaterThan(dims.clientWidth)
  await expectInside(wrap)
  expect(await pageScrollsSideways(page)).toBe(false)
  // short cells stay on one line; the long one wraps at word boundaries within a max width
  for (const t of ['Build', 'Done', 'Pending', 'Deploy', 'short']) expect(await lines(wrap.getByRole('cell', { name: t, exact: true })), t).toEqual({ lines: 1, broken: 0 })
  const long = wrap.getByRole('cell', { name: /detail0 / })
  const wrapped = await lines(long)
  expect(wrapped.lines).toBeGreaterThan(3)
  expect(wrapped.broken).toBe(0)
  expect((await long.boundingBox())!.width).toBeLessThan(600)
  await wrap.evaluate((e) => ((e as HTMLElementLike).scrollLeft = 10_000))
  await shot(page, 'narrow-table')
  expect(errors).toEqual([])
})

test.describe('a wide window', () => {
  test.use({ viewport: { width: 1280, height: 800 } })
  test('the same table fits without scrolling; the overlay controls are not shown', async ({ page }) => {
    const errors = await openApp(page)
    await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Show sessions' })).toBeHidden()
    await expect(page.getByRole('button', { name: 'Inspector' })).toHaveText('Inspector')
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('show me a table')
    await box.press('Enter')
    const wrap = page.getByRole('log', { name: 'Conversation' }).locator('.md-table-wrap')
    await expect(wrap.getByRole('cell', { name: 'Pending' })).toBeVisible()
    const dims = await wrap.evaluate((e) => ({ scrollWidth: (e as HTMLElementLike).scrollWidth, clientWidth: (e as HTMLElementLike).clientWidth }))
    expect(dims.scrollWidth).toBeLessThanOrEqual(dims.clientWidth)
    expect((await lines(wrap.getByRole('cell', { name: /detail0 / }))).broken).toBe(0)
    await page.getByRole('button', { name: 'Inspector' }).click()
    await expect(page.getByRole('complementary', { name: 'Inspector' })).toBeVisible()
    await expect(page.locator('.inspector-backdrop')).toBeHidden() // a column here, not a drawer
    await shot(page, 'wide-table')
    expect(errors).toEqual([])
  })
})

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json). */
interface HTMLElementLike {
  scrollWidth: number
  clientWidth: number
  scrollLeft: number
}

/** How many lines an element's text takes, and how many of its words are split across lines. */
function lines(l: Locator): Promise<{ lines: number; broken: number }> {
  return l.evaluate((el) => {
    type Rects = { getClientRects(): ArrayLike<{ top: number; width: number }> }
    const doc = (globalThis as unknown as { document: { createRange(): Rects & { setStart(n: unknown, o: number): void; setEnd(n: unknown, o: number): void }; createTreeWalker(root: unknown, what: number): { nextNode(): { textContent: string } | null } } }).document
    const tops = (r: Rects) => new Set(Array.from(r.getClientRects()).filter((x) => x.width > 0).map((x) => Math.round(x.top)))
    const lineTops = new Set<number>()
    let broken = 0
    const walker = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.textContent.matchAll(/\S+/g)) {
        const r = doc.createRange()
        r.setStart(n, m.index)
        r.setEnd(n, m.index + m[0].length)
        const t = tops(r)
        if (t.size > 1) broken++
        for (const top of t) lineTops.add(top)
      }
    }
    return { lines: lineTops.size, broken }
  })
}
