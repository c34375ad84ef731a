// Builds the Bridge object the preload exposes: exactly the allow-listed calls (the method table's and the
// pairing ones), `subscribe`, `subscribePairing` and the transport name. Nothing generic (no invoke/send/on) and no Electron object reaches the page.
import { BRIDGE_CALL_NAMES, ipcChannel, type Bridge } from '../shared/bridge'
import type { AnyEvent, EventFilter } from '../shared/events'
import type { Result } from '../shared/methods'
import { PAIRING_CALL_NAMES, type PairingEvent } from '../shared/pairing'

/** The two ipcRenderer methods the bridge uses (injected so tests need no Electron). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<any>
  on(channel: string, listener: (event: unknown, ...args: any[]) => void): unknown
}

/** invoke() rejections (uncloneable params, main not ready) become structured errors like every other failure. */
function call(ipc: IpcRendererLike, channel: string, params: unknown): Promise<Result<any>> {
  return ipc.invoke(channel, params ?? {}).catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err)
    const code = /could not be cloned/i.test(message) ? 'INVALID_REQUEST' : 'UNAVAILABLE'
    return { ok: false, error: { code, message } }
  })
}

export function createIpcBridge(ipc: IpcRendererLike): Bridge {
  const calls: Record<string, (params: unknown) => Promise<Result<any>>> = {}
  for (const name of BRIDGE_CALL_NAMES) calls[name] = (params) => call(ipc, ipcChannel(name), params)
  for (const name of PAIRING_CALL_NAMES) calls[name] = (params) => call(ipc, ipcChannel(name), params)

  // One IPC listener for all subscriptions, fanned out by subId.
  // (pairing subscriptions share the channel and the subId space: main tags each message with its subId)
  const listeners = new Map<string, (event: AnyEvent | PairingEvent) => void>()
  let listening = false
  let nextId = 0
  // Random per loaded document: main drops an older document's forwarders when a new page id shows up.
  const page = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')

  /** Registers a listener under a new subId and asks main (channel, params) to forward to it. */
  const open = (channel: string, params: (subId: string) => unknown, listener: (event: AnyEvent | PairingEvent) => void): (() => void) => {
    if (!listening) {
      listening = true
      ipc.on(ipcChannel('event'), (_event, msg: { subId?: unknown; event?: AnyEvent | PairingEvent } | undefined) => {
        const l = typeof msg?.subId === 'string' ? listeners.get(msg.subId) : undefined
        if (!l || !msg?.event) return
        try {
          l(msg.event)
        } catch (err) {
          console.error('[loopdesk] event listener threw:', err)
        }
      })
    }
    const subId = `${page}-${++nextId}`
    listeners.set(subId, listener)
    void call(ipc, channel, params(subId)).then((res) => {
      if (!res.ok) {
        listeners.delete(subId)
        console.error(`[loopdesk] subscribe failed: ${res.error.message}`)
      }
    })
    let active = true
    return () => {
      if (!active) return
      active = false
      listeners.delete(subId)
      void call(ipc, ipcChannel('unsubscribe'), { subId })
    }
  }

  const subscribe = (filter: EventFilter, listener: (event: AnyEvent) => void): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError('subscribe(filter, listener): listener must be a function')
    return open(ipcChannel('subscribe'), (subId) => ({ subId, filter: filter ?? {} }), listener as (e: AnyEvent | PairingEvent) => void)
  }
  const subscribePairing = (listener: (event: PairingEvent) => void): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError('subscribePairing(listener): listener must be a function')
    return open(ipcChannel('subscribePairing'), (subId) => ({ subId }), listener as (e: AnyEvent | PairingEvent) => void)
  }

  return { ...calls, subscribe, subscribePairing, transport: 'ipc' } as unknown as Bridge
}
