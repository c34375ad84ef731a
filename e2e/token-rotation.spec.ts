// Browser mode after the gateway's shared token was rotated: the page keeps working through the device
// token the gateway issued to its (stored) device key — also after a reload, when the `#token=` it kept
// is stale — and a page with nothing valid left (a stale link, or no token at all) says to open the
// current link instead of spinning.
import { expect, test } from '@playwright/test'
import { shot } from './shots'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-rotation-token-0123456789abcdef'
const NEW_TOKEN = 'e2e-rotation-token-NEW-9876543210fedcba'

const env = useBrowserGateway(TOKEN, { text: 'Still here.', chunks: 2 })

test('after the token is rotated a reload reconnects with the device token; a stale link says to open the new one', async ({ page, browser }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const message = page.getByRole('textbox', { name: 'Message' })
  await expect(message).toBeVisible()

  env.gw.setToken(NEW_TOKEN) // e.g. `loopdesk gateway rotate-token` or another window's Settings
  // the live page is closed by the gateway and gets back in with its device token
  await expect.poll(() => env.gw.connectionCount(), { timeout: 10_000 }).toBeGreaterThan(0)
  await expect(page.getByRole('alert')).toHaveCount(0)

  // a reload still holds the old #token in its storage: the stored device key + token get it in
  // (mark this document: the checks below must see the reloaded one, not this one before it unloads)
  await page.evaluate(() => ((globalThis as { __before?: boolean }).__before = true))
  await page.reload()
  await expect.poll(() => page.evaluate(() => !!(globalThis as { __before?: boolean }).__before), { timeout: 15_000 }).toBe(false)
  await expect(message).toBeVisible({ timeout: 15_000 })
  await expect(page.getByRole('heading', { name: 'The gateway token changed' })).toHaveCount(0)
  await message.fill('are you there?')
  await message.press('Enter')
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Still here.')).toBeVisible({ timeout: 15_000 })
  expect(errors).toEqual([])

  // a new tab with the old link has no device token: a clear screen, not an endless spinner
  const fresh = await browser.newPage()
  await fresh.goto(`${env.origin}/#token=${TOKEN}`)
  const screen = fresh.getByRole('alert', { name: 'This link’s gateway token is not valid' })
  await expect(screen).toBeVisible({ timeout: 15_000 })
  await expect(screen).toContainText('loopdesk dashboard')
  await shot(fresh, 'token-changed')
  // a tab opened without any token says that, not that a token changed
  const bare = await browser.newPage()
  await bare.goto(`${env.origin}/`)
  await expect(bare.getByRole('alert', { name: 'This page needs the gateway token' })).toBeVisible({ timeout: 15_000 })
  await bare.close()
  // the new link works
  await fresh.goto('about:blank')
  await fresh.goto(`${env.origin}/#token=${NEW_TOKEN}`)
  await expect(fresh.getByRole('textbox', { name: 'Message' })).toBeVisible({ timeout: 15_000 })
  await fresh.close()
})
