// Unit tests of the WebSocket Bridge with a scripted in-memory socket (no network).
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createWsBridge, connectWsBridge, type CredentialStore, type SocketLike, type WsBridge } from './ws-bridge'
import { isTokenChanged } from './connection'
import type { WebDeviceIdentity } from '../../../shared/device-identity'
import type { AnyEvent } from '../../../shared/events'
import type { ResultOf } from '../../../shared/methods'
import { oneAgentHealth } from '../../../shared/status-summary'

class FakeSocket implements SocketLike {
  readyState = 0
  sent: any[] = []
  onopen: SocketLike['onopen'] = null
  onmessage: SocketLike['onmessage'] = null
  onclose: SocketLike['onclose'] = null
  onerror: SocketLike['onerror'] = null
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data))
  }
  close(code = 1000, reason = '') {
    if (this.readyState === 3) return
    this.readyState = 3
    this.onclose?.({ code, reason })
  }
  // server side helpers
  open() {
    this.readyState = 1
    this.onopen?.({})
    this.push({ type: 'event', event: 'connect.challenge', payload: { nonce: 'n1', ts: 1000 } })
  }
  push(frame: unknown) {
    this.onmessage?.({ data: JSON.stringify(frame) })
  }
  hello(scopes = ['operator.admin']) {
    const req = this.sent.find((f) => f.method === 'connect')
    this.push({ type: 'res', id: req.id, ok: true, payload: { type: 'hello-ok', protocol: 4, auth: { role: 'operator', scopes }, policy: { tickIntervalMs: 30_000 } } })
  }
  reject(code: string) {
    const req = this.sent.find((f) => f.method === 'connect')
    this.push({ type: 'res', id: req.id, ok: false, error: { code: 'INVALID_REQUEST', message: 'nope', details: { code } } })
    this.close(1008, 'nope')
  }
  lastReq(method: string) {
    return [...this.sent].reverse().find((f) => f.method === method)
  }
}

let sockets: FakeSocket[] = []
let bridge: WsBridge | undefined
const factory = (url: string) => {
  const s = new FakeSocket(url)
  sockets.push(s)
  return s
}
const tick = () => new Promise((r) => setTimeout(r, 0))

afterEach(() => {
  bridge?.close()
  bridge = undefined
  sockets = []
  vi.useRealTimers()
})

async function connected(opts: Partial<Parameters<typeof createWsBridge>[0]> = {}) {
  bridge = createWsBridge({ url: 'ws://127.0.0.1:1', token: 'tok', socketFactory: factory, identity: null, ...opts })
  const s = sockets[sockets.length - 1]
  s.open()
  await tick()
  s.hello()
  await tick()
  return s
}

