import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import { BRIDGE_CALL_NAMES, BRIDGE_METHODS, ipcChannel, type BridgeCallName } from '../../shared/bridge'
import type { ParamsOf } from '../../shared/methods'
import { PAIRING_CALL_NAMES, REJECTION_LIFTED_EVENT, type PairingBridge, type PairingCallName, type PairingEvent } from '../../shared/pairing'
import { DevicePairing } from '../gateway/device-pairing'
import { PairedDevices } from '../gateway/paired-devices'
import { PendingPairings } from '../gateway/pending-pairings'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { registerBridgeIpc, MAX_SUBSCRIPTIONS, NO_GATEWAY, type BridgeIpc } from './ipc'
import { fake, FakeFrame, FakeWebContents, resetFake } from './testing/fake-electron'
import { createFakeHost, type FakeHost } from './testing/fake-host'

// One valid params object per bridge call. Typed so a new bridge call without a sample fails to compile.
const GOOD: { [K in BridgeCallName]: ParamsOf<(typeof BRIDGE_METHODS)[K]> } = {
  run: { message: 'hi', idempotencyKey: 'k1' },
  send: { sessionKey: 'agent:main:main', message: 'hi', idempotencyKey: 'k2' },
  wait: { runId: 'r1', timeoutMs: 10 },
  abort: { sessionKey: 'agent:main:main' },
  history: { sessionKey: 'agent:main:main', limit: 5 },
  health: {},
  status: {},
  sessionsList: { limit: 10 },
  sessionsCreate: { label: 'x' },
  sessionsFork: { sessionKey: 'agent:main:main', entryId: 'm1' },
  sessionsPatch: { key: 'agent:main:main', label: null },
  sessionsReset: { key: 'agent:main:main' },
  sessionsDelete: { key: 'agent:main:main' },
  sessionsAbort: { key: 'agent:main:main' },
  sessionsCompact: { key: 'agent:main:main' },
  modelsList: {},
  agentsList: {},
  toolsCatalog: {},
  settingsGet: {},
  settingsSet: { patch: { agents: {} } },
  approvalResolve: { id: 'a1', decision: 'deny' },
  recentEvents: { sessionKey: 'agent:main:main' },
  sessionsSearch: { query: 'hello' },
  chatFind: { sessionKey: 'agent:main:main', query: 'hello' },
  modelsProbe: { baseUrl: 'http://127.0.0.1:11434/v1' },
  providerRename: { from: 'local', to: 'lab' },
  queueList: { sessionKey: 'agent:main:main' },
  queueRemove: { sessionKey: 'agent:main:main', id: 'q1' },
  queueHold: { sessionKey: 'agent:main:main' },
  queueRelease: { sessionKey: 'agent:main:main', ids: ['q1'] },
  queueReorder: { sessionKey: 'agent:main:main', ids: ['q2', 'q1'] },
  prefsGet: {},
  prefsSet: { theme: 'dark' },
}

// One valid params object per pairing call (same typing rule).
const PAIRING_GOOD: { [K in PairingCallName]: Parameters<PairingBridge[K]>[0] } = {
  pairingList: {},
  pairingApprove: { requestId: 'r-unknown' },
  pairingReject: { requestId: 'r-unknown' },
  pairingLiftRejection: { deviceId: 'ab'.repeat(32) },
}

const PAGE = 'page0001'
const SUBSCRIBE_GOOD = { subId: `${PAGE}-1`, filter: { sessionKey: 'agent:main:main' } }
const UNSUBSCRIBE_GOOD = { subId: `${PAGE}-1` }

function goodParamsFor(channel: string): unknown {
  if (channel === ipcChannel('subscribe')) return SUBSCRIBE_GOOD
  if (channel === ipcChannel('unsubscribe')) return UNSUBSCRIBE_GOOD
  if (channel === ipcChannel('subscribePairing')) return UNSUBSCRIBE_GOOD
  const pairingName = channel.replace(/^loopdesk:/, '') as PairingCallName
  if (pairingName in PAIRING_GOOD) return PAIRING_GOOD[pairingName]
  const name = channel.replace(/^loopdesk:/, '') as BridgeCallName
  if (!(name in GOOD)) throw new Error(`no sample params for ${channel}`)
  return GOOD[name]
}

