// The socket thread acks an `agent` request itself only when the runtime will take it: over the real runtime,
// every refusal the runtime makes comes in the request's first `res` (OpenClaw's semantics), never after an ack
// — including the ones that depend on the runtime's state the worker follows (archived sessions, run ids the
// window's own calls used, the configured agents).
import { describe, expect, it } from 'vitest'
import type { AnyEvent } from '../../shared/events'
import { dispatch } from '../api/dispatch'
import type { RuntimeHost } from '../api/host'
import { startGateway } from './server'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'

const TOKEN = 'accept-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } }, { socketThread: true })
const connect = (scopes = ['operator.read', 'operator.write']) => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes })
const direct = (method: string, params: unknown) => dispatch(env.stack.rt.runtime.handlers, method as never, params, { transport: 'ipc' })

describe('socket thread accept over the real runtime', () => {
  it('each param-only refusal is the first res, and a good request is acked and runs', async () => {
    const c = await connect()
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ message: '   ' }, /message must not be empty/],
      [{ message: '\u200b' }, /message must not be empty: /],
      [{ message: 'a\u0000b' }, /NUL/],
      [{ message: 'hi', agentId: 'nobody' }, /unknown agent id "nobody"/],
      [{ message: 'hi', sessionKey: 'agent:' }, /malformed session key/],
      [{ message: 'hi', sessionKey: 'agent:nobody:x' }, /unknown agent id/],
      [{ message: 'hi', sessionKey: 'agent:main:x', agentId: 'other' }, /unknown agent id "other"/],
      [{ message: 'hi', thinking: 'enormous' }, /invalid thinking level/],
      [{ message: 'hi', cwd: '/tmp' }, /cwd is not supported/],
      [{ message: 'hi', channel: 'sms' }, /unknown channel/],
      [{ message: 'hi', deliver: true }, /delivery channel is required/],
      [{ message: 'hi', sessionId: '../x' }, /sessionId/],
      [{ message: 'hi', sessionKey: 'agent:main:y', expectedExistingSessionId: 'nope' }, /does not exist/],
    ]
    for (const [i, [params, message]] of refused.entries()) {
      await expect(c.request('agent', { ...params, idempotencyKey: `refused-${i}` }), JSON.stringify(params)).rejects.toMatchObject({ code: 'INVALID_REQUEST', message })
    }
    const ack = await c.request('agent', { message: 'fine', sessionKey: 'agent:main:good', idempotencyKey: 'good-1' })
    expect(ack).toMatchObject({ runId: 'good-1', status: 'accepted' })
    expect(await c.request('agent.wait', { runId: 'good-1', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
    await c.close()
  })

  it('an archived session refuses in the first res, archived over the gateway or by the window; restored, it takes work', async () => {
    const c = await connect(['operator.read', 'operator.write', 'operator.admin'])
    for (const key of ['agent:main:arch-a', 'agent:main:arch-b']) {
      await c.request('agent', { message: 'first', sessionKey: key, idempotencyKey: `${key}-1` }, { expectFinal: true })
    }
    await c.request('sessions.patch', { key: 'agent:main:arch-a', archived: true })
    const patched = await direct('sessions.patch', { key: 'agent:main:arch-b', archived: true })
    expect(patched.ok).toBe(true)
    for (const key of ['agent:main:arch-a', 'agent:main:arch-b']) {
      await expect(c.request('agent', { message: 'again', sessionKey: key, idempotencyKey: `${key}-2` })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: /is archived/ })
    }
    await direct('sessions.patch', { key: 'agent:main:arch-b', archived: false })
    const final = await c.request('agent', { message: 'back', sessionKey: 'agent:main:arch-b', idempotencyKey: 'arch-b-3' }, { expectFinal: true })
    expect(final).toMatchObject({ status: 'ok' })
    await c.close()
  })

  it('a session archived while the gateway starts (its view read, its worker not yet listening) is refused in the first res', async () => {
    const rt = env.stack.rt.runtime
    const key = 'agent:main:arch-at-start'
    expect((await direct('agent', { message: 'first', sessionKey: key, idempotencyKey: 'arch-at-start-1' })).ok).toBe(true)
    await rt.agentFinal('arch-at-start-1')
    const events: AnyEvent[] = []
    const off = rt.subscribe((e) => events.push(e))
    expect((await direct('sessions.patch', { key, archived: true })).ok).toBe(true)
    off()
    const archived = events.find((e) => e.event === 'sessions.changed' && e.payload.sessionKey === key && e.payload.session?.archived)!
    expect(archived).toBeDefined()
    // the runtime's own archive, as a second gateway over it would see it had it come in the instant after the
    // gateway read the archived keys: the key not among them yet, its event right after (the worker still starting)
    let gatewayListener: ((ev: AnyEvent) => void) | undefined
    const host = Object.create(rt, {
      subscribe: { value: (l: (ev: AnyEvent) => void) => ((gatewayListener = l), rt.subscribe(l)) },
      archivedSessionKeys: {
        value: () => {
          queueMicrotask(() => gatewayListener!(archived))
          return rt.archivedSessionKeys!().filter((k) => k !== key)
        },
      },
    }) as RuntimeHost
    const gw = await startGateway({ host, port: 0, token: TOKEN, stateDir: env.stack.rt.stateDir, staticDir: null, socketThread: true, writeInfo: false })
    try {
      const c = await connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes: ['operator.read', 'operator.write'] })
      await expect(c.request('agent', { message: 'again', sessionKey: key, idempotencyKey: 'arch-at-start-2' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: /is archived/ })
      await c.close()
    } finally {
      await gw.close()
    }
  })

  it("a run id the window's chat.send used, read from its events, is refused in the first res", async () => {
    const c = await connect()
    const seen = new Promise<void>((resolve) => c.onEvent((f) => (f.payload as { runId?: string } | undefined)?.runId === 'window-run-1' && resolve()))
    const sent = await direct('chat.send', { sessionKey: 'agent:main:window', message: 'from the window', idempotencyKey: 'window-run-1' })
    expect(sent.ok).toBe(true)
    await seen
    await expect(c.request('agent', { message: 'mine now', sessionKey: 'agent:main:other', idempotencyKey: 'window-run-1' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { code: 'IDEMPOTENCY_KEY_IN_USE' },
    })
    await c.close()
  })

  it('an agent request sent right behind a chat.send with the same key is refused in the first res, as the runtime took the key first', async () => {
    const c = await connect()
    // back to back on one connection: the chat.send reaches the runtime first, which then refuses the agent call
    const sent = c.request('chat.send', { sessionKey: 'agent:main:pipelined', message: 'from chat.send', idempotencyKey: 'pipelined-1' })
    const agent = c.request('agent', { message: 'from agent', sessionKey: 'agent:main:pipelined-other', idempotencyKey: 'pipelined-1' })
    await expect(agent).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'IDEMPOTENCY_KEY_IN_USE' } })
    expect(await sent).toMatchObject({ runId: 'pipelined-1' })
    await c.close()
  })

  it("the run's acceptedAt is the worker's ack time: a retry's ack says the same", async () => {
    const c = await connect()
    env.server.push({ text: 'slow '.repeat(20), chunks: 20, delayMs: 50 })
    const first = c.request('agent', { message: 'slow one', sessionKey: 'agent:main:when', idempotencyKey: 'when-1' })
    // this (the gateway's main) thread is busy while the worker acks: the runtime sees the request 30 ms later
    const until = Date.now() + 30
    while (Date.now() < until) {
      /* busy */
    }
    const ack = await first
    const retry = await c.request('agent', { message: 'slow one', sessionKey: 'agent:main:when', idempotencyKey: 'when-1' })
    expect(retry).toEqual(ack)
    expect(await c.request('agent.wait', { runId: 'when-1', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
    await c.close()
  })
})