describe('ws-bridge', () => {
  it('answers the challenge with a connect carrying token, scopes, caps and ui client', async () => {
    const s = await connected()
    const c = s.sent[0]
    expect(c).toMatchObject({
      type: 'req',
      method: 'connect',
      params: {
        minProtocol: 3,
        maxProtocol: 4,
        client: { id: 'openclaw-control-ui', mode: 'ui' },
        role: 'operator',
        caps: ['tool-events', 'loopdesk.tool-results', 'loopdesk.assistant-delta', 'loopdesk.chat-commands', 'loopdesk.reasoning-status', 'loopdesk.queue-removed', 'loopdesk.session-list-only', 'loopdesk.run-wait', 'loopdesk.model-silence'],
        auth: { token: 'tok' },
      },
    })
    expect(c.params.scopes).toContain('operator.write')
    expect(bridge!.connection.state).toBe('open')
    // subscribes to session changes right after hello
    expect(s.lastReq('sessions.subscribe')).toBeTruthy()
  })

  it('correlates responses by id; run resolves with the first (accepted) res and ignores the final', async () => {
    const s = await connected()
    const p1 = bridge!.run({ message: 'a', idempotencyKey: 'k1' })
    const p2 = bridge!.health({})
    const r1 = s.lastReq('agent')
    const r2 = s.lastReq('health')
    const healthPayload: ResultOf<'health'> = oneAgentHealth('main', '/s/sessions.json', [], 1)
    s.push({ type: 'res', id: r2.id, ok: true, payload: healthPayload })
    s.push({ type: 'res', id: r1.id, ok: true, payload: { runId: 'k1', status: 'accepted', acceptedAt: 5 } })
    s.push({ type: 'res', id: r1.id, ok: true, payload: { runId: 'k1', status: 'ok', summary: 'completed' } })
    await expect(p1).resolves.toEqual({ ok: true, data: { runId: 'k1', status: 'accepted', acceptedAt: 5 } })
    await expect(p2).resolves.toEqual({ ok: true, data: healthPayload })
    const e = bridge!.history({ sessionKey: 'agent:main:main' })
    s.push({ type: 'res', id: s.lastReq('chat.history').id, ok: false, error: { code: 'INVALID_REQUEST', message: 'bad' } })
    await expect(e).resolves.toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message: 'bad' } })
  })

  it('filters events per subscriber and isolates a throwing listener', async () => {
    const s = await connected()
    const got: AnyEvent[] = []
    bridge!.subscribe({}, () => {
      throw new Error('boom')
    })
    const off = bridge!.subscribe({ runId: 'r1', events: ['agent'] }, (e) => got.push(e))
    s.push({ type: 'event', event: 'agent', seq: 1, payload: { runId: 'r1', seq: 1, stream: 'lifecycle', ts: 1, data: {} } })
    s.push({ type: 'event', event: 'agent', seq: 2, payload: { runId: 'r2', seq: 1, stream: 'lifecycle', ts: 1, data: {} } })
    s.push({ type: 'event', event: 'chat', seq: 3, payload: { runId: 'r1', sessionKey: 'k', seq: 1, state: 'delta' } })
    expect(got.map((e) => (e.payload as { runId: string }).runId)).toEqual(['r1'])
    off()
    s.push({ type: 'event', event: 'agent', seq: 4, payload: { runId: 'r1', seq: 2, stream: 'lifecycle', ts: 1, data: {} } })
    expect(got).toHaveLength(1)
  })

  it('rebuilds the text of compact assistant events (loopdesk.assistant-delta)', async () => {
    const s = await connected()
    const texts: string[] = []
    bridge!.subscribe({ events: ['agent'] }, (e) => {
      if (e.event === 'agent' && e.payload.stream === 'assistant') texts.push((e.payload.data as { text: string }).text)
    })
    const ev = (seq: number, data: Record<string, unknown>) => ({ type: 'event', event: 'agent', seq, payload: { runId: 'r1', seq, stream: 'assistant', ts: 1, data } })
    s.push(ev(1, { text: 'Hel', delta: 'Hel' }))
    s.push(ev(2, { delta: 'lo', textLength: 5 }))
    s.push(ev(3, { delta: '!', textLength: 6 }))
    s.push(ev(4, { text: 'Next', delta: 'Next' })) // a new message: full text again
    s.push(ev(5, { delta: ' one', textLength: 8 }))
    expect(texts).toEqual(['Hel', 'Hello', 'Hello!', 'Next', 'Next one'])
  })

  it('rebuilds the texts of a compact recentEvents answer (each answer on its own, thinking too)', async () => {
    const s = await connected()
    const ev = (runId: string, seq: number, stream: string, data: Record<string, unknown>) => ({ runId, seq, stream, ts: 1, data })
    const answer = (events: unknown[]) => s.push({ type: 'res', id: s.lastReq('loopdesk.events.recent').id, ok: true, payload: { events, approvals: [] } })
    const p = bridge!.recentEvents({ sessionKey: 'agent:main:main', limit: 5000 })
    answer([
      ev('r1', 1, 'assistant', { text: 'Hel', delta: 'Hel' }),
      ev('r1', 2, 'thinking', { text: 'hm', delta: 'hm' }),
      ev('r1', 3, 'assistant', { delta: 'lo', textLength: 5 }),
      ev('r1', 4, 'thinking', { delta: 'm', textLength: 3 }),
      ev('r1', 5, 'lifecycle', { phase: 'end' }),
    ])
    const r = await p
    expect(r.ok && r.data.events.map((e) => e.data)).toEqual([
      { text: 'Hel', delta: 'Hel' },
      { text: 'hm', delta: 'hm' },
      { delta: 'lo', text: 'Hello' },
      { delta: 'm', text: 'hmm' },
      { phase: 'end' },
    ])
    // a second answer starts from nothing: its first event of a run is whole
    const again = bridge!.recentEvents({ sessionKey: 'agent:main:main', limit: 5000 })
    answer([ev('r1', 3, 'assistant', { text: 'Hello', delta: 'lo' }), ev('r1', 4, 'assistant', { delta: '!', textLength: 6 })])
    const r2 = await again
    expect(r2.ok && r2.data.events.map((e) => e.data.text)).toEqual(['Hello', 'Hello!'])
  })

  it('queues calls until connected, fails in-flight calls on disconnect, reconnects with backoff', async () => {
    vi.useFakeTimers()
    bridge = createWsBridge({ url: 'ws://x', token: 'tok', socketFactory: factory, identity: null, backoffInitialMs: 100, backoffMaxMs: 1000 })
    const queued = bridge.health({})
    const s1 = sockets[0]
    s1.open()
    await vi.advanceTimersByTimeAsync(0)
    s1.hello()
    await vi.advanceTimersByTimeAsync(0)
    s1.push({ type: 'res', id: s1.lastReq('health').id, ok: true, payload: { ok: true } })
    await expect(queued).resolves.toMatchObject({ ok: true })

    const inflight = bridge.status({})
    s1.close(1006, 'gone')
    await expect(inflight).resolves.toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } })
    expect(bridge.connection.state).toBe('reconnecting')
    expect(sockets).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(130)
    expect(sockets).toHaveLength(2)
    sockets[1].close(1006, '') // attempt 2 fails → longer delay
    await vi.advanceTimersByTimeAsync(130)
    expect(sockets).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(150)
    expect(sockets).toHaveLength(3)
    sockets[2].open()
    await vi.advanceTimersByTimeAsync(0)
    sockets[2].hello()
    await vi.advanceTimersByTimeAsync(0)
    expect(bridge.connection).toMatchObject({ state: 'open', attempt: 0 })
  })

  it('stops on a fatal connect error (bad token) and connectWsBridge rejects with the detail code', async () => {
    const p = connectWsBridge({ url: 'ws://x', token: 'bad', socketFactory: factory, identity: null })
    sockets[0].open()
    await tick()
    sockets[0].reject('AUTH_TOKEN_MISMATCH')
    await expect(p).rejects.toMatchObject({ details: { code: 'AUTH_TOKEN_MISMATCH' } })
    await new Promise((r) => setTimeout(r, 30))
    expect(sockets).toHaveLength(1)
  })

  it('a connect that never completes (the upgrade or the hello held) is dropped and tried again', async () => {
    vi.useFakeTimers()
    bridge = createWsBridge({ url: 'ws://x', token: 'tok', socketFactory: factory, identity: null, backoffInitialMs: 100, handshakeTimeoutMs: 5000, onlineSignal: null })
    // never opens
    await vi.advanceTimersByTimeAsync(4900)
    expect(sockets).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(200)
    expect(sockets[0].readyState).toBe(3)
    expect(bridge.connection).toMatchObject({ state: 'reconnecting', error: { message: 'the gateway did not complete the connection in time' } })
    await vi.advanceTimersByTimeAsync(150)
    expect(sockets).toHaveLength(2)
    // opens, gets the challenge, but no hello comes: the same
    sockets[1].open()
    await vi.advanceTimersByTimeAsync(5100)
    expect(sockets[1].readyState).toBe(3)
    await vi.advanceTimersByTimeAsync(300)
    expect(sockets).toHaveLength(3)
    sockets[2].open()
    await vi.advanceTimersByTimeAsync(0)
    sockets[2].hello()
    await vi.advanceTimersByTimeAsync(0)
    expect(bridge.connection).toMatchObject({ state: 'open' })
    // a connection that is up is the watchdog's, not the handshake's
    await vi.advanceTimersByTimeAsync(20_000)
    expect(sockets[2].readyState).toBe(1)
  })

  it('the network back (online): a reconnect waiting out its backoff goes at once', async () => {
    vi.useFakeTimers()
    const listeners = new Set<() => void>()
    const onlineSignal = { addEventListener: (_: 'online', l: () => void) => void listeners.add(l), removeEventListener: (_: 'online', l: () => void) => void listeners.delete(l) }
    bridge = createWsBridge({ url: 'ws://x', token: 'tok', socketFactory: factory, identity: null, backoffInitialMs: 20_000, backoffMaxMs: 30_000, onlineSignal })
    sockets[0].open()
    await vi.advanceTimersByTimeAsync(0)
    sockets[0].hello()
    await vi.advanceTimersByTimeAsync(0)
    sockets[0].close(1006, '')
    expect(bridge.connection.state).toBe('reconnecting')
    await vi.advanceTimersByTimeAsync(1000)
    expect(sockets).toHaveLength(1)
    for (const l of listeners) l()
    expect(sockets).toHaveLength(2)
    // connected: online says nothing new
    sockets[1].open()
    await vi.advanceTimersByTimeAsync(0)
    sockets[1].hello()
    await vi.advanceTimersByTimeAsync(0)
    for (const l of listeners) l()
    expect(sockets).toHaveLength(2)
    bridge.close()
    expect(listeners.size).toBe(0)
  })

  it('closes a silent connection after two tick intervals (watchdog)', async () => {
    vi.useFakeTimers()
    bridge = createWsBridge({ url: 'ws://x', token: 'tok', socketFactory: factory, identity: null, backoffInitialMs: 10_000 })
    const s = sockets[0]
    s.open()
    await vi.advanceTimersByTimeAsync(0)
    s.hello()
    await vi.advanceTimersByTimeAsync(0)
    await vi.advanceTimersByTimeAsync(91_000)
    expect(s.readyState).toBe(3)
    expect(bridge.connection.state).toBe('reconnecting')
  })

  it('close() resolves pending calls and stops reconnecting', async () => {
    const s = await connected()
    const p = bridge!.health({})
    bridge!.close()
    await expect(p).resolves.toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } })
    expect(bridge!.connection.state).toBe('closed')
    expect(s.readyState).toBe(3)
    await expect(bridge!.health({})).resolves.toMatchObject({ ok: false })
  })
})

