// The in-place message editor (Edit on a sent message), in Chromium against the in-page FakeBridge: it opens
// tall enough for the whole message as it wraps in a narrow window. Its rows counted only line breaks, so a
// long one-line message showed its first two wrapped lines, the rest cut off below.
import { expect, test } from '@playwright/test'
import { shot } from './shots'

const TEXT = 'Please rewrite the migration plan so that the billing service moves first, then the invoicing jobs, and keep the old cluster running until the end of the month'

test('the message editor shows a long wrapped message whole at 390 px', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 })
  await page.addInitScript(() => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = { tickMs: 5, scripts: [{ steps: [{ kind: 'text', text: 'Sure.' }] }] }
  })
  await page.goto('/')
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(TEXT)
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').filter({ hasText: /^Done/ })).toHaveCount(1, { timeout: 10_000 })
  await log.getByRole('button', { name: 'Edit' }).click()
  const editor = page.getByRole('textbox', { name: 'Edit message' })
  await expect(editor).toBeFocused()
  const fits = await editor.evaluate((el) => {
    const t = el as unknown as { scrollHeight: number; clientHeight: number }
    return { scroll: t.scrollHeight, client: t.clientHeight }
  })
  expect(fits.scroll).toBeLessThanOrEqual(fits.client + 1)
  await shot(page, 'edit-message-height')
})
