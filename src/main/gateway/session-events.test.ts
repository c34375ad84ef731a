// Who gets a transcript append, over real WebSockets (OpenClaw's server-session-events.ts
// createTranscriptUpdateBroadcastHandler): `session.message` to every sessions.subscribe subscriber and to the
// session's sessions.messages.subscribe subscribers, once per connection; on v3 (April) also `sessions.changed`
// {phase: "message"} to the sessions.subscribe subscribers, on v4 (2026.9) not. A v3 reader that stops reading
// loses these notices instead of its socket; a v4 one keeps its transcript from session.message and is closed.
import { afterEach, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import type { EventFrameIn, GatewayConnectionClient } from '../../cli/gateway-client'
import type { SessionMessageEvent } from '../api/host'
import type { SessionRow } from '../../shared/methods'
import { SESSION_LIST_ONLY_CAP } from '../../shared/events'
import { startTestGateway, type TestGateway } from './test-support'
import { until } from '../../../test/fixtures/until'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const KEY = 'agent:main:main'
const OTHER = 'agent:main:other'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function collect(conn: GatewayConnectionClient) {
  const events: EventFrameIn[] = []
  conn.onEvent((e) => events.push(e))
  return events
}

const row = (key: string): SessionRow => ({ key, kind: 'direct', agentId: 'main', sessionId: `sid-${key}`, updatedAt: 1000 }) as unknown as SessionRow

function append(sessionKey: string, seq: number, text = 'hello'): SessionMessageEvent {
  const messageId = `m-${sessionKey}-${seq}`
  return {
    sessionKey,
    message: { role: 'user', content: [{ type: 'text', text }], __openclaw: { id: messageId, seq } },
    messageId,
    messageSeq: seq,
    ts: 5000 + seq,
    session: row(sessionKey),
  }
}

const of = (events: EventFrameIn[], name: string) => events.filter((e) => e.event === name)
const messagePhase = (events: EventFrameIn[]) => of(events, 'sessions.changed').filter((e) => (e.payload as { phase?: string }).phase === 'message')

describe('transcript appends over the gateway', () => {
  it('v3: go to sessions.subscribe subscribers (any session) and to that session’s message subscribers, once per connection', async () => {
    t = await startTestGateway()
    const connect = () => t!.connect({ minProtocol: 3, maxProtocol: 3 })
    const list = await connect() // sessions.subscribe only
    const feed = await connect() // sessions.messages.subscribe of KEY only
    const both = await connect()
    const none = await connect()
    const [el, ef, eb, en] = [collect(list), collect(feed), collect(both), collect(none)]
    await list.request('sessions.subscribe', {})
    await feed.request('sessions.messages.subscribe', { key: KEY })
    await both.request('sessions.subscribe', {})
    await both.request('sessions.messages.subscribe', { key: KEY })

    t.host.emitSessionMessage(append(KEY, 1))
    t.host.emitSessionMessage(append(OTHER, 1))
    await until(() => of(el, 'session.message').length === 2 && messagePhase(el).length === 2 && messagePhase(eb).length === 2)
    await sleep(50)

    // sessions.subscribe: every session's messages, each followed by the list notice
    expect(of(el, 'session.message').map((e) => (e.payload as { sessionKey: string }).sessionKey)).toEqual([KEY, OTHER])
    expect(el.map((e) => e.event)).toEqual(['session.message', 'sessions.changed', 'session.message', 'sessions.changed'])
    // the message feed: its session only, and no list notice
    expect(ef.map((e) => [e.event, (e.payload as { sessionKey: string }).sessionKey])).toEqual([['session.message', KEY]])
    // subscribed both ways: one copy of each message (as OpenClaw, whose recipients are one set of connections)
    expect(of(eb, 'session.message')).toHaveLength(2)
    expect(messagePhase(eb)).toHaveLength(2)
    expect(en).toEqual([])

    // targeted: no frame seq, so nobody's numbering gets a hole
    for (const e of [...el, ...ef, ...eb]) expect(e.seq).toBeUndefined()
    const changed = messagePhase(el)[0].payload as Record<string, unknown>
    expect(changed).toEqual({
      sessionKey: KEY,
      phase: 'message',
      ts: 5001,
      messageId: `m-${KEY}-1`,
      messageSeq: 1,
      kind: 'direct',
      agentId: 'main',
      sessionId: `sid-${KEY}`,
      updatedAt: 1000,
      session: row(KEY),
    })
    expect(changed).not.toHaveProperty('reason')
    expect(of(el, 'session.message')[0].payload).toMatchObject({ sessionKey: KEY, messageId: `m-${KEY}-1`, messageSeq: 1, sessionId: `sid-${KEY}` })

    // unsubscribing the list leaves the message feed
    await both.request('sessions.unsubscribe', {})
    t.host.emitSessionMessage(append(KEY, 2))
    t.host.emitSessionMessage(append(OTHER, 2))
    await until(() => of(ef, 'session.message').length === 2 && of(eb, 'session.message').length === 3)
    await sleep(50)
    expect(of(eb, 'session.message').map((e) => (e.payload as { messageSeq: number }).messageSeq)).toEqual([1, 1, 2])
    expect(messagePhase(eb)).toHaveLength(2)
    for (const c of [list, feed, both, none]) await c.close()
  })

  it('v4: the same audience, once per connection, and no sessions.changed for a message; a session-list-only client gets none', async () => {
    t = await startTestGateway()
    const list = await t.connect()
    const both = await t.connect()
    // the window: list updates only, unless it asks for a session's messages
    const window = await t.connect({ caps: [SESSION_LIST_ONLY_CAP] })
    const windowFeed = await t.connect({ caps: [SESSION_LIST_ONLY_CAP] })
    const [el, eb, ew, ewf] = [collect(list), collect(both), collect(window), collect(windowFeed)]
    await list.request('sessions.subscribe', {})
    await both.request('sessions.subscribe', {})
    await both.request('sessions.messages.subscribe', { key: KEY })
    await window.request('sessions.subscribe', {})
    await windowFeed.request('sessions.subscribe', {})
    await windowFeed.request('sessions.messages.subscribe', { key: OTHER })
    t.host.emitSessionMessage(append(KEY, 1))
    t.host.emitSessionMessage(append(OTHER, 1))
    await until(() => of(el, 'session.message').length === 2 && of(eb, 'session.message').length === 2)
    await sleep(50)
    for (const events of [el, eb]) {
      expect(events.map((e) => [e.event, (e.payload as { sessionKey: string }).sessionKey, e.seq])).toEqual([
        ['session.message', KEY, undefined],
        ['session.message', OTHER, undefined],
      ])
    }
    expect(ew).toEqual([])
    expect(ewf.map((e) => [e.event, (e.payload as { sessionKey: string }).sessionKey])).toEqual([['session.message', OTHER]])
    // and its sessions.changed of the runtime's own notices still arrive
    t.host.emit({ event: 'sessions.changed', payload: { sessionKey: KEY, reason: 'patch', ts: 1, session: row(KEY) } })
    await until(() => ew.length === 1)
    expect(ew[0]).toMatchObject({ event: 'sessions.changed', payload: { reason: 'patch' } })
    for (const c of [window, windowFeed]) await c.close()
    await list.close()
    await both.close()
  })

  it('v3: a client that stops reading loses session notices, not its connection; a run event it cannot take still closes it', async () => {
    t = await startTestGateway({}, { limits: { maxBufferedBytes: 64 * 1024 } })
    const slow = await t.connect({ minProtocol: 3, maxProtocol: 3 })
    const fast = await t.connect({ minProtocol: 3, maxProtocol: 3 })
    await slow.request('sessions.subscribe', {})
    await fast.request('sessions.subscribe', {})
    const es = collect(slow)
    const ef = collect(fast)
    const slowClosed = new Promise<{ code: number; reason: string }>((r) => slow.onClose((code, reason) => r({ code, reason })))
    const sock = ((slow as unknown as { ws: WebSocket }).ws as unknown as { _socket: import('node:net').Socket })._socket
    sock.pause()

    // each append well under the limit (a reader keeping up never reaches it), many MB in all
    const big = 'x'.repeat(32 * 1024)
    const N = 600
    for (let i = 1; i <= N; i++) {
      t.host.emitSessionMessage(append(KEY, i, big))
      // the runtime's own notices (a run's start, a patch) too
      t.host.emit({ event: 'sessions.changed', payload: { sessionKey: KEY, reason: 'patch', ts: i, session: row(KEY) } })
      await sleep(0)
    }
    await until(() => of(ef, 'session.message').length === N && of(ef, 'sessions.changed').length === 2 * N)
    expect(slow.closed).toBe(false)

    // a chat final is not droppable (as in OpenClaw): still backed up, it closes the socket
    t.host.emit({ event: 'chat', payload: { runId: 'r', sessionKey: KEY, seq: 1, state: 'final' } })
    sock.resume()
    expect(await slowClosed).toEqual({ code: 1008, reason: 'slow consumer' })
    expect(of(es, 'session.message').length).toBeLessThan(N)
    expect(fast.closed).toBe(false)
    await fast.close()
  })

  it('v4: a client that stops reading loses sessions.changed, but a session.message it cannot take closes it', async () => {
    t = await startTestGateway({}, { limits: { maxBufferedBytes: 64 * 1024 } })
    const slow = await t.connect()
    await slow.request('sessions.subscribe', {})
    const slowClosed = new Promise<{ code: number; reason: string }>((r) => slow.onClose((code, reason) => r({ code, reason })))
    const sock = ((slow as unknown as { ws: WebSocket }).ws as unknown as { _socket: import('node:net').Socket })._socket
    sock.pause()
    const big = { ...row(KEY), label: 'x'.repeat(32 * 1024) } as SessionRow
    for (let i = 1; i <= 600; i++) {
      t.host.emit({ event: 'sessions.changed', payload: { sessionKey: KEY, reason: 'patch', ts: i, session: big } })
      await sleep(0)
    }
    await sleep(50)
    expect(slow.closed).toBe(false)
    t.host.emitSessionMessage(append(KEY, 1))
    sock.resume()
    expect(await slowClosed).toEqual({ code: 1008, reason: 'slow consumer' })
  })
})
