import { describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('../main/shell/testing/fake-electron')).electronModule)
import { BRIDGE_CALL_NAMES, ipcChannel } from '../shared/bridge'
import { PAIRING_CALL_NAMES } from '../shared/pairing'
import type { fake as Fake } from '../main/shell/testing/fake-electron'
import { createIpcBridge } from './ipc-bridge'

let fake: typeof Fake

/** Runs the preload in a fresh module graph (it exposes the bridge at load, like in the real window). */
async function loadPreload() {
  vi.resetModules()
  const electron = (await import('electron')) as any
  electron.__reset()
  fake = electron.__fake
  await import('./index')
  expect(fake.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1)
  const [key, api] = fake.contextBridge.exposeInMainWorld.mock.calls[0] as [string, any]
  expect(key).toBe('loopdesk')
  return api
}

describe('preload', () => {
  it('exposes exactly the bridge calls, the pairing calls, subscribe, subscribePairing and the transport name', async () => {
    const api = await loadPreload()
    expect(Object.keys(api).sort()).toEqual([...BRIDGE_CALL_NAMES, ...PAIRING_CALL_NAMES, 'subscribe', 'subscribePairing', 'transport'].sort())
    expect(api.transport).toBe('ipc')
    for (const generic of ['invoke', 'sendSync', 'sendTo', 'on', 'once', 'off', 'removeListener', 'ipcRenderer', 'require', 'process']) {
      expect(api[generic], generic).toBeUndefined()
    }
    for (const name of [...BRIDGE_CALL_NAMES, ...PAIRING_CALL_NAMES, 'subscribePairing']) expect(typeof api[name], name).toBe('function')
    // nothing reachable from the exposed object is the ipcRenderer itself
    expect(Object.values(api)).not.toContain(fake.ipcRenderer)
  })

  it("`send` is the typed chat.send call, not a generic send: the page cannot pick the channel", async () => {
    const api = await loadPreload()
    await api.send('loopdesk:settingsSet', { patch: {} })
    expect(fake.ipcRenderer.invoke).toHaveBeenCalledTimes(1)
    expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith(ipcChannel('send'), 'loopdesk:settingsSet')
  })

  it('each call invokes its own fixed channel with the params', async () => {
    const api = await loadPreload()
    fake.ipcRenderer.invoke.mockResolvedValue({ ok: true, data: 'x' })
    for (const name of [...BRIDGE_CALL_NAMES, ...PAIRING_CALL_NAMES]) {
      expect(await api[name]({ a: name })).toEqual({ ok: true, data: 'x' })
      expect(fake.ipcRenderer.invoke).toHaveBeenLastCalledWith(ipcChannel(name), { a: name })
    }
    expect(ipcChannel('pairingApprove')).toBe('loopdesk:pairingApprove')
    await api.health()
    expect(fake.ipcRenderer.invoke).toHaveBeenLastCalledWith(ipcChannel('health'), {})
  })

  it('turns invoke rejections into structured errors', async () => {
    const api = await loadPreload()
    fake.ipcRenderer.invoke.mockRejectedValueOnce(new Error('An object could not be cloned.'))
    expect(await api.health({ f: () => 1 })).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message: 'An object could not be cloned.' } })
    fake.ipcRenderer.invoke.mockRejectedValueOnce(new Error("No handler registered for 'loopdesk:health'"))
    expect((await api.health({})).error.code).toBe('UNAVAILABLE')
  })
})