let host: FakeHost
let ours: FakeWebContents
let ipc: BridgeIpc
/** the gateway's real pairing object (GatewayHandle.pairing), over a temp state dir */
let pairing: DevicePairing
let paired: PairedDevices
let pending: PendingPairings
const PHONE = 'ab'.repeat(32)
const ask = (deviceId = PHONE) => ({
  deviceId,
  publicKey: `key-${deviceId}`,
  clientId: 'openclaw-ios',
  clientMode: 'ui',
  platform: 'iOS',
  role: 'operator',
  scopes: ['operator.read'],
  remoteIp: '192.0.2.7',
})

beforeEach(() => {
  resetFake()
  host = createFakeHost()
  ours = new FakeWebContents('app://loopdesk/index.html')
  paired = new PairedDevices(tempDir('loopdesk-ipc-pair-'))
  pending = new PendingPairings()
  pairing = new DevicePairing({ paired, pending, connectedDevices: () => [] })
  ipc = registerBridgeIpc({ host, getWebContents: () => ours as any, pairing })
})

const invoke = (channel: string, params: unknown, sender: FakeWebContents = ours, frame: FakeFrame | null = sender.mainFrame) =>
  fake.ipcMain.invoke(channel, sender, frame, params) as Promise<any>

describe('IPC registration', () => {
  it('registers exactly the bridge calls plus subscribe/unsubscribe, nothing generic', () => {
    const expected = [
      ...BRIDGE_CALL_NAMES.map((n) => ipcChannel(n)),
      ...PAIRING_CALL_NAMES.map((n) => ipcChannel(n)),
      ipcChannel('subscribe'),
      ipcChannel('subscribePairing'),
      ipcChannel('unsubscribe'),
    ]
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual(expected.sort())
    expect(ipc.channels.sort()).toEqual(expected.sort())
    // no fire-and-forget listeners (ipcMain.on) that would bypass the guarded handle path
    expect(fake.ipcMain.eventNames()).toEqual([])
  })

  it('dispose removes every handler and subscription', async () => {
    await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    expect(host.listenerCount()).toBe(1)
    ipc.dispose()
    expect(fake.ipcMain.handlers.size).toBe(0)
    expect(host.listenerCount()).toBe(0)
  })
})

