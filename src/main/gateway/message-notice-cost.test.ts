// The v3 `sessions.changed {phase: "message"}` payload is built only when a connection will receive it: with only
// v4 subscribers (and a message they are shown) no payload is built; a v3 subscriber still gets one per append.
// The same for every other `sessions.changed` payload (a run's start/end, a session's row changing): a gateway
// whose clients did not subscribe builds none (the bench's client: ~14% of what its server promoted to the old
// generation was these objects).
import { describe, expect, it, vi } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until } from '../../../test/fixtures/until'

const built = vi.hoisted(() => ({ count: 0, changed: 0 }))
vi.mock('./sessions-changed-wire', async (importOriginal) => {
  const real = await importOriginal<typeof import('./sessions-changed-wire')>()
  return {
    ...real,
    sessionsChangedPayload: (...args: Parameters<typeof real.sessionsChangedPayload>) => {
      built.changed++
      return real.sessionsChangedPayload(...args)
    },
    messageChangedPayload: (...args: Parameters<typeof real.messageChangedPayload>) => {
      built.count++
      return real.messageChangedPayload(...args)
    },
  }
})

const TOKEN = 'message-notice-cost-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()

describe('sessions.changed cost', () => {
  it('builds no run or row notice without a sessions.subscribe subscriber; a subscriber gets them', async () => {
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const key = 'agent:main:changed-cost'
    await c.request('agent', { sessionKey: key, message: 'one', idempotencyKey: 'cc-1' })
    await c.request('agent.wait', { runId: 'cc-1', timeoutMs: 10_000 })
    expect(built.changed).toBe(0)

    const seen: any[] = []
    c.onEvent((e: EventFrameIn) => e.event === 'sessions.changed' && (e.payload as any).sessionKey === key && seen.push(e.payload))
    await c.request('sessions.subscribe', {})
    await c.request('agent', { sessionKey: key, message: 'two', idempotencyKey: 'cc-2' })
    await c.request('agent.wait', { runId: 'cc-2', timeoutMs: 10_000 })
    await until(() => seen.some((p) => p.phase === 'end'))
    expect(seen.some((p) => p.phase === 'start')).toBe(true)
    expect(built.changed).toBeGreaterThanOrEqual(2)
    await c.close()
  })

})

describe('message-phase sessions.changed cost', () => {
  it('is not built without a v3 subscriber; a v3 subscriber still gets it for each append', async () => {
    const v4 = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const key = 'agent:main:notice-cost'
    const v4Messages: unknown[] = []
    v4.onEvent((e: EventFrameIn) => e.event === 'session.message' && (e.payload as any).sessionKey === key && v4Messages.push(e.payload))
    await v4.request('sessions.create', { key })
    await v4.request('sessions.subscribe', {})
    await v4.request('sessions.messages.subscribe', { key })
    await v4.request('chat.send', { sessionKey: key, message: 'one', idempotencyKey: 'nc-1' })
    await v4.request('agent.wait', { runId: 'nc-1', timeoutMs: 10_000 })
    await until(() => v4Messages.length >= 2)
    expect(built.count).toBe(0)

    const v3 = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
    const notices: any[] = []
    v3.onEvent((e: EventFrameIn) => e.event === 'sessions.changed' && (e.payload as any).sessionKey === key && (e.payload as any).phase === 'message' && notices.push(e.payload))
    await v3.request('sessions.subscribe', {})
    await v4.request('chat.send', { sessionKey: key, message: 'two', idempotencyKey: 'nc-2' })
    await v4.request('agent.wait', { runId: 'nc-2', timeoutMs: 10_000 })
    await until(() => notices.length >= 2)
    expect(notices.map((p) => p.messageSeq)).toEqual([3, 4])
    // once per append, however many connections get it
    expect(built.count).toBe(2)
    await v3.close()
    await v4.close()
  })
})
