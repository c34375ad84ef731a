// Find with a reply longer than what find reads (50,000 characters: a 5,000-line file), in Chromium against the
// in-page FakeBridge: a line on screen past that point is not found, and the status says where find looked —
// at 600 px too, where that longer status once pushed the find field off the window's left edge.
import { expect, test } from '@playwright/test'
import { openFakeApp, sendMessage } from './fake-app'
import { shot } from './shots'

const file = '```ts\n' + Array.from({ length: 5000 }, (_, i) => `const line${i} = ${i} // needle${i}`).join('\n') + '\n```\n'

for (const width of [1280, 600]) {
  test(`a line past the first 50,000 characters: the status says where find looked, the bar stays on screen at ${width} px`, async ({ page }) => {
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.setViewportSize({ width, height: 800 })
    await openFakeApp(page, { tickMs: 10, chunkChars: 20_000, scripts: [{ steps: [{ kind: 'text', text: file }] }] })
    await sendMessage(page, 'print the file')
    const log = page.getByRole('log', { name: 'Conversation' })
    await expect(log.getByRole('status').last()).toHaveText(/^Done/, { timeout: 20_000 })
    await expect(log.getByText('const line4999 = 4999 // needle4999')).toBeVisible()
    await page.getByRole('textbox', { name: 'Message' }).focus()
    await page.keyboard.press('Control+f')
    const bar = page.getByRole('search', { name: 'Find in conversation' })
    const field = bar.getByRole('searchbox', { name: 'Find in conversation' })
    await expect(field).toBeFocused()
    await field.fill('needle4321')
    await expect(bar.getByRole('status')).toHaveText('No matches in the first 50,000 characters of each message')
    // the whole bar, its field first, inside the window
    const barBox = (await bar.boundingBox())!
    const fieldBox = (await field.boundingBox())!
    expect(fieldBox.x).toBeGreaterThanOrEqual(0)
    expect(fieldBox.width).toBeGreaterThanOrEqual(80)
    expect(barBox.x).toBeGreaterThanOrEqual(0)
    expect(barBox.x + barBox.width).toBeLessThanOrEqual(width)
    await shot(page, `find-long-message-${width}`)
    // a line inside what find reads is found
    await field.fill('needle12')
    await expect(bar.getByRole('status')).toHaveText(/^\d+ of \d+$/)
    expect(errors).toEqual([])
  })
}