// Table-driven over whatever is actually registered, so a handler added without the guard fails here.
describe('every registered handler validates the sender and the params', () => {
  const channels = () => [...fake.ipcMain.handlers.keys()]

  it('covers all channels', () => expect(channels().length).toBe(BRIDGE_CALL_NAMES.length + PAIRING_CALL_NAMES.length + 3))

  const foreignCases: Array<[string, () => { sender: FakeWebContents; frame: FakeFrame | null }]> = [
    ['another web contents (same app URL)', () => {
      const other = new FakeWebContents('app://loopdesk/index.html')
      return { sender: other, frame: other.mainFrame }
    }],
    ['a subframe of our window', () => ({ sender: ours, frame: new FakeFrame('app://loopdesk/index.html', ours.mainFrame) })],
    ['our top frame navigated to a remote page', () => ({ sender: ours, frame: new FakeFrame('https://evil.example/') })],
    ['a look-alike host', () => ({ sender: ours, frame: new FakeFrame('app://loopdesk.evil/index.html') })],
    ['a file:// page', () => ({ sender: ours, frame: new FakeFrame('file:///etc/passwd') })],
    ['a destroyed frame (senderFrame null)', () => ({ sender: ours, frame: null })],
  ]

  for (const [label, make] of foreignCases) {
    it(`rejects ${label} with FORBIDDEN and never reaches the runtime or the gateway's pairing`, async () => {
      const { request } = pending.request(ask(), Date.now())
      const heard: PairingEvent[] = []
      pairing.subscribe((e) => heard.push(e))
      for (const channel of channels()) {
        const { sender, frame } = make()
        const params = channel.startsWith('loopdesk:pairing') && channel !== ipcChannel('pairingList') ? { requestId: request.requestId } : goodParamsFor(channel)
        const res = await fake.ipcMain.invoke(channel, sender, frame, params)
        expect(res, channel).toEqual({ ok: false, error: expect.objectContaining({ code: 'FORBIDDEN' }) })
      }
      expect(host.calls).toEqual([])
      expect(host.listenerCount()).toBe(0)
      // the request is still waiting, nobody was told anything, the device is not paired
      expect(pending.list(Date.now()).map((r) => r.requestId)).toEqual([request.requestId])
      expect(heard).toEqual([])
      expect(paired.isPaired(PHONE, `key-${PHONE}`)).toBe(false)
      // and no forwarder was left behind for anyone
      pairing.requested(request)
      expect(ours.sent).toEqual([])
      expect(ipc.subscriptionCount()).toBe(0)
    })
  }

  it('rejects every call once our window is gone', async () => {
    ours.destroy()
    for (const channel of channels()) {
      const res = await invoke(channel, goodParamsFor(channel))
      expect(res.error?.code, channel).toBe('FORBIDDEN')
    }
    expect(host.calls).toEqual([])
  })

  it('rejects bad params with INVALID_REQUEST on every channel', async () => {
    for (const channel of channels()) {
      for (const bad of [{ bogus: 1 }, 'text', 42, [1, 2], null]) {
        const res = await invoke(channel, bad)
        expect(res, `${channel} ${JSON.stringify(bad)}`).toEqual({
          ok: false,
          error: expect.objectContaining({ code: 'INVALID_REQUEST' }),
        })
      }
    }
    expect(host.calls).toEqual([])
    expect(host.listenerCount()).toBe(0)
  })

  it('passes good params from our top frame through to the runtime handler', async () => {
    for (const name of BRIDGE_CALL_NAMES) {
      const res = await invoke(ipcChannel(name), GOOD[name])
      expect(res, name).toEqual({ ok: true, data: expect.objectContaining({ handled: BRIDGE_METHODS[name] }) })
    }
    expect(host.calls.map((c) => c.method)).toEqual(BRIDGE_CALL_NAMES.map((n) => BRIDGE_METHODS[n]))
    expect(host.calls.every((c) => (c.ctx as { transport: string }).transport === 'ipc')).toBe(true)
    expect(host.calls[0].params).toEqual(GOOD.run)
  })

  it('treats missing params as {} (calls without arguments)', async () => {
    const res = await invoke(ipcChannel('health'), undefined)
    expect(res.ok).toBe(true)
    const bad = await invoke(ipcChannel('history'), undefined)
    expect(bad.error.code).toBe('INVALID_REQUEST')
  })

  it('accepts the dev server origin only when configured', async () => {
    ipc.dispose()
    ipc = registerBridgeIpc({ host, getWebContents: () => ours as any, policy: { devOrigin: 'http://localhost:5173' } })
    ours.mainFrame.url = 'http://localhost:5173/'
    expect((await invoke(ipcChannel('health'), {})).ok).toBe(true)
    ours.mainFrame.url = 'http://localhost:5174/'
    expect((await invoke(ipcChannel('health'), {})).error.code).toBe('FORBIDDEN')
  })

  it('answers recentEvents compact: a long reply’s events cross into the page once, not once per event', async () => {
    const reply = 'x'.repeat(1000)
    const events = Array.from({ length: 100 }, (_, i) => ({
      runId: 'r1',
      seq: i + 1,
      stream: 'assistant',
      ts: i,
      data: { text: reply.slice(0, (i + 1) * 10), delta: 'x'.repeat(10) },
    }))
    ;(host.handlers as any)['loopdesk.events.recent'] = async () => ({ events, approvals: [] })
    const res = await invoke(ipcChannel('recentEvents'), GOOD.recentEvents)
    expect(res.ok).toBe(true)
    expect(JSON.stringify(res).length).toBeLessThan(3 * JSON.stringify(events.at(-1)).length + 100 * 100)
    expect(res.data.events[0].data).toEqual({ text: 'x'.repeat(10), delta: 'x'.repeat(10) })
    expect(res.data.events[1].data).toEqual({ delta: 'x'.repeat(10), textLength: 20 })
    expect(events[1].data.text).toHaveLength(20) // the runtime's own events are left as they were
  })

  it('turns a throwing handler into a structured error', async () => {
    ;(host.handlers as any).health = async () => {
      throw new Error('boom')
    }
    expect(await invoke(ipcChannel('health'), {})).toEqual({ ok: false, error: { code: 'UNAVAILABLE', message: 'boom' } })
  })
})