describe('subscribe', () => {
  function setup() {
    const ipc = { invoke: vi.fn(async (..._a: unknown[]): Promise<any> => ({ ok: true, data: {} })), on: vi.fn() }
    const bridge = createIpcBridge(ipc)
    const deliver = (msg: unknown) => (ipc.on.mock.calls[0][1] as (e: unknown, m: unknown) => void)({ sender: 'x' }, msg)
    return { ipc, bridge, deliver }
  }
  const ev = { event: 'tick', payload: { ts: 1 } } as const

  it('uses one IPC listener and fans events out by subId', async () => {
    const { ipc, bridge, deliver } = setup()
    const a: unknown[] = []
    const b: unknown[] = []
    bridge.subscribe({ sessionKey: 'k' }, (e) => a.push(e))
    bridge.subscribe({}, (e) => b.push(e))
    expect(ipc.on).toHaveBeenCalledTimes(1)
    expect(ipc.on.mock.calls[0][0]).toBe(ipcChannel('event'))
    const subIds = ipc.invoke.mock.calls.map((c) => (c[1] as { subId: string }).subId)
    // `<random page id>-<n>`, the format main validates
    expect(subIds[0]).toMatch(/^[0-9a-f]{16}-1$/)
    expect(subIds[1]).toBe(subIds[0].replace(/-1$/, '-2'))

    expect(ipc.invoke.mock.calls.map((c) => c[0])).toEqual([ipcChannel('subscribe'), ipcChannel('subscribe')])
    expect(ipc.invoke.mock.calls[0][1]).toEqual({ subId: subIds[0], filter: { sessionKey: 'k' } })
    deliver({ subId: subIds[1], event: ev })
    deliver({ subId: 'unknown', event: ev })
    deliver(undefined)
    expect(a).toEqual([])
    expect(b).toEqual([ev]) // listener gets the AnyEvent only, never the IPC event object
  })

  it('uses a different page id per loaded document', () => {
    const a = setup()
    const b = setup()
    a.bridge.subscribe({}, () => {})
    b.bridge.subscribe({}, () => {})
    const pageOf = (s: ReturnType<typeof setup>) => (s.ipc.invoke.mock.calls[0][1] as { subId: string }).subId.split('-')[0]
    expect(pageOf(a)).not.toBe(pageOf(b))
  })

  it('unsubscribe stops delivery and tells main once', async () => {
    const { ipc, bridge, deliver } = setup()
    const got: unknown[] = []
    const off = bridge.subscribe({}, (e) => got.push(e))
    const subId = (ipc.invoke.mock.calls[0][1] as { subId: string }).subId
    off()
    off()
    deliver({ subId, event: ev })
    expect(got).toEqual([])
    expect(ipc.invoke.mock.calls.filter((c) => c[0] === ipcChannel('unsubscribe'))).toEqual([[ipcChannel('unsubscribe'), { subId }]])
  })

  it('drops the local listener when main refuses the subscription', async () => {
    const { ipc, bridge, deliver } = setup()
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    ipc.invoke.mockResolvedValueOnce({ ok: false, error: { code: 'INVALID_REQUEST', message: 'bad filter' } })
    const got: unknown[] = []
    bridge.subscribe({ events: ['nope' as any] }, (e) => got.push(e))
    const subId = (ipc.invoke.mock.calls[0][1] as { subId: string }).subId
    await new Promise((r) => setTimeout(r, 0))
    deliver({ subId, event: ev })
    expect(got).toEqual([])
    expect(err).toHaveBeenCalled()
    err.mockRestore()
  })

  it('isolates a throwing listener', () => {
    const { bridge, deliver, ipc } = setup()
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    const got: unknown[] = []
    bridge.subscribe({}, () => {
      throw new Error('ui bug')
    })
    bridge.subscribe({}, (e) => got.push(e))
    for (const c of ipc.invoke.mock.calls) deliver({ subId: (c[1] as { subId: string }).subId, event: ev })
    expect(got).toEqual([ev])
    err.mockRestore()
  })

  it('rejects a non-function listener', () => {
    const { bridge } = setup()
    expect(() => bridge.subscribe({}, 'x' as any)).toThrow(TypeError)
    expect(() => bridge.subscribePairing('x' as any)).toThrow(TypeError)
  })

  it('subscribePairing asks main on its own channel and shares the event channel and subIds with subscribe', () => {
    const { ipc, bridge, deliver } = setup()
    const runtime: unknown[] = []
    const pairing: unknown[] = []
    bridge.subscribe({}, (e) => runtime.push(e))
    const off = bridge.subscribePairing((e) => pairing.push(e))
    expect(ipc.on).toHaveBeenCalledTimes(1)
    const [[c1, p1], [c2, p2]] = ipc.invoke.mock.calls as Array<[string, { subId: string }]>
    expect([c1, c2]).toEqual([ipcChannel('subscribe'), ipcChannel('subscribePairing')])
    expect(p2).toEqual({ subId: p1.subId.replace(/-1$/, '-2') })
    const requested = { event: 'device.pair.requested', payload: { requestId: 'r1', deviceId: 'd1' } }
    deliver({ subId: p2.subId, event: requested })
    expect(pairing).toEqual([requested])
    expect(runtime).toEqual([])
    off()
    deliver({ subId: p2.subId, event: requested })
    expect(pairing).toHaveLength(1)
    expect(ipc.invoke.mock.calls.at(-1)).toEqual([ipcChannel('unsubscribe'), { subId: p2.subId }])
  })
})
