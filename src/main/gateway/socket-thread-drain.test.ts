// The socket thread's accept at the edges of a run's and the gateway's life: during the runtime's drain (the
// gateway still serves it) the worker acks nothing itself, so a new `agent` is refused in its first `res`; and a
// retry of a run still going after the worker forgot its key gets one ack, never a second one (read as its final).
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, startTestRuntimeGateway, type TestRuntimeGateway } from '../../../test/fixtures/test-runtime'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { startGateway } from './server'
import { RawClient, startTestGateway, type TestGateway } from './test-support'

const TOKEN = 'drain-token-0123456789abcdef'
let server: ModelServer | undefined
let stack: TestRuntimeGateway | undefined
let t: TestGateway | undefined
afterEach(async () => {
  await stack?.close()
  await server?.close()
  await t?.stop()
  stack = server = t = undefined
})

describe('socket thread accept, edges', () => {
  it('during the runtime drain a new agent request is refused in its first res', async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    stack = await startTestRuntimeGateway(server, TOKEN, { socketThread: true })
    const c = await connectGateway({ url: stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    server.push({ text: 'a long reply '.repeat(20), chunks: 20, delayMs: 50 })
    await c.request('agent', { message: 'long', idempotencyKey: 'drain-long' })
    const drained = stack.rt.runtime.shutdown({ drainMs: 10_000, reason: 'test drain' })
    // a round trip through the worker: what the main thread posted before it (the drain) has reached the worker
    await c.request('health', {})
    await expect(c.request('agent', { message: 'one more', idempotencyKey: 'drain-new' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: /shutting down/ })
    await drained
    await c.close()
  })

  it('a retry of a run in flight whose key the worker forgot gets the ack once', async () => {
    t = await startTestGateway({ hold: true }, { socketThread: true, limits: { dedupeTtlMs: 50 } })
    const conn = await t.connect()
    const raw = new RawClient((conn as unknown as { ws: import('ws').WebSocket }).ws)
    raw.send({ type: 'req', id: 'a1', method: 'agent', params: { message: 'held', idempotencyKey: 'held-1' } })
    expect((await raw.res('a1')).payload.status).toBe('accepted')
    // past twice the TTL, another key makes the worker forget the first
    await new Promise((r) => setTimeout(r, 150))
    raw.send({ type: 'req', id: 'b1', method: 'agent', params: { message: 'other', idempotencyKey: 'other-1' } })
    await raw.res('b1')
    raw.send({ type: 'req', id: 'a2', method: 'agent', params: { message: 'held', idempotencyKey: 'held-1' } })
    expect((await raw.res('a2')).payload.status).toBe('accepted')
    // the main thread takes a connection's frames in order: once `h` is answered, it has answered a2 as it will
    raw.send({ type: 'req', id: 'h', method: 'health', params: {} })
    await raw.res('h')
    raw.send({ type: 'req', id: 'h2', method: 'health', params: {} })
    await raw.res('h2')
    // a retry in flight gets the ack only (no final, as without the thread) — and never a second ack
    expect(raw.frames.filter((f) => f.type === 'res' && f.id === 'a2')).toHaveLength(1)
    t.host.finishRun('held-1')
    await raw.next((f) => f.type === 'res' && f.id === 'a1' && f.payload?.status === 'ok')
    await conn.close()
  })

  it('a run the runtime refuses after the ack ends as a failed run: a lifecycle error, the error final, agent.wait says error', async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    stack = await startTestRuntimeGateway(server, TOKEN, { socketThread: true })
    const c = await connectGateway({ url: stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    const key = 'agent:main:quietly-archived'
    await c.request('agent', { message: 'first', sessionKey: key, idempotencyKey: 'qa-1' }, { expectFinal: true })
    // archived behind the gateway's back (no sessions.changed): the worker cannot know, as with a disk that fails
    await stack.rt.runtime.core.store('main').update(key, (cur) => (cur ? { ...cur, archivedAt: Date.now() } : undefined))
    const ended = new Promise<Record<string, unknown>>((resolve) =>
      c.onEvent((f) => {
        const p = f.payload as { runId?: string; stream?: string; data?: Record<string, unknown> }
        if (f.event === 'agent' && p.runId === 'qa-2' && p.stream === 'lifecycle') resolve(p.data!)
      }),
    )
    const final = c.request('agent', { message: 'again', sessionKey: key, idempotencyKey: 'qa-2' }, { expectFinal: true })
    await expect(final).rejects.toMatchObject({ message: /is archived/ })
    expect(await ended).toMatchObject({ phase: 'error', error: expect.stringMatching(/is archived/) })
    expect(await c.request('agent.wait', { runId: 'qa-2', timeoutMs: 5_000 })).toMatchObject({ status: 'error' })
    await c.close()
  })

  it('a drain that began while the gateway was starting stops the worker acks too', async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    const rt = await startTestRuntime(server)
    server.push({ text: 'a long reply '.repeat(20), chunks: 20, delayMs: 50 })
    await rt.call('agent', { message: 'long', idempotencyKey: 'pre-drain' })
    const drained = rt.runtime.shutdown({ drainMs: 10_000, reason: 'test drain' })
    const gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null, socketThread: true })
    try {
      const c = await connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
      await expect(c.request('agent', { message: 'one more', idempotencyKey: 'during-start' })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: /shutting down/ })
      await c.close()
    } finally {
      await gw.close()
      await drained
      await rt.close()
    }
  })
})