describe('runtime still starting', () => {
  it('calls made before the runtime is ready wait for it, then dispatch', async () => {
    ipc.dispose()
    let resolve!: (h: FakeHost) => void
    ipc = registerBridgeIpc({ host: new Promise<FakeHost>((r) => (resolve = r)), getWebContents: () => ours as any })
    let settled = false
    const pending = invoke(ipcChannel('health'), {}).then((r) => ((settled = true), r))
    const sub = invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    // the sender check does not wait for the runtime
    expect(await invoke(ipcChannel('health'), {}, new FakeWebContents())).toMatchObject({ error: { code: 'FORBIDDEN' } })
    await new Promise((r) => setTimeout(r, 10))
    expect(settled).toBe(false)
    resolve(host)
    expect(await pending).toEqual({ ok: true, data: { handled: 'health' } })
    expect((await sub).ok).toBe(true)
    expect(host.listenerCount()).toBe(1)
  })

  it('calls fail with UNAVAILABLE when the runtime could not start', async () => {
    ipc.dispose()
    ipc = registerBridgeIpc({ host: Promise.reject(new Error('state dir is read-only')), getWebContents: () => ours as any })
    expect(await invoke(ipcChannel('health'), {})).toEqual({ ok: false, error: { code: 'UNAVAILABLE', message: 'state dir is read-only' } })
    expect((await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)).error.code).toBe('UNAVAILABLE')
  })
})

describe('subscriptions', () => {
  const chat = (sessionKey: string, runId = 'r1') =>
    ({ event: 'chat', payload: { runId, sessionKey, seq: 1, state: 'delta' } }) as const

  it('forwards matching events to the subscribing web contents, tagged with the subId', async () => {
    expect(await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)).toEqual({ ok: true, data: { subscribed: true, subId: `${PAGE}-1` } })
    host.emit(chat('agent:main:main'))
    host.emit(chat('agent:main:other'))
    expect(ours.sent).toEqual([{ channel: ipcChannel('event'), args: [{ subId: `${PAGE}-1`, event: chat('agent:main:main') }] }])
  })

  it('sends assistant events compact (delta + textLength) once the subscription has the text so far', async () => {
    await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    const a = (seq: number, text: string, delta: string) =>
      ({ event: 'agent', payload: { runId: 'r1', seq, stream: 'assistant', ts: seq, sessionKey: 'agent:main:main', data: { text, delta } } }) as const
    host.emit(a(1, 'Hel', 'Hel'))
    host.emit(a(2, 'Hello', 'lo'))
    const datas = ours.sent.map((s) => (s.args[0] as any).event.payload.data)
    expect(datas).toEqual([{ text: 'Hel', delta: 'Hel' }, { delta: 'lo', textLength: 5 }])
  })

  it('sends streamed reasoning (thinking) compact too, apart from the reply of the same run', async () => {
    await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    const e = (seq: number, stream: 'assistant' | 'thinking', text: string, delta: string) =>
      ({ event: 'agent', payload: { runId: 'r1', seq, stream, ts: seq, sessionKey: 'agent:main:main', data: { text, delta } } }) as const
    host.emit(e(1, 'thinking', 'Let', 'Let'))
    host.emit(e(2, 'thinking', 'Let me', ' me'))
    host.emit(e(3, 'assistant', 'Ok', 'Ok'))
    host.emit(e(4, 'thinking', 'Let me see', ' see'))
    const datas = ours.sent.map((s) => (s.args[0] as any).event.payload.data)
    expect(datas).toEqual([{ text: 'Let', delta: 'Let' }, { delta: ' me', textLength: 6 }, { text: 'Ok', delta: 'Ok' }, { delta: ' see', textLength: 10 }])
  })

  it('filters by event name', async () => {
    await invoke(ipcChannel('subscribe'), { subId: `${PAGE}-2`, filter: { events: ['tick'] } })
    host.emit(chat('k'))
    host.emit({ event: 'tick', payload: { ts: 1 } })
    expect(ours.sent.map((s) => (s.args[0] as any).event.event)).toEqual(['tick'])
  })

  it('rejects bad filters and duplicate or excess subscriptions', async () => {
    for (const bad of [
      { subId: `${PAGE}-9`, filter: { events: ['nope'] } },
      { subId: `${PAGE}-9`, filter: { sessionKey: '' } },
      { subId: `${PAGE}-9`, filter: { extra: 1 } },
      { subId: 'bad id', filter: {} },
      { subId: 'x', filter: {} },
      { subId: 'short-1', filter: {} },
      { subId: `${PAGE}-9` },
    ]) {
      expect((await invoke(ipcChannel('subscribe'), bad)).error.code, JSON.stringify(bad)).toBe('INVALID_REQUEST')
    }
    await invoke(ipcChannel('subscribe'), { subId: `${PAGE}-0`, filter: {} })
    expect((await invoke(ipcChannel('subscribe'), { subId: `${PAGE}-0`, filter: {} })).error.code).toBe('INVALID_REQUEST')
    for (let i = 1; i < MAX_SUBSCRIPTIONS; i++) await invoke(ipcChannel('subscribe'), { subId: `${PAGE}-${i}`, filter: {} })
    expect(ipc.subscriptionCount(ours.id)).toBe(MAX_SUBSCRIPTIONS)
    expect((await invoke(ipcChannel('subscribe'), { subId: `${PAGE}-999`, filter: {} })).error.code).toBe('INVALID_REQUEST')
  })

  it('unsubscribe stops delivery', async () => {
    await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    expect(await invoke(ipcChannel('unsubscribe'), UNSUBSCRIBE_GOOD)).toEqual({ ok: true, data: { unsubscribed: true } })
    host.emit(chat('agent:main:main'))
    expect(ours.sent).toEqual([])
    expect(host.listenerCount()).toBe(0)
  })

  it("drops an old page's forwarders when a reloaded page subscribes, and all of them on destroy", async () => {
    await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    await invoke(ipcChannel('subscribe'), { subId: `${PAGE}-2`, filter: {} })
    // navigation events alone change nothing (a blocked navigation also starts one)
    ours.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false })
    expect(host.listenerCount()).toBe(2)
    await invoke(ipcChannel('subscribe'), { subId: 'page0002-1', filter: {} })
    expect(host.listenerCount()).toBe(1)
    host.emit(chat('agent:main:main'))
    expect(ours.sent.map((m) => (m.args[0] as { subId: string }).subId)).toEqual(['page0002-1'])
    ours.destroy()
    expect(host.listenerCount()).toBe(0)
    expect(ipc.subscriptionCount()).toBe(0)
  })

  it('cleans up when the renderer process dies', async () => {
    await invoke(ipcChannel('subscribe'), SUBSCRIBE_GOOD)
    ours.emit('render-process-gone', {}, { reason: 'crashed' })
    expect(host.listenerCount()).toBe(0)
  })

})

