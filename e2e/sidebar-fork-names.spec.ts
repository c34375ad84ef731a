// Forks of a long-named session in the sidebar, in Chromium against the in-page FakeBridge: each row still shows
// its "(fork)" / "(fork 2)" ending where the name is cut off, so the original and its forks read apart.
import { expect, test } from '@playwright/test'
import { shot } from './shots'

const LONG = 'Plan the migration of the billing service to the new cluster'
const NAMES = [LONG, `${LONG} (fork)`, `${LONG} (fork 2)`]

/**
 * Where `needle` ends on screen in each row's name, and where the name's box ends (its overflow is hidden).
 * A string, not a function: e2e/ is type-checked without the DOM lib.
 */
const probe = (needle: string) => `[...document.querySelectorAll('nav li[data-key] .session-title')].map((el) => {
  const box = el.getBoundingClientRect()
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
  let text = ''
  for (let n = walker.nextNode(); n; n = walker.nextNode()) text += n.textContent
  const at = text.lastIndexOf(${JSON.stringify(needle)})
  if (at < 0) return { title: el.getAttribute('title'), found: false }
  // the range over the needle, across text nodes
  const range = document.createRange()
  let seen = 0, started = false
  const end = at + ${needle.length}
  const w2 = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
  for (let n = w2.nextNode(); n; n = w2.nextNode()) {
    const len = n.textContent.length
    if (!started && at < seen + len) { range.setStart(n, at - seen); started = true }
    if (started && end <= seen + len) { range.setEnd(n, end - seen); break }
    seen += len
  }
  const r = range.getBoundingClientRect()
  return { title: el.getAttribute('title'), found: true, needleRight: Math.round(r.right), boxRight: Math.round(box.right) }
})`

for (const width of [1280, 390]) {
  test(`a long name's "(fork)" ending stays in view in its sidebar row at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    await page.addInitScript((o) => {
      ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
    }, { seed: NAMES.map((label, i) => ({ key: `agent:main:s${i}`, label })) })
    await page.goto('/')
    const nav = page.getByRole('navigation', { name: 'Sessions' })
    // narrow: the sidebar is a drawer behind the menu button
    if (width < 700) await page.getByRole('button', { name: 'Show sessions' }).click()
    await expect(nav.locator('li[data-key]')).toHaveCount(3)
    await expect(nav).toBeVisible()
    const rows = (await page.evaluate(probe(')'))) as Array<{ title: string; found: boolean; needleRight?: number; boxRight?: number }>
    const forks = rows.filter((r) => /\(fork( \d+)?\)$/.test(r.title))
    expect(forks).toHaveLength(2)
    // the names are cut off (the test is about long names)…
    const full = (await page.evaluate(probe(LONG.slice(-8)))) as Array<{ needleRight?: number; boxRight?: number }>
    for (const r of full) expect(r.needleRight!).toBeGreaterThan(r.boxRight!)
    // …and each fork's closing ")" is inside its row's name box
    for (const r of forks) expect(r.needleRight!).toBeLessThanOrEqual(r.boxRight!)
    await shot(page, `sidebar-fork-names-${width}`)
  })
}
