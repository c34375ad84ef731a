// Device pairing in browser mode, against the real gateway: a browser the gateway sees as remote (it comes
// through a reverse proxy that sets X-Forwarded-For) waits for approval and names its request; a paired page
// on this machine shows the request as a prompt and approves it; the waiting browser then comes in by
// itself. Another request is rejected from the prompt: that browser says so and stops asking, and its request
// does not come back.
import type { Server } from 'node:http'
import { expect, test } from '@playwright/test'
import { shot } from './shots'
import { useBrowserGateway } from './browser-gateway'
import { startProxy } from './forwarding-proxy'

const TOKEN = 'e2e-pairing-token-0123456789abcdef'

const env = useBrowserGateway(TOKEN, { text: 'Hello from the model.', chunks: 2 })

const proxies: Server[] = []
test.afterAll(async () => {
  for (const p of proxies) {
    p.closeAllConnections()
    await new Promise((r) => p.close(r))
  }
})

test('a remote browser waits for approval; the prompt in a paired page approves it and it connects', async ({ page, browser }) => {
  test.setTimeout(90_000)
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible({ timeout: 15_000 })
  await expect(page.getByRole('region', { name: 'Device pairing requests' })).toHaveCount(0)

  // another browser (its own storage, so its own device key) whose connections come through a proxy
  const proxy = await startProxy(env.origin, '203.0.113.50')
  proxies.push(proxy.server)
  const remoteContext = await browser.newContext()
  const remote = await remoteContext.newPage()
  remote.on('pageerror', (e) => errors.push(e.message))
  await remote.goto(`${proxy.origin}/#token=${TOKEN}`)
  const waiting = remote.getByRole('main', { name: 'This browser is waiting for approval' })
  await expect(waiting).toBeVisible({ timeout: 15_000 })
  const command = await remote.locator('.pairing-command').textContent()
  expect(command).toMatch(/^loopdesk devices approve [0-9a-f-]{36}$/)
  const requestId = command!.split(' ').pop()!
  await expect(waiting).toContainText(`Approve request ${requestId} in the Loopdesk desktop window`)
  await expect(remote.getByRole('status')).toContainText(/Not approved yet|Checking/)
  const deviceShort = /This browser is device ([0-9a-f]{12})…/.exec((await waiting.textContent()) ?? '')?.[1]
  expect(deviceShort).toBeTruthy()

  // the paired page on this machine is told at once
  const prompt = page.getByRole('region', { name: 'Device pairing requests' })
  await expect(prompt).toBeVisible({ timeout: 10_000 })
  const card = prompt.getByRole('group', { name: 'A device asks to connect: openclaw-control-ui' })
  // the device as the waiting page names itself (the address is the proxy's: the gateway records the socket's)
  await expect(card).toContainText(`${deviceShort}…`)
  await expect(card).toContainText(requestId)
  await expect(card).toContainText('operator.admin')
  // someone in another app sees it in the window (tab) title
  await expect(page).toHaveTitle('(1) Pairing request — Loopdesk')
  await shot(page, 'pairing-prompt')
  await shot(remote, 'pairing-wait')

  // keyboard: Tab to Approve, Enter
  const approve = card.getByRole('button', { name: /^Approve openclaw-control-ui/ })
  await approve.focus()
  await page.keyboard.press('Enter')
  await expect(prompt).toHaveCount(0, { timeout: 10_000 })
  await expect(page.getByText(/^Paired openclaw-control-ui \([0-9a-f]{12}…\): it connects on its next try\.$/)).toBeVisible()

  // the waiting browser asks again on its own and gets in
  await expect(remote.getByRole('textbox', { name: 'Message' })).toBeVisible({ timeout: 20_000 })
  await expect(waiting).toHaveCount(0)

  // a third browser is rejected from the prompt: its card goes, and it keeps waiting (not let in)
  const otherProxy = await startProxy(env.origin, '203.0.113.51')
  proxies.push(otherProxy.server)
  const otherContext = await browser.newContext()
  const other = await otherContext.newPage()
  await other.goto(`${otherProxy.origin}/#token=${TOKEN}`)
  const otherWaiting = other.getByRole('main', { name: 'This browser is waiting for approval' })
  await expect(otherWaiting).toBeVisible({ timeout: 15_000 })
  const otherShort = /This browser is device ([0-9a-f]{12})…/.exec((await otherWaiting.textContent()) ?? '')?.[1]
  expect(otherShort).toBeTruthy()
  const otherCard = prompt.getByRole('group').filter({ hasText: `${otherShort}…` })
  await expect(otherCard).toBeVisible({ timeout: 10_000 })
  // the approved remote page (an admin page too) sees the same request
  await expect(remote.getByRole('region', { name: 'Device pairing requests' }).getByText(`${otherShort}…`)).toBeVisible({ timeout: 10_000 })
  await otherCard.getByRole('button', { name: /^Reject / }).click()
  await expect(page.getByText(`Rejected openclaw-control-ui (${otherShort}…).`)).toBeVisible()
  await expect(remote.getByRole('region', { name: 'Device pairing requests' }).getByText(`${otherShort}…`)).toHaveCount(0)
  await expect(other.getByRole('textbox', { name: 'Message' })).toHaveCount(0)
  // its next try is refused as rejected: it says so and stops asking, and no new request comes back
  const rejected = other.getByRole('main', { name: 'Pairing was rejected' })
  await expect(rejected).toBeVisible({ timeout: 15_000 })
  await expect(rejected.getByRole('status')).toHaveText('You can ask again in 10 min.')
  await expect(rejected.getByRole('button')).toHaveCount(0)
  await shot(other, 'pairing-rejected')
  await other.waitForTimeout(6000) // longer than the page's 4 s between tries
  await expect(prompt).toHaveCount(0)
  await expect(page).toHaveTitle('Loopdesk')
  await expect(rejected).toBeVisible()
  // the paired page lists it as recently rejected and can let it ask again now
  const recent = page.getByRole('list', { name: 'Recently rejected devices' })
  await expect(recent.getByText(`${otherShort}`, { exact: false })).toBeVisible()
  await shot(page, 'pairing-recently-rejected')
  await recent.getByRole('button', { name: /^Allow .* to ask again$/ }).click()
  await expect(recent).toHaveCount(0)

  expect(errors).toEqual([])
  await remoteContext.close()
  await otherContext.close()
})
