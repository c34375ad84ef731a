// Settings → Agent's field for a new allowlist entry, in Chromium against the in-page FakeBridge: styled as the
// dialog's other fields, and inside its card at a phone's width (it kept the browser's default look and width,
// and stuck out of the card's left edge in a narrow window).
import { expect, test } from '@playwright/test'
import { shot } from './shots'

for (const width of [1280, 390]) {
  test(`the allowlist's "Command to allow" field fits its card and looks like the other fields at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    await page.addInitScript(() => {
      ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = {}
    })
    await page.goto('/')
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
    await page.keyboard.press('Control+,')
    const dialog = page.getByRole('dialog', { name: 'Settings' })
    await dialog.getByRole('button', { name: 'Agent', exact: true }).click()
    const card = dialog.getByRole('group', { name: 'Commands that run without asking' })
    const field = card.getByRole('textbox', { name: 'Command to allow' })
    await expect(field).toBeVisible()
    const c = (await card.boundingBox())!
    const f = (await field.boundingBox())!
    expect(f.x).toBeGreaterThanOrEqual(c.x)
    expect(f.x + f.width).toBeLessThanOrEqual(c.x + c.width)
    // Add and Save stay in the card too
    const save = (await card.getByRole('button', { name: 'Save the allowlist' }).boundingBox())!
    expect(save.x + save.width).toBeLessThanOrEqual(c.x + c.width)
    // the same height and corners as the Run timeout field above it
    const timeout = dialog.getByRole('textbox', { name: /Run timeout/ }).or(dialog.getByRole('spinbutton', { name: /Run timeout/ }))
    expect(Math.round(f.height)).toBe(Math.round((await timeout.boundingBox())!.height))
    await expect(field).toHaveCSS('border-top-left-radius', await timeout.evaluate((el) => (el as unknown as { ownerDocument: { defaultView: { getComputedStyle(e: unknown): { borderTopLeftRadius: string } } } }).ownerDocument.defaultView.getComputedStyle(el).borderTopLeftRadius))
    await shot(page, `settings-allowlist-field-${width}`)
  })
}
