// A long plain code block (drawn in line groups the browser skips off-screen: markdown/code-lines.ts) holding a
// line wider than the block: the block scrolls sideways to the line's end, as a short block does, and the line
// is drawn there — a group's content-visibility clips its paint at its box, which cut such a line off.
import { expect, test } from '@playwright/test'
import { openFakeApp, sendMessage } from './fake-app'

const LINES = 600
const WIDE_AT = 5
const code = Array.from({ length: LINES }, (_, i) =>
  i === WIDE_AT ? `const wide = '${'x'.repeat(400)}END'` : `const value${i} = compute(${i}) // c${i}`,
).join('\n')
// no language: a plain block (a highlighted one is not grouped)
const reply = `Intro.\n\n\`\`\`\n${code}\n\`\`\`\n\nEnd of the reply.`

test('a line wider than a long plain code block is reached by scrolling the block sideways', async ({
  page,
}) => {
  test.setTimeout(120_000)
  await openFakeApp(page, { tickMs: 5, chunkChars: 6000, scripts: [{ steps: [{ kind: 'text', text: reply }] }] })
  await sendMessage(page, 'show me the file')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/, { timeout: 60_000 })
  await page
    .locator('.conversation-scroll')
    .evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 0))
  const pre = log.locator('.code-block pre').first()
  await expect(pre.locator('.code-lines').first()).toBeVisible()
  // (e2e/ has no DOM lib: in-page code as text) where the wide line's END is once the block is scrolled to its right edge
  // — retried until the conversation has settled (a row measured late moved the line under the probe once, on CI)
  await expect(async () => {
    const seen = (await page.evaluate(`(() => {
    const pre = document.querySelector('.code-block pre')
    pre.scrollLeft = pre.scrollWidth
    const group = pre.querySelector('.code-lines')
    const text = group.firstChild
    const at = text.nodeValue.indexOf('END')
    const r = document.createRange()
    r.setStart(text, at)
    r.setEnd(text, at + 3)
    const end = r.getBoundingClientRect()
    const box = pre.getBoundingClientRect()
    const hit = document.elementFromPoint(end.x + end.width / 2, end.y + end.height / 2)
    return { scrolls: pre.scrollWidth > pre.clientWidth, inside: end.left >= box.left && end.right <= box.right, hit: hit === group }
  })()`)) as { scrolls: boolean; inside: boolean; hit: boolean }
    expect(seen).toEqual({ scrolls: true, inside: true, hit: true })
  }).toPass({ timeout: 15_000 })
  // groups still span the block: a short line's group is no narrower than the block
  const narrow = (await page.evaluate(
    `(() => {
      const pre = document.querySelector('.code-block pre')
      const cs = getComputedStyle(pre)
      const content = pre.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
      return [...pre.querySelectorAll('.code-lines')].some((g) => g.getBoundingClientRect().width < content - 1)
    })()`,
  )) as boolean
  expect(narrow).toBe(false)
})
