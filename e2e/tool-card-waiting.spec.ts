// A tool card waiting for approval, in Chromium against the in-page FakeBridge: its header row spans the card
// like any other card's (status badge and clock at the right edge, nothing cut off at a phone's width). The card's
// tone class `tool-approval` once also matched the approval note's own style (a padded, small-text flex row),
// which shrank the header and pushed the badge out of the card.
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'

async function waitingCard(page: Page) {
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, {
    tickMs: 25,
    scripts: [{ steps: [{ kind: 'tool', name: 'exec', args: { command: 'echo hi && rm -rf build/output/directory' }, result: { content: [{ type: 'text', text: 'ok' }] }, approval: true, durationMs: 50 }] }],
  })
  await page.goto('/')
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('clean up')
  await box.press('Enter')
  const card = page.getByRole('group', { name: 'Tool exec' })
  await expect(card.getByText('Waiting for approval')).toBeVisible()
  return card
}

/** left/right edges, rounded */
const edges = async (el: ReturnType<Page['locator']>) => {
  const b = (await el.boundingBox())!
  return { left: Math.round(b.x), right: Math.round(b.x + b.width) }
}

for (const width of [1280, 390]) {
  test(`a card waiting for approval keeps the one-row header of any card at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    const card = await waitingCard(page)
    const c = await edges(card)
    const head = await edges(card.locator('.tool-head'))
    // the header button fills the card (1 px border each side), not indented nor wider than it
    expect(head.left - c.left).toBeLessThanOrEqual(1)
    expect(c.right - head.right).toBeLessThanOrEqual(1)
    // the badge and the clock sit inside the card, at its right edge
    const badge = await edges(card.locator('.badge'))
    const clock = await edges(card.locator('.tool-duration'))
    expect(badge.right).toBeLessThan(clock.left)
    expect(clock.right).toBeLessThanOrEqual(c.right - 12)
    expect(c.right - clock.right).toBeLessThanOrEqual(14)
    // the card's text keeps its size: the tool name is not the note's 12 px
    await expect(card.locator('.tool-name')).toHaveCSS('font-size', '13px')
    await shot(page, `tool-card-waiting-${width}`)
  })
}
