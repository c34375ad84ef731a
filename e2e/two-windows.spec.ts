// Hostile use of browser mode: two windows on one gateway (the real runtime and gateway, the scripted model).
// A window's socket dropped mid-reply, a session deleted in the other window while this one streams into it,
// a tool result far longer than a screen, sessions switched faster than their histories load.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-two-windows-token-0123456789abcdef'
const env = useBrowserGateway(TOKEN, { text: 'Fallback answer.', chunks: 2 })

type Sockets = { __e2eSockets?: Array<{ close(): void; readyState: number }> }

/** Opens the app; its WebSockets are kept so the test can drop them as a network would. */
async function openWindow(page: Page): Promise<string[]> {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript(() => {
    const g = globalThis as unknown as Sockets & { WebSocket: new (...a: unknown[]) => { close(): void; readyState: number } }
    const Real = g.WebSocket
    g.__e2eSockets = []
    g.WebSocket = class extends Real {
      constructor(...a: unknown[]) {
        super(...a)
        g.__e2eSockets!.push(this)
      }
    } as typeof Real
  })
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  return errors
}

const dropSocket = (page: Page) =>
  page.evaluate(() => {
    for (const s of (globalThis as unknown as Sockets).__e2eSockets ?? []) if (s.readyState === 1) s.close()
  })

/** Takes the window off the network (its socket dropped, its reconnects failing) until `online`. */
async function offline(page: Page) {
  await page.context().setOffline(true)
  await dropSocket(page)
}
/** The network back: the browser's `online` event, which the bridge reconnects on at once (not after its backoff). */
const online = (page: Page) => page.context().setOffline(false)

const openSessionKey = (page: Page) => page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('loopdesk.lastSession'))
const log = (page: Page) => page.getByRole('log', { name: 'Conversation' })
const footer = (page: Page) => log(page).getByRole('status').last()