describe("device pairing over IPC (the gateway's DevicePairing, as device.pair.* serves it)", () => {
  const events = () => ours.sent.filter((m) => m.channel === ipcChannel('event')).map((m) => m.args[0] as { subId: string; event: PairingEvent })

  it('lists the pending requests and the paired devices', async () => {
    const { request } = pending.request(ask(), Date.now())
    const res = await invoke(ipcChannel('pairingList'), {})
    expect(res).toEqual({ ok: true, data: { pending: [request], paired: [], loopdeskRejected: [] } })
    expect(res).toEqual(pairing.list({}))
    // absent params are {} as in dispatch
    expect((await invoke(ipcChannel('pairingList'), undefined)).ok).toBe(true)
  })

  it('approve pairs the device and tells subscribers; reject drops the request', async () => {
    expect(await invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-1` })).toEqual({ ok: true, data: { subscribed: true, subId: `${PAGE}-1` } })
    const phone = pending.request(ask(), Date.now()).request
    pairing.requested(phone)
    expect(events()).toEqual([{ subId: `${PAGE}-1`, event: { event: 'device.pair.requested', payload: phone } }])

    const approved = await invoke(ipcChannel('pairingApprove'), { requestId: phone.requestId })
    expect(approved).toMatchObject({ ok: true, data: { requestId: phone.requestId, device: { deviceId: PHONE, clientId: 'openclaw-ios', platform: 'iOS', roles: ['operator'], scopes: ['operator.read'] } } })
    expect(paired.isPaired(PHONE, `key-${PHONE}`)).toBe(true)
    expect(events()[1]).toEqual({ subId: `${PAGE}-1`, event: { event: 'device.pair.resolved', payload: { requestId: phone.requestId, deviceId: PHONE, decision: 'approved', ts: expect.any(Number) } } })

    const tablet = pending.request(ask('cd'.repeat(32)), Date.now()).request
    expect(await invoke(ipcChannel('pairingReject'), { requestId: tablet.requestId })).toEqual({ ok: true, data: { requestId: tablet.requestId, deviceId: 'cd'.repeat(32) } })
    expect(paired.isPaired('cd'.repeat(32), `key-${'cd'.repeat(32)}`)).toBe(false)
    expect(events()[2].event).toMatchObject({ event: 'device.pair.resolved', payload: { requestId: tablet.requestId, decision: 'rejected' } })
    expect(pending.list(Date.now())).toEqual([])
  })

  it('an answered or unknown request is INVALID_REQUEST with details.code PAIRING_REQUEST_NOT_FOUND', async () => {
    const { request } = pending.request(ask(), Date.now())
    expect((await invoke(ipcChannel('pairingReject'), { requestId: request.requestId })).ok).toBe(true)
    for (const channel of [ipcChannel('pairingApprove'), ipcChannel('pairingReject')]) {
      expect(await invoke(channel, { requestId: request.requestId })).toEqual({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: expect.stringContaining(`unknown pairing request: ${request.requestId}`), details: { code: 'PAIRING_REQUEST_NOT_FOUND' } },
      })
    }
    expect(paired.isPaired(PHONE, `key-${PHONE}`)).toBe(false)
  })

  it('lists a rejected device (loopdeskRejected) and pairingLiftRejection lets it ask again, as the gateway does', async () => {
    const tablet = pending.request(ask('cd'.repeat(32)), Date.now()).request
    await invoke(ipcChannel('pairingReject'), { requestId: tablet.requestId })
    const listed = await invoke(ipcChannel('pairingList'), {})
    expect(listed).toMatchObject({ ok: true, data: { pending: [], loopdeskRejected: [{ deviceId: 'cd'.repeat(32), clientId: tablet.clientId, remoteIp: tablet.remoteIp, untilMs: expect.any(Number) }] } })
    expect(listed).toEqual(pairing.list({}))
    expect(await invoke(ipcChannel('pairingLiftRejection'), { deviceId: 'cd'.repeat(32) })).toEqual({ ok: true, data: { deviceId: 'cd'.repeat(32), lifted: true } })
    expect(pending.rejectedFor('cd'.repeat(32), Date.now())).toBe(0)
    expect(await invoke(ipcChannel('pairingLiftRejection'), { deviceId: 'cd'.repeat(32) })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'PAIRING_REJECTION_NOT_FOUND' } } })
    expect(await invoke(ipcChannel('pairingLiftRejection'), { deviceId: 1 })).toEqual({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: 'invalid loopdesk.device.pair.liftRejection params: /deviceId: must be string' },
    })
  })

  it('a removal elsewhere (loopdesk devices remove: device.pair.remove) reaches the window: a waiting request answered, a rejection lifted', async () => {
    await invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-1` })
    const phone = pending.request(ask(), Date.now()).request
    // what the gateway's device.pair.remove calls, for the CLI's connection
    expect(pairing.remove({ deviceId: PHONE })).toEqual({ ok: true, data: { ok: true, deviceId: PHONE, removed: true, loopdeskRequestDropped: phone.requestId } })
    expect(events()).toEqual([{ subId: `${PAGE}-1`, event: { event: 'device.pair.resolved', payload: { requestId: phone.requestId, deviceId: PHONE, decision: 'rejected', ts: expect.any(Number) } } }])

    const tablet = pending.request(ask('cd'.repeat(32)), Date.now()).request
    await invoke(ipcChannel('pairingReject'), { requestId: tablet.requestId })
    expect(pairing.remove({ deviceId: 'cd'.repeat(32) })).toMatchObject({ ok: true, data: { loopdeskRejectionLifted: true } })
    expect(events().at(-1)).toEqual({ subId: `${PAGE}-1`, event: { event: REJECTION_LIFTED_EVENT, payload: { deviceId: 'cd'.repeat(32), ts: expect.any(Number) } } })
  })

  it("the window's own lift (pairingLiftRejection) is heard by every window, as over WebSocket", async () => {
    await invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-1` })
    const tablet = pending.request(ask('cd'.repeat(32)), Date.now()).request
    await invoke(ipcChannel('pairingReject'), { requestId: tablet.requestId })
    const before = events().length
    expect((await invoke(ipcChannel('pairingLiftRejection'), { deviceId: 'cd'.repeat(32) })).ok).toBe(true)
    expect(events().slice(before)).toEqual([{ subId: `${PAGE}-1`, event: { event: REJECTION_LIFTED_EVENT, payload: { deviceId: 'cd'.repeat(32), ts: expect.any(Number) } } }])
    // a refused lift tells nobody
    expect((await invoke(ipcChannel('pairingLiftRejection'), { deviceId: 'cd'.repeat(32) })).ok).toBe(false)
    expect(events().slice(before)).toHaveLength(1)
  })

  it("refuses params as the gateway's device.pair.* methods do (same schema, same words)", async () => {
    const { request } = pending.request(ask(), Date.now())
    const cases: Array<[string, unknown, string]> = [
      [ipcChannel('pairingApprove'), {}, 'invalid device.pair.approve params: /: must have required properties requestId'],
      [ipcChannel('pairingApprove'), { requestId: 7 }, 'invalid device.pair.approve params: /requestId: must be string'],
      [ipcChannel('pairingReject'), { requestId: '' }, 'invalid device.pair.reject params: /requestId: must not have fewer than 1 characters'],
      [ipcChannel('pairingReject'), { requestId: request.requestId, force: true }, "invalid device.pair.reject params: /: unexpected property 'force'"],
      [ipcChannel('pairingList'), { all: true }, "invalid device.pair.list params: /: unexpected property 'all'"],
      [ipcChannel('pairingList'), null, 'invalid device.pair.list params: /: must be object'],
    ]
    for (const [channel, params, message] of cases) {
      expect(await invoke(channel, params), `${channel} ${JSON.stringify(params)}`).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message } })
    }
    // nothing was answered
    expect(pending.list(Date.now()).map((r) => r.requestId)).toEqual([request.requestId])
    for (const bad of [{}, { subId: 'bad id' }, { subId: `${PAGE}-1`, filter: {} }, null]) {
      expect((await invoke(ipcChannel('subscribePairing'), bad)).error.code, JSON.stringify(bad)).toBe('INVALID_REQUEST')
    }
    expect(ipc.subscriptionCount()).toBe(0)
  })

  it("unsubscribe stops delivery; a reloaded page's and a destroyed window's forwarders go", async () => {
    const one = pending.request(ask(), Date.now()).request
    await invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-1` })
    expect(await invoke(ipcChannel('unsubscribe'), { subId: `${PAGE}-1` })).toEqual({ ok: true, data: { unsubscribed: true } })
    pairing.requested(one)
    expect(events()).toEqual([])

    await invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-2` })
    await invoke(ipcChannel('subscribePairing'), { subId: 'page0002-1' }) // the page reloaded
    pairing.requested(one)
    expect(events().map((e) => e.subId)).toEqual(['page0002-1'])
    expect((await invoke(ipcChannel('subscribePairing'), { subId: 'page0002-1' })).error.code).toBe('INVALID_REQUEST') // duplicate
    ours.destroy()
    expect(ipc.subscriptionCount()).toBe(0)
  })

  it('calls made before the gateway listens wait for it; without a gateway they are UNAVAILABLE', async () => {
    ipc.dispose()
    let started!: (p: DevicePairing | undefined) => void
    ipc = registerBridgeIpc({ host, getWebContents: () => ours as any, pairing: new Promise((r) => (started = r)) })
    const { request } = pending.request(ask(), Date.now())
    let settled = false
    const list = invoke(ipcChannel('pairingList'), {}).then((r) => ((settled = true), r))
    const sub = invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-1` })
    await new Promise((r) => setTimeout(r, 10))
    expect(settled).toBe(false)
    started(pairing)
    expect(await list).toMatchObject({ ok: true, data: { pending: [request] } })
    expect((await sub).ok).toBe(true)

    ipc.dispose()
    ipc = registerBridgeIpc({ host, getWebContents: () => ours as any, pairing: Promise.resolve(undefined) })
    for (const channel of [...PAIRING_CALL_NAMES.map((n) => ipcChannel(n))]) {
      expect(await invoke(channel, goodParamsFor(channel)), channel).toEqual({ ok: false, error: NO_GATEWAY })
    }
    expect(await invoke(ipcChannel('subscribePairing'), { subId: `${PAGE}-3` })).toEqual({ ok: false, error: NO_GATEWAY })
    // no pairing option at all (a shell without a gateway): the same
    ipc.dispose()
    ipc = registerBridgeIpc({ host, getWebContents: () => ours as any })
    expect(await invoke(ipcChannel('pairingList'), {})).toEqual({ ok: false, error: NO_GATEWAY })
  })
})
