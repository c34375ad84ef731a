// Browser mode against a real headless gateway process that is killed (SIGKILL) mid-reply and restarted on the
// same port and state dir: the page reconnects, and what it had shown of the reply stays, closed as
// "Interrupted" with Retry (not replaced by "answered before… · 0 ms"); a follow-up paused by Stop stays paused;
// while it is down the composer's controls are disabled with the reason and the run's footer says so.
import { existsSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startModelServer, type ModelServer } from '../test/fixtures/model-server'
import { startGatewayChild, type GatewayChild } from '../test/faults/support/gateway-process'
import { LogSink } from '../test/faults/support/logs'
import { newApiKey, newToken, suiteConfig, tempStateDir, writeConfig } from '../test/faults/support/setup'

test.skip(!existsSync(join(process.cwd(), 'out', 'renderer', 'index.html')), 'the renderer is not built: run `npx electron-vite build`')
// the sources through tsx: a browser spec does not build the faults suite's CLI bundle
process.env.LOOPDESK_FAULTS_TSX ??= '1'

const TOKEN = newToken()
const logs = new LogSink()
let model: ModelServer
let stateDir: string
let gw: GatewayChild | undefined

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

test.beforeAll(async () => {
  model = await startModelServer({ fallback: { text: 'Fallback.', chunks: 2 } })
  stateDir = tempStateDir('crash-keep')
  writeConfig(stateDir, suiteConfig(model, { apiKey: newApiKey() }))
})
test.afterAll(async () => {
  if (gw?.alive()) await gw.stop()
  await model?.close()
  if (stateDir) rmSync(stateDir, { recursive: true, force: true })
})

test('a reply cut off by a gateway crash stays on screen after the restart, Interrupted with Retry', async ({ page }) => {
  test.setTimeout(120_000)
  const port = await freePort()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep', port })
  await page.goto(`http://127.0.0.1:${port}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible({ timeout: 30_000 })
  const log = page.getByRole('log', { name: 'Conversation' })

  const words = Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(2, '0')}`)
  model.push({ text: words.join(' '), chunks: 60, delayMs: 150 })
  await box.fill('tell me a long story')
  await box.press('Enter')
  await expect(log.getByText(/w10/)).toBeVisible({ timeout: 30_000 })
  // the event log (what recovery rebuilds the reply from) is appended about once a second
  await page.waitForTimeout(1500)
  await gw.kill9()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-2', port })

  const status = log.getByRole('status').last()
  await expect(status).toHaveText(/^Interrupted: Loopdesk stopped while this reply was being written\. · [\d.]+ s/, { timeout: 30_000 })
  await expect(status).not.toHaveText(/0 ms/)
  await expect(log.getByText(/w00 w01 .*w10/)).toBeVisible()
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible()
})

