// Browser mode against the real gateway: a message over the size limit chat.send checks is caught by the
// composer — the count and the reason show, Send is disabled, Enter sends nothing and the text stays; a send
// the gateway refuses (answered in the page's WebSocket route) puts the text back, said in plain words, with
// Retry only when a retry could work.
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
  await newSession(page)

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

/** Answers the page's first chat.send with `error` instead of passing it to the gateway; the rest goes through. */
/**
 * A new session, selected: text typed while the switch is still on its way lands in the old session's draft (the
 * composer shows each session's own), and the new one's Enter then sends nothing (flaked on a loaded machine).
 */
async function newSession(page: Page) {
  const selected = page.locator('li.session.selected')
  const before = (await selected.count()) > 0 ? await selected.getAttribute('data-key') : null
  await page.getByRole('button', { name: 'New session' }).click()
  if (before) await expect(selected).not.toHaveAttribute('data-key', before)
  else await expect(selected).toHaveCount(1)
}

async function refuseFirstSend(page: Page, error: { code: string; message: string }) {
  let refused = false
  await page.routeWebSocket(/.*/, (ws) => {
    const server = ws.connectToServer()
    ws.onMessage((msg) => {
      const text = typeof msg === 'string' ? msg : msg.toString('utf8')
      const frame = JSON.parse(text) as { type?: string; id?: string; method?: string }
      if (!refused && frame.type === 'req' && frame.method === 'chat.send') {
        refused = true
        ws.send(JSON.stringify({ type: 'res', id: frame.id, ok: false, error }))
        return
      }
      server.send(msg)
    })
  })
}

test('a send the gateway refuses as invalid: plain words, the text back in the composer (kept over a reload), no Retry', async ({ page }) => {
  await refuseFirstSend(page, { code: 'INVALID_REQUEST', message: 'invalid chat.send params: /message: must not have more than 1000000 characters' })
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  await newSession(page)
  const log = page.getByRole('log', { name: 'Conversation' })
  await box.fill('refused one')
  await box.press('Enter')
  const alert = log.getByRole('alert')
  await expect(alert).toHaveText(/^Not sent: The message is too long: the limit is 1,000,000 characters\./)
  await expect(alert).toContainText('The message is back in the composer.')
  await expect(log.getByRole('button', { name: 'Retry', exact: true })).toHaveCount(0)
  await expect(box).toHaveValue('refused one')
  await page.reload()
  await expect(box).toHaveValue('refused one')
})

test('a send lost on the way: Retry sends it once, the "Not sent" row goes and the restored draft with it', async ({ page }) => {
  await refuseFirstSend(page, { code: 'UNAVAILABLE', message: 'not connected to the gateway' })
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible()
  await newSession(page)
  const log = page.getByRole('log', { name: 'Conversation' })
  await box.fill('try me again')
  await box.press('Enter')
  await expect(log.getByRole('alert')).toHaveText(/^Not sent: The connection to the gateway was lost\./)
  await expect(box).toHaveValue('try me again')
  await log.getByRole('button', { name: 'Retry', exact: true }).click()
  await expect(log.getByText('Short answer.')).toBeVisible()
  await expect(log.getByRole('alert')).toHaveCount(0)
  await expect(log.getByText('try me again', { exact: true })).toHaveCount(1)
  await expect(box).toHaveValue('')
})
