// Browser mode against the real gateway: a reply longer than the 128 KiB chat.history puts a placeholder in
// for (OpenClaw's "[chat.history omitted: message too large]") is shown whole again after a reload — the
// window's own history requests ask for whole messages, as an export does.
import { expect, test } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-long-reply-token-0123456789abcdef'
const LINES = 6000 // "Line 1 of the long reply." … ≈ 170 KB of text
const text = Array.from({ length: LINES }, (_, i) => `Line ${i + 1} of the long reply.`).join('\n\n')

const env = useBrowserGateway(TOKEN, { text, chunks: 40 })

test('a reply over 128 KiB is still whole after a reload, not the history placeholder', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  await box.fill('write something very long')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/, { timeout: 20_000 })
  await expect(log.getByText(`Line ${LINES} of the long reply.`)).toBeVisible()

  await page.reload()
  await expect(box).toBeVisible()
  await expect(log.getByText(`Line ${LINES} of the long reply.`)).toBeVisible()
  // the list is virtualized and opens at the bottom: the question far above is rendered once scrolled to
  await page.locator('.conversation-scroll').evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 0))
  await expect(log.getByText('write something very long')).toBeVisible()
  await expect(log.getByText(/chat\.history omitted/)).toHaveCount(0)
  expect(errors).toEqual([])
})