test('while the gateway is down mid-reply the composer says so: controls disabled with the reason, no timer, the draft kept', async ({ page }) => {
  test.setTimeout(120_000)
  if (gw?.alive()) await gw.stop()
  const port = await freePort()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-down', port })
  await page.goto(`http://127.0.0.1:${port}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible({ timeout: 30_000 })
  await page.getByRole('button', { name: /new session/i }).first().click()
  const log = page.getByRole('log', { name: 'Conversation' })

  model.push({ text: Array.from({ length: 60 }, (_, i) => `d${i}`).join(' '), chunks: 60, delayMs: 150 })
  await box.fill('a slow one, then the gateway goes')
  await box.press('Enter')
  await expect(log.getByText(/d5/)).toBeVisible({ timeout: 30_000 })
  await page.waitForTimeout(1500)
  await gw.kill9()

  const status = log.getByRole('status').last()
  await expect(status).toHaveText('Connection lost — waiting for the gateway', { timeout: 15_000 })
  const steer = page.getByRole('button', { name: 'Steer', exact: true })
  const queue = page.getByRole('button', { name: 'Queue', exact: true })
  const stop = page.getByRole('button', { name: 'Stop', exact: true })
  await box.fill('typed while offline')
  for (const b of [steer, queue, stop]) {
    await expect(b).toBeDisabled()
    await expect(b).toHaveAccessibleDescription('Not connected — reconnecting…')
  }
  await box.press('Enter')
  await page.waitForTimeout(1500)
  // nothing was sent or queued, the text is still there, and the footer did not count on
  await expect(box).toHaveValue('typed while offline')
  await expect(log.getByText('typed while offline')).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Queued messages' })).toHaveCount(0)
  await expect(status).toHaveText('Connection lost — waiting for the gateway')

  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-up', port })
  // back: the turn is read from the runtime (the crash cut it off), the draft is still there to send
  await expect(status).toHaveText(/^Interrupted: /, { timeout: 30_000 })
  await expect(box).toHaveValue('typed while offline')
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeEnabled()
})

test('a follow-up paused by Stop stays paused across a gateway crash; the session stays idle', async ({ page }) => {
  test.setTimeout(120_000)
  if (gw?.alive()) await gw.stop()
  const port = await freePort()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-3', port })
  await page.goto(`http://127.0.0.1:${port}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible({ timeout: 30_000 })
  await page.getByRole('button', { name: /new session/i }).first().click()
  const log = page.getByRole('log', { name: 'Conversation' })
  const queue = page.locator('[aria-label="Queued messages"]')

  model.push({ text: Array.from({ length: 40 }, (_, i) => `s${i}`).join(' '), chunks: 40, delayMs: 150 })
  await box.fill('a slow one')
  await box.press('Enter')
  await expect(log.getByText(/s5/)).toBeVisible({ timeout: 30_000 })
  await box.fill('PAUSED-FOLLOW-UP please')
  await box.press('Enter')
  await expect(queue).toContainText('PAUSED-FOLLOW-UP')
  await page.keyboard.press('Escape')
  await expect(log.getByRole('status').last()).toHaveText(/^Stopped/, { timeout: 15_000 })
  await expect(queue).toContainText('Paused')

  await gw.kill9()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-4', port })
  // the page resyncs after the reconnect: still paused, never sent, no error in the conversation
  await page.waitForTimeout(3000)
  await expect(queue).toContainText('Paused')
  await expect(queue).toContainText('PAUSED-FOLLOW-UP')
  await expect(log.getByText('PAUSED-FOLLOW-UP please')).toHaveCount(0)
  await expect(log.getByRole('status').last()).toHaveText(/^Stopped/)
  await page.reload()
  await expect(queue).toContainText('Paused', { timeout: 30_000 })
  await expect(log.getByText(/Interrupted/)).toHaveCount(0)
})

test('a run cut off after its tools reads Interrupted with Retry (not "Done"), live and after a reload', async ({ page }) => {
  test.setTimeout(120_000)
  if (gw?.alive()) await gw.stop()
  const port = await freePort()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-5', port })
  await page.goto(`http://127.0.0.1:${port}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeVisible({ timeout: 30_000 })
  await page.getByRole('button', { name: /new session/i }).first().click()
  const log = page.getByRole('log', { name: 'Conversation' })

  model.push({ text: 'Checking first.', chunks: 1, toolCalls: [{ name: 'exec', args: { command: 'sleep 0' } }] })
  model.push({ text: Array.from({ length: 40 }, (_, i) => `t${i}`).join(' '), chunks: 40, delayMs: 150 })
  await box.fill('check, then tell')
  await box.press('Enter')
  await expect(log.getByText(/t8/)).toBeVisible({ timeout: 30_000 })
  await page.waitForTimeout(1500)
  await gw.kill9()
  gw = await startGatewayChild({ stateDir, token: TOKEN, logs, label: 'crash-keep-6', port })

  const status = log.getByRole('status').last()
  await expect(status).toHaveText(/^Interrupted: /, { timeout: 30_000 })
  await expect(log.getByText(/t0 t1 .*t8/)).toBeVisible()
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible()
  await page.reload()
  await expect(log.getByRole('status').last()).toHaveText(/^Interrupted: /, { timeout: 30_000 })
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible()
})
