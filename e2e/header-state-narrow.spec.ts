// The header's line under the title (model · tokens · state) in a narrow window, in Chromium against the in-page
// FakeBridge: the session's state — "Needs approval" most of all — stays whole; the model's name gives way.
// The line used to be cut off at its end, which is where the state is.
import { expect, test } from '@playwright/test'
import { shot } from './shots'

for (const width of [390, 340]) {
  test(`"Needs approval" stays whole in the header at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    await page.addInitScript((o) => {
      ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
    }, {
      tickMs: 25,
      scripts: [{ steps: [{ kind: 'tool', name: 'exec', args: { command: 'make deploy' }, result: { content: [{ type: 'text', text: 'ok' }] }, approval: true, durationMs: 50 }] }],
    })
    await page.goto('/')
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('deploy it')
    await box.press('Enter')
    const header = page.locator('.chat-header')
    const state = header.locator('.session-state')
    await expect(state).toHaveText('Needs approval')
    const line = (await header.locator('.chat-title').boundingBox())!
    const s = (await state.boundingBox())!
    // inside the title column's box (whose overflow is cut off), not past its end
    expect(s.x + s.width).toBeLessThanOrEqual(line.x + line.width + 0.5)
    expect(s.width).toBeGreaterThan(40)
    // the model picker is still there to click, shortened
    await expect(page.getByRole('button', { name: /^Model: / })).toBeVisible()
    await shot(page, `header-state-narrow-${width}`)
  })
}
