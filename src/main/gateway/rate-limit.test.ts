// Control-plane write rate limit: config.patch 3 per 60 s per device, UNAVAILABLE + retryable +
// retryAfterMs, checked after scope and before handler lookup; refused writes give their slot back.
import { afterEach, describe, expect, it } from 'vitest'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { SlidingWindowLimiter } from './rate-limit'
import { RunOwners } from './run-owners'
import { startTestGateway, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

describe('SlidingWindowLimiter', () => {
  it('admits max per window, says when the oldest slot frees, and takes released slots back', () => {
    const l = new SlidingWindowLimiter(3, 60_000)
    expect(l.take('a', 1000).ok).toBe(true)
    expect(l.take('a', 2000).ok).toBe(true)
    const third = l.take('a', 3000)
    expect(third.ok).toBe(true)
    expect(l.take('a', 4000)).toEqual({ ok: false, retryAfterMs: 57_000 })
    expect(l.take('b', 4000).ok).toBe(true) // other key, own budget
    if (third.ok) third.release()
    expect(l.take('a', 5000).ok).toBe(true)
    expect(l.take('a', 61_000)).toEqual({ ok: true, release: expect.any(Function) }) // the first one expired
  })
})

describe('config.patch rate limit over the gateway', () => {
  it('3 per window per device, then UNAVAILABLE retryable with retryAfterMs; the handler is not reached', async () => {
    t = await startTestGateway()
    const a = await t.connect()
    const sameDevice = await t.connect()
    for (let i = 0; i < 2; i++) await expect(a.request('config.patch', { patch: { n: i } })).resolves.toMatchObject({ ok: true })
    await expect(sameDevice.request('config.patch', { patch: { n: 2 } })).resolves.toMatchObject({ ok: true })
    const err = await a.request('config.patch', { patch: { n: 3 } }).catch((e) => e)
    expect(err.code).toBe('UNAVAILABLE')
    expect(err.details).toMatchObject({ code: 'RATE_LIMITED', method: 'config.patch' })
    expect(err.message).toMatch(/rate limit/)
    const raw = await rawError(a, 'config.patch', { patch: { n: 4 } })
    expect(raw).toMatchObject({ code: 'UNAVAILABLE', retryable: true })
    expect(raw.retryAfterMs).toBeGreaterThan(50_000)
    expect(raw.retryAfterMs).toBeLessThanOrEqual(60_000)
    expect(t.host.patches).toHaveLength(3)
    expect(t.host.callCount('config.patch')).toBe(3)
    // other methods are not limited; another device has its own budget
    await expect(a.request('status')).resolves.toMatchObject({ ok: true })
    const other = await t.connect({ identity: generateNodeDeviceIdentity() })
    await expect(other.request('config.patch', { patch: { n: 5 } })).resolves.toMatchObject({ ok: true })
    await Promise.all([a.close(), sameDevice.close(), other.close()])
  })

  it('scope is checked first, the limit before method lookup; refused patches do not count', async () => {
    t = await startTestGateway()
    const admin = await t.connect()
    const reader = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.read'] })
    // refused by the handler (nothing written): the slot is given back
    for (let i = 0; i < 5; i++) await expect(admin.request('config.patch', { patch: { bad: i } })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(admin.request('config.patch', { patch: 'nope' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    // an unserved control-plane name is unknown while there is budget
    await expect(admin.request('config.apply', {})).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'unknown method: config.apply' })
    for (let i = 0; i < 3; i++) await admin.request('config.patch', { patch: { n: i } })
    // over the limit: rate limit comes before the lookup
    await expect(admin.request('config.apply', {})).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { code: 'RATE_LIMITED' } })
    // a client without the scope hears about the scope, not the limit
    await expect(reader.request('config.patch', { patch: { n: 9 } })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'missing scope: operator.admin' })
    expect(t.host.patches).toHaveLength(3)
    await Promise.all([admin.close(), reader.close()])
  })

  it('the window slides: writes are admitted again once it has passed', async () => {
    t = await startTestGateway({}, { limits: { controlPlaneWindowMs: 300 } })
    const c = await t.connect()
    for (let i = 0; i < 3; i++) await c.request('config.patch', { patch: { n: i } })
    const err = await rawError(c, 'config.patch', { patch: { n: 3 } })
    expect(err.code).toBe('UNAVAILABLE')
    await new Promise((r) => setTimeout(r, err.retryAfterMs + 20))
    await expect(c.request('config.patch', { patch: { n: 4 } })).resolves.toMatchObject({ ok: true })
    await c.close()
  })
})

/** The full error shape of a response (the client's error object drops retryable/retryAfterMs). */
async function rawError(c: Awaited<ReturnType<TestGateway['connect']>>, method: string, params: unknown) {
  const ws = (c as unknown as { ws: import('ws').WebSocket }).ws
  const id = `raw-${Math.random()}`
  return new Promise<any>((resolve) => {
    const onMsg = (data: import('ws').RawData) => {
      const f = JSON.parse(data.toString())
      if (f.type === 'res' && f.id === id) {
        ws.off('message', onMsg)
        resolve(f.error)
      }
    }
    ws.on('message', onMsg)
    ws.send(JSON.stringify({ type: 'req', id, method, params }))
  })
}

describe('request checks while the gateway shuts down', () => {
  it('answers UNAVAILABLE retryable (after the scope check, before the rate limit)', async () => {
    const { handleRequest } = await import('./requests')
    const { AgentDedupe } = await import('./agent-dedupe')
    const { FakeHost } = await import('./fake-host')
    const sent: any[] = []
    const conn = { id: 'c', protocol: 4, scopes: new Set(['operator.admin']), unauthorizedStreak: 0, respond: (id: string, r: unknown) => sent.push({ id, ...(r as object) }) }
    const limiter = new SlidingWindowLimiter(1, 60_000)
    const ctx = { host: new FakeHost(), dedupe: new AgentDedupe(1000, 10), maxUnauthorizedStreak: 10, log: () => {}, unavailable: () => 'gateway is shutting down', writeLimiter: limiter, runOwners: new RunOwners() }
    await handleRequest(ctx, conn as never, { type: 'req', id: '1', method: 'config.patch', params: { patch: {} } })
    expect(sent[0]).toMatchObject({ id: '1', ok: false, error: { code: 'UNAVAILABLE', message: 'gateway is shutting down', retryable: true, retryAfterMs: 500 } })
    expect(limiter.take('conn:c', Date.now()).ok).toBe(true) // limit 1: nothing was taken for the refused call
    const reader = { ...conn, scopes: new Set(['operator.read']), respond: conn.respond }
    await handleRequest(ctx, reader as never, { type: 'req', id: '2', method: 'config.patch', params: { patch: {} } })
    expect(sent[1]).toMatchObject({ id: '2', ok: false, error: { code: 'FORBIDDEN' } })
  })
})
