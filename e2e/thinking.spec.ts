// Browser mode against the real stack: while the scripted model sends reasoning (reasoning level off, the
// default), the run footer reads "Thinking…" and none of the reasoning shows; the reply then ends the run.
import { expect, test } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-thinking-token-0123456789abcdef'
// ~3 s of reasoning (30 frames, 100 ms apart) before the first word
const reasoning = Array.from({ length: 30 }, (_, i) => `step ${i} of weighing the private plan. `)

const env = useBrowserGateway(TOKEN, { reasoning, text: 'The answer is 42.', delayMs: 100 })

test('a thinking model: the footer says "Thinking…" until the reply starts, without the reasoning text', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  await box.fill('what is the answer?')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  const footer = log.getByRole('status').last()
  await expect(footer).toHaveText(/^Thinking…/, { timeout: 10_000 })
  await expect(log).not.toContainText('private plan')
  await expect(log.getByText('The answer is 42.')).toBeVisible({ timeout: 20_000 })
  await expect(footer).toHaveText(/^Done/, { timeout: 20_000 })
  expect(errors).toEqual([])
})
