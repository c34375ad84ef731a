// Browser mode against the real gateway: a message over the size limit chat.send checks is caught by the
// composer — the count and the reason show, Send is disabled, Enter sends nothing and the text stays.
import { expect, test, type Page } from '@playwright/test'
import { MAX_MESSAGE_CHARS } from '../src/shared/message-limit'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-composer-limit-token-0123456789'
const env = useBrowserGateway(TOKEN, { text: 'Short answer.', chunks: 1 })

/** chat.send requests the page puts on the WebSocket */
function watchSends(page: Page): string[] {
  const sent: string[] = []
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      const text = typeof f.payload === 'string' ? f.payload : f.payload.toString('utf8')
      if (text.includes('"method":"chat.send"')) sent.push(text.slice(0, 200))
    }),
  )
  return sent
}

test('over the limit: the count and the reason show, Send is disabled, Enter sends nothing; back under it, it sends', async ({ page }) => {
  const sent = watchSends(page)
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  await page.getByRole('button', { name: 'New session' }).click()

  await box.fill('z'.repeat(MAX_MESSAGE_CHARS + 500))
  const send = page.getByRole('button', { name: 'Send', exact: true })
  await expect(send).toBeDisabled()
  const reason = 'The message is too long: 500 characters over the limit of 1,000,000. Shorten it or split it into several messages.'
  await expect(send).toHaveAccessibleDescription(reason)
  await expect(page.getByText(reason)).toBeVisible()
  await expect(page.getByLabel('1,000,500 of 1,000,000 characters')).toBeVisible()
  await box.press('Enter')
  await page.waitForTimeout(1000)
  expect(sent).toEqual([])
  expect((await box.inputValue()).length).toBe(MAX_MESSAGE_CHARS + 500)
  await expect(page.getByRole('log', { name: 'Conversation' }).getByRole('alert')).toHaveCount(0)

  await box.fill('a short question')
  await expect(page.getByLabel(/of 1,000,000 characters$/)).toHaveCount(0)
  await box.press('Enter')
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Short answer.')).toBeVisible()
  expect(sent).toHaveLength(1)
})
