// Lists in right-to-left text, in Chromium against the in-page FakeBridge: a list item's marker (bullet,
// number) is drawn outside the item on its start side — the right for Arabic or Hebrew. A reply's chunks
// contain their paint, so the item must leave room for its marker on that side; the indent used to be on the
// left only, and an RTL item's bullet or number was cut off.
import { expect, test } from '@playwright/test'
import { shot } from './shots'

const REPLY = [
  'قائمة:',
  '',
  '- العنصر الأول',
  '- العنصر الثاني',
  '',
  '1. خطوة أولى',
  '2. خطوة ثانية',
  '',
  'Mixed:',
  '',
  '- first item',
  '- عنصر عربي',
].join('\n')

/** each list item: its direction, and the room between it and its list's edge on its start side (px) */
const PROBE = `[...document.querySelectorAll('.msg-assistant .md li')].map((li) => {
  const list = li.parentElement.getBoundingClientRect()
  const item = li.getBoundingClientRect()
  const rtl = getComputedStyle(li).direction === 'rtl'
  return { text: li.textContent, rtl, room: Math.round(rtl ? list.right - item.right : item.left - list.left) }
})`

test('a right-to-left list item keeps room for its marker on the right', async ({ page }) => {
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, { tickMs: 10, chunkChars: 40, scripts: [{ steps: [{ kind: 'text', text: REPLY }] }] })
  await page.goto('/')
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('lists please')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').filter({ hasText: /^Done/ })).toHaveCount(1, { timeout: 10_000 })
  const items = (await page.evaluate(PROBE)) as Array<{ text: string; rtl: boolean; room: number }>
  expect(items).toHaveLength(6)
  expect(items.filter((i) => i.rtl)).toHaveLength(5)
  // every item, either direction, in either kind of list, has its marker's room on its own start side
  for (const i of items) expect(i.room, i.text).toBeGreaterThanOrEqual(16)
  await log.locator('.msg-assistant').last().screenshot({ path: 'test-results/screenshots/rtl-lists.png' })
  await shot(page, 'rtl-lists-page')
})
