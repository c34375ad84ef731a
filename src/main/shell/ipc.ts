// IPC wiring for the preload bridge. One `ipcMain.handle` per Bridge call (fixed allow-list, no generic
// channel). Every handler first checks the sender (top-level frame of our window, app origin), then
// dispatches through the method table, which validates params with the method's closed schema. The
// pairing calls go to the gateway's DevicePairing (GatewayHandle.pairing), which checks params against
// the schemas its device.pair.* methods use.
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron'
import { BRIDGE_CALL_NAMES, BRIDGE_METHODS, ipcChannel, type BridgeCallName } from '../../shared/bridge'
import { eventMatches, type AnyEvent, type EventFilter } from '../../shared/events'
import type { ErrorShape, Result, Results } from '../../shared/methods'
import { PAIRING_CALL_NAMES, type PairingCallName } from '../../shared/pairing'
import type { RuntimeHost } from '../api/host'
import type { PairingApi } from '../gateway/device-pairing'
import { AssistantTextTracker, compactAssistantPayload, compactEventList, isTextStream } from '../gateway/assistant-delta'
import { isAppUrl, type OriginPolicy } from './origin'

export const FORBIDDEN: ErrorShape = { code: 'FORBIDDEN', message: 'IPC sender is not the Loopdesk window' }

/**
 * True only for a message from the top-level frame of our own window's web contents, whose URL is the
 * app origin (or the dev server origin in dev). Subframes, other windows and navigated-away pages fail.
 */
export function isTrustedSender(
  event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>,
  ourContents: WebContents | undefined,
  policy: OriginPolicy = {},
): boolean {
  if (!ourContents || ourContents.isDestroyed() || event.sender !== ourContents) return false
  const frame = event.senderFrame
  if (!frame || frame.parent !== null) return false
  return isAppUrl(frame.url, policy)
}

const invalid = (message: string): Result<never> => ({ ok: false, error: { code: 'INVALID_REQUEST', message } })

/** Pairing calls while no gateway runs (it failed to start, or the shell runs without one). */
export const NO_GATEWAY: ErrorShape = {
  code: 'UNAVAILABLE',
  message: 'device pairing goes through the gateway, which is not running (the log says why it did not start)',
}

const PAIRING_HANDLERS: Record<PairingCallName, (api: PairingApi, params: unknown) => Result<unknown>> = {
  pairingList: (api, p) => api.list(p),
  pairingApprove: (api, p) => api.approve(p),
  pairingReject: (api, p) => api.reject(p),
  pairingLiftRejection: (api, p) => api.liftRejection(p),
}

/** Per web contents cap, so a buggy page cannot pile up forwarders. */
export const MAX_SUBSCRIPTIONS = 64

export interface BridgeIpcOptions {
  /** the runtime, or its pending start: the window opens while it loads and early calls wait for it */
  host: RuntimeHost | Promise<RuntimeHost>
  /** our window's web contents (undefined while no window exists) */
  getWebContents(): WebContents | undefined
  policy?: OriginPolicy
  /**
   * the gateway's pairing (GatewayHandle.pairing), or its pending start: the window opens before the
   * gateway listens and early pairing calls wait for it; undefined = no gateway (calls are UNAVAILABLE)
   */
  pairing?: PairingApi | Promise<PairingApi | undefined>
}

export interface BridgeIpc {
  /** every channel with a registered handler */
  readonly channels: string[]
  /** active subscriptions per web contents id (diagnostics and tests) */
  subscriptionCount(contentsId?: number): number
  dispose(): void
}

type Guarded = (event: IpcMainInvokeEvent, params: unknown) => Promise<Result<unknown>>