describe('ws-bridge: credentials kept across a page reload (shared token rotated)', () => {
  function memoryStore() {
    const mem: { identity?: WebDeviceIdentity; deviceToken?: string } = {}
    const store: CredentialStore = {
      load: async () => ({ ...mem }),
      saveIdentity: async (identity) => {
        mem.identity = identity
        mem.deviceToken = undefined
      },
      saveDeviceToken: (token) => {
        mem.deviceToken = token
      },
    }
    return { mem, store }
  }
  const helloWith = (s: FakeSocket, deviceToken: string) => {
    const req = s.lastReq('connect')
    s.push({ type: 'res', id: req.id, ok: true, payload: { type: 'hello-ok', protocol: 4, auth: { role: 'operator', scopes: ['operator.admin'], deviceToken }, policy: { tickIntervalMs: 30_000 } } })
  }
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5))
    expect(cond()).toBe(true)
  }

  it('a reloaded page connects with the stored identity and device token; a dead device token stops it and is forgotten', async () => {
    const { mem, store } = memoryStore()
    // first page: the shared token from the link; the gateway issues a device token
    bridge = createWsBridge({ url: 'ws://x', token: 'old-shared', socketFactory: factory, credentials: store })
    sockets[0].open()
    await until(() => !!sockets[0].lastReq('connect'))
    expect(sockets[0].lastReq('connect').params.auth).toEqual({ token: 'old-shared' })
    const deviceId = sockets[0].lastReq('connect').params.device?.id
    expect(deviceId).toBe(mem.identity?.deviceId)
    helloWith(sockets[0], 'device-token-1')
    await until(() => bridge!.connection.state === 'open')
    expect(mem.deviceToken).toBe('device-token-1')
    bridge.close()

    // the shared token was rotated; the reloaded page still has the old one from its storage
    bridge = createWsBridge({ url: 'ws://x', token: 'old-shared', socketFactory: factory, credentials: store })
    sockets[1].open()
    await until(() => !!sockets[1].lastReq('connect'))
    const c = sockets[1].lastReq('connect').params
    expect(c.auth).toEqual({ token: 'old-shared', deviceToken: 'device-token-1' })
    expect(c.device.id).toBe(deviceId) // the same key the token was issued to
    helloWith(sockets[1], 'device-token-1')
    await until(() => bridge!.connection.state === 'open')
    bridge.close()

    // revoked too: no endless reconnect — the bridge stops and says why
    bridge = createWsBridge({ url: 'ws://x', token: 'old-shared', socketFactory: factory, credentials: store, backoffInitialMs: 10 })
    sockets[2].open()
    await until(() => !!sockets[2].lastReq('connect'))
    sockets[2].reject('AUTH_DEVICE_TOKEN_MISMATCH')
    await until(() => bridge!.connection.state === 'failed')
    expect(isTokenChanged(bridge.connection.error)).toBe(true)
    expect(mem.deviceToken).toBeUndefined()
    await new Promise((r) => setTimeout(r, 50))
    expect(sockets).toHaveLength(3)
  })
})
