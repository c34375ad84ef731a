import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import { BRIDGE_CALL_NAMES, BRIDGE_METHODS, ipcChannel, type BridgeCallName } from '../../shared/bridge'
import type { ParamsOf } from '../../shared/methods'
import { registerBridgeIpc, MAX_SUBSCRIPTIONS, type BridgeIpc } from './ipc'
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
  modelsProbe: { baseUrl: 'http://127.0.0.1:11434/v1' },
  providerRename: { from: 'local', to: 'lab' },
  queueList: { sessionKey: 'agent:main:main' },
  queueRemove: { sessionKey: 'agent:main:main', id: 'q1' },
  queueHold: { sessionKey: 'agent:main:main' },
  queueRelease: { sessionKey: 'agent:main:main', ids: ['q1'] },
  prefsGet: {},
  prefsSet: { theme: 'dark' },
}

const PAGE = 'page0001'
const SUBSCRIBE_GOOD = { subId: `${PAGE}-1`, filter: { sessionKey: 'agent:main:main' } }
const UNSUBSCRIBE_GOOD = { subId: `${PAGE}-1` }

function goodParamsFor(channel: string): unknown {
  if (channel === ipcChannel('subscribe')) return SUBSCRIBE_GOOD
  if (channel === ipcChannel('unsubscribe')) return UNSUBSCRIBE_GOOD
  const name = channel.replace(/^loopdesk:/, '') as BridgeCallName
  if (!(name in GOOD)) throw new Error(`no sample params for ${channel}`)
  return GOOD[name]
}

let host: FakeHost
let ours: FakeWebContents
let ipc: BridgeIpc

beforeEach(() => {
  resetFake()
  host = createFakeHost()
  ours = new FakeWebContents('app://loopdesk/index.html')
  ipc = registerBridgeIpc({ host, getWebContents: () => ours as any })
})

const invoke = (channel: string, params: unknown, sender: FakeWebContents = ours, frame: FakeFrame | null = sender.mainFrame) =>
  fake.ipcMain.invoke(channel, sender, frame, params) as Promise<any>

describe('IPC registration', () => {
  it('registers exactly the bridge calls plus subscribe/unsubscribe, nothing generic', () => {
    const expected = [...BRIDGE_CALL_NAMES.map((n) => ipcChannel(n)), ipcChannel('subscribe'), ipcChannel('unsubscribe')]
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

  it('covers all channels', () => expect(channels().length).toBe(BRIDGE_CALL_NAMES.length + 2))

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
    it(`rejects ${label} with FORBIDDEN and never reaches the runtime`, async () => {
      for (const channel of channels()) {
        const { sender, frame } = make()
        const res = await fake.ipcMain.invoke(channel, sender, frame, goodParamsFor(channel))
        expect(res, channel).toEqual({ ok: false, error: expect.objectContaining({ code: 'FORBIDDEN' }) })
      }
      expect(host.calls).toEqual([])
      expect(host.listenerCount()).toBe(0)
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