export function registerBridgeIpc(opts: BridgeIpcOptions): BridgeIpc {
  // Validation (TypeBox + the method table) is imported here, not at module load, so it loads after the
  // window has started opening; handlers await it (it is ready long before the page's first call).
  const validation = import('./ipc-validation')
  const hostReady = Promise.resolve(opts.host)
  // A failed start is reported by the shell; calls then fail with UNAVAILABLE (see register) instead of hanging.
  hostReady.catch(() => {})
  const pairingReady = Promise.resolve(opts.pairing).catch(() => undefined)
  const trusted = (e: IpcMainInvokeEvent) => isTrustedSender(e, opts.getWebContents(), opts.policy)
  const channels: string[] = []

  // The only way a handler is registered: wrapped in the sender check.
  const register = (channel: string, fn: Guarded) => {
    ipcMain.handle(channel, async (event, params) => {
      if (!trusted(event)) return { ok: false, error: FORBIDDEN }
      try {
        return await fn(event, params)
      } catch (err) {
        return { ok: false, error: { code: 'UNAVAILABLE', message: (err as Error)?.message ?? String(err) } }
      }
    })
    channels.push(channel)
  }

  for (const name of BRIDGE_CALL_NAMES) {
    const method = BRIDGE_METHODS[name as BridgeCallName]
    register(ipcChannel(name), async (_event, params) => {
      const { dispatch } = await validation
      const res = await dispatch((await hostReady).handlers, method, params, { transport: 'ipc' })
      // as the gateway does for its cap holders: a long reply's cumulative texts would cross into the page
      // once per event; the page's bridge rebuilds them (withAssistantText)
      if (method === 'loopdesk.events.recent' && res.ok && Array.isArray((res.data as { events?: unknown }).events)) {
        const data = res.data as Results['loopdesk.events.recent']
        return { ok: true, data: { ...data, events: compactEventList(data.events) } }
      }
      return res
    })
  }

  // ---- subscriptions: one forwarder per (web contents, subId), dropped with the page that made it.
  // A reload replaces the preload and its listeners, so forwarders of the old document must go. Navigation
  // events are no signal for that (a navigation we block still starts, and a new page may subscribe before
  // 'did-navigate' arrives), so the page id inside the subId is: a new page id on the same web contents
  // means the previous document is gone.
  const perContents = new Map<number, { contents: WebContents; page: string; subs: Map<string, () => void> }>()

  const dropAll = (id: number) => {
    const entry = perContents.get(id)
    if (!entry) return
    perContents.delete(id)
    for (const off of entry.subs.values()) off()
  }

  const entryFor = (contents: WebContents, page: string) => {
    let entry = perContents.get(contents.id)
    if (entry && entry.page !== page) {
      for (const off of entry.subs.values()) off()
      entry.subs.clear()
      entry.page = page
    }
    if (!entry) {
      const id = contents.id
      entry = { contents, page, subs: new Map() }
      perContents.set(id, entry)
      contents.once('destroyed', () => dropAll(id))
      contents.once('render-process-gone', () => dropAll(id))
    }
    return entry
  }

  register(ipcChannel('subscribe'), async (event, params) => {
    const { checkSubscribe, problems } = await validation
    if (!checkSubscribe.Check(params)) return invalid(`invalid subscribe params: ${problems(checkSubscribe, params)}`)
    const { subId, filter } = params as { subId: string; filter: EventFilter }
    const host = await hostReady
    const contents = event.sender
    const entry = entryFor(contents, subId.slice(0, subId.lastIndexOf('-')))
    if (entry.subs.has(subId)) return invalid(`subscription '${subId}' already exists`)
    if (entry.subs.size >= MAX_SUBSCRIPTIONS) return invalid(`too many subscriptions (max ${MAX_SUBSCRIPTIONS})`)
    const channel = ipcChannel('event')
    // Assistant events carry the cumulative reply text; sending it whole per delta would copy O(n²) bytes
    // into the renderer for a long reply. Like the gateway's `loopdesk.assistant-delta` cap, send only the
    // delta when it extends what this subscription already got; the renderer rebuilds `text`.
    const texts = new AssistantTextTracker()
    const off = host.subscribe((ev: AnyEvent) => {
      if (!eventMatches(filter, ev) || contents.isDestroyed()) return
      let out: AnyEvent = ev
      if (ev.event === 'agent') {
        const phase = ev.payload.stream === 'lifecycle' ? (ev.payload.data as { phase?: string }).phase : undefined
        if (phase === 'end' || phase === 'error') texts.forget(ev.payload.runId)
        // streamed reasoning (`thinking`) carries its block so far too: the same
        else if (isTextStream(ev.payload) && texts.compactable(ev.payload))
          out = { event: 'agent', payload: compactAssistantPayload(ev.payload) }
      }
      try {
        contents.send(channel, { subId, event: out })
      } catch (err) {
        console.warn(`[loopdesk] dropping ${ev.event} event for subscription ${subId}:`, (err as Error)?.message)
      }
    })
    entry.subs.set(subId, off)
    return { ok: true, data: { subscribed: true, subId } }
  })

  // ---- device pairing: the gateway's own state, not the runtime's (src/shared/pairing.ts)
  for (const name of PAIRING_CALL_NAMES) {
    register(ipcChannel(name), async (_event, params) => {
      const api = await pairingReady
      if (!api) return { ok: false, error: NO_GATEWAY }
      // absent params are {} (as in dispatch); null and other non-objects are refused by the schema
      return PAIRING_HANDLERS[name](api, params)
    })
  }

  // device.pair.requested / resolved, on the event channel like the runtime's, under the page's own subId
  register(ipcChannel('subscribePairing'), async (event, params) => {
    const { checkSubscribePairing, problems } = await validation
    if (!checkSubscribePairing.Check(params)) return invalid(`invalid subscribePairing params: ${problems(checkSubscribePairing, params)}`)
    const { subId } = params as { subId: string }
    const api = await pairingReady
    if (!api) return { ok: false, error: NO_GATEWAY }
    const contents = event.sender
    if (contents.isDestroyed()) return { ok: false, error: FORBIDDEN }
    const entry = entryFor(contents, subId.slice(0, subId.lastIndexOf('-')))
    if (entry.subs.has(subId)) return invalid(`subscription '${subId}' already exists`)
    if (entry.subs.size >= MAX_SUBSCRIPTIONS) return invalid(`too many subscriptions (max ${MAX_SUBSCRIPTIONS})`)
    const channel = ipcChannel('event')
    const off = api.subscribe((ev) => {
      if (contents.isDestroyed()) return
      try {
        contents.send(channel, { subId, event: ev })
      } catch (err) {
        console.warn(`[loopdesk] dropping ${ev.event} event for subscription ${subId}:`, (err as Error)?.message)
      }
    })
    entry.subs.set(subId, off)
    return { ok: true, data: { subscribed: true, subId } }
  })

  register(ipcChannel('unsubscribe'), async (event, params) => {
    const { checkUnsubscribe, problems } = await validation
    if (!checkUnsubscribe.Check(params)) return invalid(`invalid unsubscribe params: ${problems(checkUnsubscribe, params)}`)
    const { subId } = params as { subId: string }
    const entry = perContents.get(event.sender.id)
    const off = entry?.subs.get(subId)
    if (off) {
      entry!.subs.delete(subId)
      off()
    }
    return { ok: true, data: { unsubscribed: Boolean(off) } }
  })

  return {
    channels,
    subscriptionCount: (id) =>
      id === undefined
        ? [...perContents.values()].reduce((n, e) => n + e.subs.size, 0)
        : (perContents.get(id)?.subs.size ?? 0),
    dispose() {
      for (const c of channels) ipcMain.removeHandler(c)
      for (const id of [...perContents.keys()]) dropAll(id)
    },
  }
}