test('a socket dropped mid-reply: the reply ends whole, once, in both windows', async ({ browser }) => {
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')
  env.model.push({ text: `Start. ${words} End of the long reply.`, chunks: 30, delayMs: 60 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('a long one please')
  await box.press('Enter')
  await expect(log(a).getByText(/Start\./)).toBeVisible()
  const key = await openSessionKey(a)
  // the other window opens the same session while it streams
  await b.getByRole('navigation', { name: 'Sessions' }).getByText('a long one please').first().click()
  await expect(log(b).getByText(/Start\./)).toBeVisible()
  await dropSocket(a)
  await expect(footer(a)).toHaveText(/Connection lost|Running|Done/)
  for (const p of [a, b]) {
    await expect(log(p).getByText(/End of the long reply\./)).toBeVisible({ timeout: 15_000 })
    await expect(footer(p)).toHaveText(/^Done · /)
    // the reply once: its first words are in one assistant row only
    await expect(log(p).locator('[data-kind="assistant"]').filter({ hasText: 'Start.' })).toHaveCount(1)
    expect(await log(p).locator('[data-kind="user"]').filter({ hasText: 'a long one please' }).count()).toBe(1)
  }
  expect(await openSessionKey(a)).toBe(key)
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})

test('a connection that flaps while the reply streams (dropped again mid-resync): the reply ends whole, once', async ({ browser }) => {
  const a = await browser.newPage()
  const errors = await openWindow(a)
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ text: `Alpha. ${Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ')} Omega.`, chunks: 80, delayMs: 100 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('flap while you answer')
  await box.press('Enter')
  await expect(log(a).getByText(/Alpha\./)).toBeVisible()
  for (let i = 0; i < 3; i++) {
    await dropSocket(a)
    // back (the first reconnect comes after ~0.5 s), then dropped again while its resync may still be on its way
    await expect(a.getByText('Not connected — reconnecting…')).toHaveCount(0, { timeout: 10_000 })
  }
  await expect(footer(a)).toHaveText(/^Running/)
  await expect(log(a).getByText(/Omega\./)).toBeVisible({ timeout: 15_000 })
  await expect(footer(a)).toHaveText(/^Done · /)
  await expect(log(a).locator('[data-kind="assistant"]').filter({ hasText: 'Alpha.' })).toHaveCount(1)
  await expect(log(a).locator('[data-kind="user"]')).toHaveCount(1)
  const text = (await log(a).locator('[data-kind="assistant"]').allTextContents()).join(' ')
  for (const w of ['w0 ', 'w40 ', 'w79 ']) expect(text.split(w).length - 1).toBe(1)
  expect(errors).toEqual([])
  await a.close()
})

test('the session deleted in the other window while this one streams into it: it goes, nothing brings it back', async ({ browser }) => {
  // a session to fall back on
  env.model.push({ text: 'Kept.', chunks: 1 })
  const kept = (await env.rt.call('agent', { sessionKey: 'agent:main:keeper', message: 'the keeper', idempotencyKey: 'keeper-1' })) as { runId: string }
  await env.rt.call('agent.wait', { runId: kept.runId, timeoutMs: 15_000 })
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ text: Array.from({ length: 80 }, (_, i) => `chunk${i}`).join(' '), chunks: 40, delayMs: 80 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('stream into a doomed session')
  await box.press('Enter')
  await expect(log(a).getByText(/chunk0/)).toBeVisible()
  const key = (await openSessionKey(a))!
  await env.rt.call('sessions.delete', { key })
  const navA = a.getByRole('navigation', { name: 'Sessions' })
  const navB = b.getByRole('navigation', { name: 'Sessions' })
  await expect(navA.getByText('stream into a doomed session')).toHaveCount(0)
  await expect(navB.getByText('stream into a doomed session')).toHaveCount(0)
  // the window left it for the session that is left, and the stream still coming does not bring it back
  await expect(log(a).getByText('the keeper')).toBeVisible()
  await a.waitForTimeout(1500)
  await expect(navA.getByText('stream into a doomed session')).toHaveCount(0)
  await expect(log(a).getByText(/chunk0/)).toHaveCount(0)
  await expect(a.getByRole('textbox', { name: 'Message' })).toBeEnabled()
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})

test('a tool result far longer than a screen: the card stays bounded, the page scrolls to the reply after it, both windows', async ({ browser }) => {
  const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`)
  mkdirSync(env.rt.workspace, { recursive: true })
  writeFileSync(join(env.rt.workspace, 'huge.log'), lines.join('\n'))
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ toolCalls: [{ name: 'read', args: { path: 'huge.log' } }] }, { text: 'Read the whole log.', chunks: 2 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('read huge.log')
  await box.press('Enter')
  await expect(log(a).getByText('Read the whole log.')).toBeVisible({ timeout: 15_000 })
  await b.getByRole('navigation', { name: 'Sessions' }).getByText('read huge.log').first().click()
  for (const p of [a, b]) {
    await expect(log(p).getByText('Read the whole log.')).toBeVisible({ timeout: 15_000 })
    const card = log(p).getByRole('group', { name: 'Tool read' })
    await expect(card).toBeVisible()
    // bounded: the card (opened or not) is not tens of thousands of lines tall
    const h = (await card.boundingBox())!.height
    expect(h).toBeLessThan(2000)
    await expect(footer(p)).toHaveText(/^Done · /)
  }
  // opened, and all of what was kept shown: still bounded (the card scrolls within itself), the page still answers
  const card = log(a).getByRole('group', { name: 'Tool read' })
  const head = card.locator('.tool-head')
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click()
  const showAll = card.getByRole('button', { name: /^Show all/ }).first()
  await expect(showAll).toBeVisible()
  await showAll.click()
  // all of it shown now (the read tool's page: ~1,000 lines): the button goes or says how much it shows
  await expect(card.getByRole('button', { name: /^Show all/ })).toHaveCount(0)
  expect((await card.boundingBox())!.height).toBeLessThan(3000)
  await box.fill('still typing')
  await expect(box).toHaveValue('still typing')
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})

test('sessions switched faster than their histories load: the last one clicked is the one shown', async ({ browser }) => {
  for (let i = 0; i < 5; i++) {
    env.model.push({ text: `Answer for topic ${i}.`, chunks: 1 })
    const r = (await env.rt.call('agent', { sessionKey: `agent:main:topic-${i}`, message: `topic ${i} question`, idempotencyKey: `topic-${i}` })) as { runId: string }
    await env.rt.call('agent.wait', { runId: r.runId, timeoutMs: 15_000 })
  }
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  const nav = a.getByRole('navigation', { name: 'Sessions' })
  // the other window streams into topic 2 meanwhile
  env.model.push({ text: Array.from({ length: 40 }, (_, i) => `more${i}`).join(' '), chunks: 20, delayMs: 50 })
  await b.getByRole('navigation', { name: 'Sessions' }).getByText('topic 2 question').first().click()
  const boxB = b.getByRole('textbox', { name: 'Message' })
  await boxB.fill('keep going in topic 2')
  await boxB.press('Enter')
  for (let round = 0; round < 3; round++) for (const i of [0, 3, 2, 4, 1]) await nav.getByText(`topic ${i} question`).first().click({ delay: 0 })
  await nav.getByText('topic 3 question').first().click()
  await expect(log(a).getByText('Answer for topic 3.')).toBeVisible()
  await a.waitForTimeout(1500)
  for (const i of [0, 1, 2, 4]) await expect(log(a).getByText(`Answer for topic ${i}.`)).toHaveCount(0)
  await expect(log(a).getByText(/more\d/)).toHaveCount(0)
  await expect(log(a).locator('[data-kind="user"]')).toHaveCount(1)
  await expect(nav.locator('li.selected')).toContainText('topic 3 question')
  // and the streamed session, opened now, has its reply once
  await nav.getByText('topic 2 question').first().click()
  await expect(log(a).getByText(/more39/)).toBeVisible({ timeout: 15_000 })
  await expect(log(a).locator('[data-kind="user"]').filter({ hasText: 'keep going in topic 2' })).toHaveCount(1)
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})

test('an approval answered in the other window while this one is off the gateway: disabled meanwhile, answered after', async ({ browser }) => {
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ text: '', toolCalls: [{ name: 'exec', args: { command: 'rm -rf build' } }] }, { text: 'Cleaned.', chunks: 1 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('clean the build')
  await box.press('Enter')
  const cardA = a.getByRole('group', { name: 'Approval required' })
  await expect(cardA).toContainText('rm -rf build')
  await b.getByRole('navigation', { name: 'Sessions' }).getByText('clean the build').first().click()
  const cardB = b.getByRole('group', { name: 'Approval required' })
  await expect(cardB).toContainText('rm -rf build')

  await offline(a)
  const approveA = cardA.getByRole('button', { name: 'Approve' })
  await expect(approveA).toBeDisabled()
  await expect(approveA).toHaveAccessibleDescription(/Not connected/)
  await expect(cardA).toContainText('Not connected')

  await cardB.getByRole('button', { name: 'Approve' }).click()
  await expect(log(b).getByText('Cleaned.')).toBeVisible()
  await expect(cardA.getByRole('button', { name: 'Approve' })).toBeDisabled()

  // off long enough for the backoff to have grown past what the test waits
  await a.waitForTimeout(4000)
  await online(a)
  await expect(log(a).getByText('Cleaned.')).toBeVisible({ timeout: 5000 })
  await expect(a.getByRole('group', { name: 'Approval required' }).getByRole('button', { name: 'Approve' })).toHaveCount(0)
  await expect(log(a).getByRole('group', { name: 'Tool exec' })).toContainText('Approved')
  await expect(a).toHaveTitle('Loopdesk')
  await expect(a.getByRole('navigation', { name: 'Sessions' }).locator('li.selected')).not.toContainText('Needs approval')
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})

test('switching away and back, fast, while this window\'s own reply streams: the reply ends whole, once', async ({ browser }) => {
  const a = await browser.newPage()
  const errors = await openWindow(a)
  const nav = a.getByRole('navigation', { name: 'Sessions' })
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ text: `Begin. ${Array.from({ length: 60 }, (_, i) => `bit${i}`).join(' ')} Finish.`, chunks: 30, delayMs: 50 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('stream while I wander')
  await box.press('Enter')
  await expect(log(a).getByText(/Begin\./)).toBeVisible()
  for (let i = 0; i < 8; i++) {
    await nav.getByText(`topic ${i % 5} question`).first().click({ delay: 0 })
    await nav.getByText('stream while I wander').first().click({ delay: 0 })
  }
  await expect(log(a).getByText(/Finish\./)).toBeVisible({ timeout: 15_000 })
  await expect(footer(a)).toHaveText(/^Done · /)
  await expect(log(a).locator('[data-kind="assistant"]').filter({ hasText: 'Begin.' })).toHaveCount(1)
  await expect(log(a).locator('[data-kind="user"]')).toHaveCount(1)
  // and once more after a reload of the history (another switch)
  await nav.getByText('topic 0 question').first().click()
  await nav.getByText('stream while I wander').first().click()
  await expect(log(a).getByText(/Finish\./)).toBeVisible()
  await expect(log(a).locator('[data-kind="assistant"]').filter({ hasText: 'Begin.' })).toHaveCount(1)
  expect(errors).toEqual([])
  await a.close()
})

test('the open session deleted in the other window while this one is offline: after the reconnect it is gone here too', async ({ browser }) => {
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ text: 'Short answer.', chunks: 1 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('delete me while away')
  await box.press('Enter')
  await expect(log(a).getByText('Short answer.')).toBeVisible()
  const key = (await openSessionKey(a))!
  await offline(a)
  await env.rt.call('sessions.delete', { key })
  await expect(b.getByRole('navigation', { name: 'Sessions' }).getByText('delete me while away')).toHaveCount(0)
  await box.fill('typed while away')
  await online(a)
  const navA = a.getByRole('navigation', { name: 'Sessions' })
  await expect(navA.getByText('delete me while away')).toHaveCount(0, { timeout: 10_000 })
  // not left on a conversation that no longer exists
  await expect(log(a).getByText('Short answer.')).toHaveCount(0)
  await expect(a.getByRole('alert').filter({ hasText: /not found|no session|unknown session/i })).toHaveCount(0)
  // another session is open (its row selected, its title in the header), not a composer on the dead key
  await expect(navA.locator('li.selected')).toHaveCount(1)
  await expect(a.getByRole('heading', { level: 1 })).not.toHaveText('Loopdesk')
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})

// last: the runtime shuts down (nothing after it in this file has a gateway)
test('the gateway shuts down mid-reply: both windows say so where the reply stopped', async ({ browser }) => {
  const a = await browser.newPage()
  const b = await browser.newPage()
  const errors = [...(await openWindow(a)), ...(await openWindow(b))]
  await a.getByRole('button', { name: 'New session' }).click()
  env.model.push({ text: Array.from({ length: 200 }, (_, i) => `part${i}`).join(' '), chunks: 100, delayMs: 100 })
  const box = a.getByRole('textbox', { name: 'Message' })
  await box.fill('a reply the shutdown cuts')
  await box.press('Enter')
  await expect(log(a).getByText(/part0/)).toBeVisible()
  await b.getByRole('navigation', { name: 'Sessions' }).getByText('a reply the shutdown cuts').first().click()
  await expect(log(b).getByText(/part0/)).toBeVisible()
  // as `gateway run` stops: the runtime first (its runs end "shutdown"), then the gateway closes every socket
  await env.rt.runtime.shutdown({ drainMs: 0, reason: 'e2e' })
  for (const p of [a, b]) await expect(footer(p)).toHaveText(/^Stopped: the gateway shut down/)
  await env.gw.close('e2e')
  for (const p of [a, b]) {
    await expect(p.getByRole('button', { name: 'Send' }).or(p.getByRole('button', { name: 'Queue' }))).toBeDisabled()
    // the stopped reply keeps its reason once the connection is gone too
    await expect(footer(p)).toHaveText(/^Stopped: the gateway shut down/)
    await expect(log(p).getByText(/part0/)).toBeVisible()
  }
  expect(errors).toEqual([])
  await a.close()
  await b.close()
})
