// The Bridge over the gateway's WebSocket (browser mode). Speaks the OpenClaw protocol: waits for
// connect.challenge, connects with the token and a WebCrypto Ed25519 device identity, correlates
// requests by id, reconnects with backoff, and filters events locally per subscriber.
// Only standard WebSocket/WebCrypto APIs are used (no DOM-only types), so Node tests can drive it too.
import { ASSISTANT_DELTA_CAP, expandAssistantPayload, expandEventList } from '../../../shared/assistant-delta'
import { BRIDGE_METHODS, type Bridge, type BridgeCallName } from '../../../shared/bridge'
import { createWebDeviceProof, ed25519Supported, generateWebDeviceIdentity, type WebDeviceIdentity } from '../../../shared/device-identity'
import { CHAT_COMMANDS_CAP, eventMatches, MODEL_SILENCE_CAP, QUEUE_REMOVED_CAP, REASONING_STATUS_CAP, RUN_WAIT_CAP, SESSION_LIST_ONLY_CAP, TOOL_EVENTS_CAP, TOOL_RESULTS_CAP, type AgentEvent, type AnyEvent, type EventFilter } from '../../../shared/events'
import type { ErrorShape, Result } from '../../../shared/methods'
import { FULL_OPERATOR_SCOPES } from '../../../shared/scopes'
import { isPairingEventName, PAIRING_CALLS, type PairingCallName, type PairingEvent } from '../../../shared/pairing'

/** The subset of the WebSocket API this bridge uses (browser WebSocket and `ws` both fit). */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: ((ev: { code: number; reason: string }) => void) | null
  onerror: ((ev: unknown) => void) | null
}
export type SocketFactory = (url: string) => SocketLike

export type WsBridgeState = 'connecting' | 'open' | 'reconnecting' | 'failed' | 'closed'

export interface WsBridgeStatus {
  state: WsBridgeState
  /** the last connect failure or close reason */
  error?: ErrorShape & { details?: unknown }
  /** consecutive failed attempts since the last successful hello */
  attempt: number
  /** scopes granted at the last hello */
  scopes?: string[]
}

export interface WsBridgeOptions {
  url: string
  token?: string
  socketFactory?: SocketFactory
  /** undefined = generate a per-page key with WebCrypto (when supported); null = connect without one */
  identity?: WebDeviceIdentity | null
  clientVersion?: string
  /** per-request timeout (ms); default 60 s */
  requestTimeoutMs?: number
  /** first reconnect delay and its cap (ms) */
  backoffInitialMs?: number
  backoffMaxMs?: number
  /** connectWsBridge: give up when no hello arrives within this long (ms); default 15 s */
  initialTimeoutMs?: number
  /**
   * a connect (socket open, challenge, hello) not done within this long (ms) is dropped and tried again;
   * default 10 s — a connect a half-open network or a proxy holds never ends on its own
   */
  handshakeTimeoutMs?: number
  /**
   * where the browser says the network is back (`online`; default globalThis): a reconnect waiting out its backoff
   * (up to 30 s after a long outage) goes at once; null = none
   */
  onlineSignal?: OnlineSignal | null
  /**
   * Keeps the device identity and the device token the gateway issued across page reloads: after the
   * shared token was rotated, a reloaded page still holds the old `#token=` and gets in with these.
   */
  credentials?: CredentialStore
}

/** The part of `window` that tells the network came back. */
export interface OnlineSignal {
  addEventListener(type: 'online', listener: () => void): void
  removeEventListener(type: 'online', listener: () => void): void
}

/** Where a page keeps its device identity and device token (browser: see device-credentials.ts). */
export interface CredentialStore {
  load(): Promise<{ identity?: WebDeviceIdentity; deviceToken?: string }>
  saveIdentity(identity: WebDeviceIdentity): Promise<void>
  /** undefined: the token is dead (rejected), forget it */
  saveDeviceToken(token: string | undefined): void
}

export interface WsBridge extends Bridge {
  /** connection state (`status` is the gateway's status call) */
  readonly connection: WsBridgeStatus
  /** hello-ok payload of the current connection */
  readonly hello: Record<string, unknown> | undefined
  onConnectionChange(listener: (s: WsBridgeStatus) => void): () => void
  /** Stops reconnecting and closes the socket; pending calls resolve with UNAVAILABLE. */
  close(): void
}

const OPEN = 1
// Connect failures that retrying cannot fix: stop and tell the user.
const FATAL_CONNECT_CODES = new Set([
  'AUTH_TOKEN_MISSING',
  'AUTH_TOKEN_MISMATCH',
  'AUTH_DEVICE_TOKEN_MISMATCH',
  'DEVICE_IDENTITY_REQUIRED',
  'CONTROL_UI_ORIGIN_NOT_ALLOWED',
  'PROTOCOL_MISMATCH',
  'PAIRING_REQUIRED',
  'DEVICE_AUTH_INVALID',
  'DEVICE_AUTH_DEVICE_ID_MISMATCH',
  'DEVICE_AUTH_PUBLIC_KEY_INVALID',
  'DEVICE_AUTH_SIGNATURE_INVALID',
])

interface Pending {
  resolve: (r: Result<unknown>) => void
  timer: ReturnType<typeof setTimeout>
}

interface Queued {
  method: string
  params: unknown
  resolve: (r: Result<unknown>) => void
  timer: ReturnType<typeof setTimeout>
}

const unavailable = (message: string): Result<never> => ({ ok: false, error: { code: 'UNAVAILABLE', message } })

function defaultSocketFactory(url: string): SocketLike {
  const Ctor = (globalThis as unknown as { WebSocket?: new (u: string) => SocketLike }).WebSocket
  if (!Ctor) throw new Error('WebSocket is not available')
  return new Ctor(url)
}

function platformName(): string {
  const nav = (globalThis as { navigator?: { platform?: string; userAgent?: string } }).navigator
  return nav?.platform || 'web'
}

class WsBridgeImpl {
  readonly transport = 'ws' as const
  status: WsBridgeStatus = { state: 'connecting', attempt: 0 }
  hello: Record<string, unknown> | undefined

  private socket: SocketLike | undefined
  private nextId = 1
  private pending = new Map<string, Pending>()
  private queue: Queued[] = []
  private subscribers = new Set<{ filter: EventFilter; listener: (ev: AnyEvent) => void }>()
  /** device.pair.requested / resolved (the gateway sends them to operator.pairing connections; admin has it) */
  private pairingListeners = new Set<(ev: PairingEvent) => void>()
  private statusListeners = new Set<(s: WsBridgeStatus) => void>()
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined
  private watchdog: ReturnType<typeof setInterval> | undefined
  private lastFrameAt = 0
  private closed = false
  /** per-run assistant text of the current connection (rebuilds compact assistant events) */
  private texts = new Map<string, string>()
  private identity: Promise<WebDeviceIdentity | null>
  /** device token from the last hello: lets this page reconnect after the shared token was rotated */
  private deviceToken: string | undefined
  private readonly factory: SocketFactory

  private readonly online: OnlineSignal | undefined
  /** the network is back: a reconnect waiting out its backoff goes now */
  private readonly onOnline = () => {
    if (this.closed || !this.reconnectTimer) return
    clearTimeout(this.reconnectTimer)
    this.reconnectTimer = undefined
    this.open()
  }

  constructor(private readonly opts: WsBridgeOptions) {
    this.factory = opts.socketFactory ?? defaultSocketFactory
    this.identity = opts.identity !== undefined ? Promise.resolve(opts.identity) : this.loadIdentity()
    const g = globalThis as Partial<OnlineSignal>
    this.online = opts.onlineSignal === null ? undefined : (opts.onlineSignal ?? (typeof g.addEventListener === 'function' ? (g as OnlineSignal) : undefined))
    this.online?.addEventListener('online', this.onOnline)
    this.open()
  }

  /** The stored identity (and its device token) when there is one, else a new key (stored). */
  private async loadIdentity(): Promise<WebDeviceIdentity | null> {
    const store = this.opts.credentials
    const saved = await store?.load().catch(() => undefined)
    if (saved?.identity) {
      this.deviceToken = saved.deviceToken
      return saved.identity
    }
    if (!(await ed25519Supported())) return null
    const identity = await generateWebDeviceIdentity()
    await store?.saveIdentity(identity).catch(() => undefined)
    return identity
  }

  // ------------------------------------------------------------------ connection

  private setStatus(patch: Partial<WsBridgeStatus>) {
    this.status = { ...this.status, ...patch }
    for (const l of this.statusListeners) {
      try {
        l(this.status)
      } catch {
        // a broken listener must not break the bridge
      }
    }
  }

  onStatus(listener: (s: WsBridgeStatus) => void): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  private open() {
    if (this.closed) return
    let socket: SocketLike
    try {
      socket = this.factory(this.opts.url)
    } catch (err) {
      this.setStatus({ error: { code: 'UNAVAILABLE', message: String((err as Error).message ?? err) } })
      return this.scheduleReconnect()
    }
    this.socket = socket
    let connectId: string | undefined
    let helloDone = false
    // a connect that never completes (a half-open network, a proxy holding the upgrade) would leave the page
    // "Reconnecting…" for good: dropped, and tried again with the usual backoff
    const handshake = setTimeout(() => {
      if (this.socket !== socket || helloDone) return
      socket.onclose = null
      socket.onmessage = null
      try {
        socket.close(4000, 'handshake timeout')
      } catch {
        // already closing
      }
      this.socket = undefined
      this.setStatus({ error: { code: 'UNAVAILABLE', message: 'the gateway did not complete the connection in time' } })
      this.scheduleReconnect()
    }, this.opts.handshakeTimeoutMs ?? 10_000)

    socket.onmessage = (ev) => {
      this.lastFrameAt = Date.now()
      let frame: any
      try {
        frame = JSON.parse(typeof ev.data === 'string' ? ev.data : String(ev.data))
      } catch {
        return
      }
      if (!frame || typeof frame !== 'object') return
      if (!helloDone) {
        if (frame.type === 'event' && frame.event === 'connect.challenge' && connectId === undefined) {
          connectId = `c${this.nextId++}`
          void this.sendConnect(socket, connectId, frame.payload)
          return
        }
        if (frame.type === 'res' && frame.id === connectId) {
          if (frame.ok) {
            helloDone = true
            clearTimeout(handshake)
            this.onHello(frame.payload)
          } else {
            this.onConnectRejected(frame.error)
          }
        }
        return
      }
      if (frame.type === 'event') return this.onEvent(frame)
      if (frame.type === 'res' && typeof frame.id === 'string') this.onResponse(frame)
    }
    socket.onclose = (ev) => {
      clearTimeout(handshake)
      if (this.socket !== socket) return
      this.socket = undefined
      this.stopWatchdog()
      this.failPending('connection to the gateway was lost')
      if (this.closed || this.status.state === 'failed') return
      this.hello = undefined
      if (ev.reason && !this.status.error) this.setStatus({ error: { code: 'UNAVAILABLE', message: `closed: ${ev.reason} (${ev.code})` } })
      this.scheduleReconnect()
    }
    socket.onerror = () => {
      // onclose follows and drives the reconnect
    }
  }

  private async sendConnect(socket: SocketLike, id: string, challenge: { nonce?: unknown; ts?: unknown } | undefined) {
    const nonce = typeof challenge?.nonce === 'string' ? challenge.nonce : ''
    // the challenge ts is server time: signing it avoids false "expired" errors from a skewed clock
    const signedAtMs = typeof challenge?.ts === 'number' ? challenge.ts : Date.now()
    const client = { id: 'openclaw-control-ui', version: this.opts.clientVersion ?? '0.1.0', platform: platformName(), mode: 'ui' }
    const params: Record<string, unknown> = {
      minProtocol: 3,
      maxProtocol: 4,
      client,
      role: 'operator',
      scopes: [...FULL_OPERATOR_SCOPES],
      // compact assistant events: long replies cost O(n) bytes instead of O(n²); text is rebuilt in onEvent
      caps: [TOOL_EVENTS_CAP, TOOL_RESULTS_CAP, ASSISTANT_DELTA_CAP, CHAT_COMMANDS_CAP, REASONING_STATUS_CAP, QUEUE_REMOVED_CAP, SESSION_LIST_ONLY_CAP, RUN_WAIT_CAP, MODEL_SILENCE_CAP],
    }
    try {
      const identity = await this.identity
      // The device token is only good with the identity it was issued to; with it, a page that rotated
      // the shared token (Settings → Generate new token) reconnects after the gateway's 4001 close.
      const auth: Record<string, string> = {}
      if (this.opts.token) auth.token = this.opts.token
      if (identity && this.deviceToken) auth.deviceToken = this.deviceToken
      if (Object.keys(auth).length) params.auth = auth
      if (identity) {
        params.device = await createWebDeviceProof(identity, {
          clientId: client.id,
          clientMode: client.mode,
          role: 'operator',
          scopes: [...FULL_OPERATOR_SCOPES],
          signedAtMs,
          token: auth.token || auth.deviceToken || '', // the gateway checks the signature over the token presented
          nonce,
          platform: client.platform,
        })
      }
    } catch {
      // no usable WebCrypto: connect without a device (the gateway then grants no scopes)
    }
    if (socket.readyState === OPEN && this.socket === socket) socket.send(JSON.stringify({ type: 'req', id, method: 'connect', params }))
  }

  private onHello(hello: Record<string, unknown>) {
    this.hello = hello
    this.texts.clear()
    const auth = hello.auth as { scopes?: string[]; deviceToken?: unknown } | undefined
    if (typeof auth?.deviceToken === 'string' && auth.deviceToken && auth.deviceToken !== this.deviceToken) {
      this.deviceToken = auth.deviceToken
      this.opts.credentials?.saveDeviceToken(auth.deviceToken)
    }
    this.setStatus({ state: 'open', attempt: 0, error: undefined, scopes: auth?.scopes })
    this.startWatchdog(Number((hello.policy as { tickIntervalMs?: number } | undefined)?.tickIntervalMs) || 30_000)
    // live session list updates (sessions.changed is only sent to subscribers); failures are harmless
    this.call('sessions.subscribe', {}).catch(() => {})
    const queued = this.queue.splice(0)
    for (const q of queued) {
      clearTimeout(q.timer)
      this.call(q.method, q.params).then(q.resolve)
    }
  }

  private onConnectRejected(error: (ErrorShape & { details?: { code?: string } }) | undefined) {
    const err = error ?? { code: 'UNAVAILABLE', message: 'connect rejected' }
    const detail = (err.details as { code?: string } | undefined)?.code
    if (detail && FATAL_CONNECT_CODES.has(detail)) {
      if (detail === 'AUTH_DEVICE_TOKEN_MISMATCH' && this.deviceToken) {
        // rotated or revoked: never present it again
        this.deviceToken = undefined
        this.opts.credentials?.saveDeviceToken(undefined)
      }
      this.setStatus({ state: 'failed', error: err })
      this.failQueue(err)
      return
    }
    this.setStatus({ error: err })
  }

  private scheduleReconnect() {
    if (this.closed || this.status.state === 'failed') return
    const attempt = this.status.attempt + 1
    const base = this.opts.backoffInitialMs ?? 500
    const max = this.opts.backoffMaxMs ?? 30_000
    const delay = Math.min(max, base * 2 ** Math.min(attempt - 1, 16)) * (0.8 + Math.random() * 0.4)
    this.setStatus({ state: 'reconnecting', attempt })
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined
      this.open()
    }, delay)
  }

  /** Closes a connection that went silent for two tick intervals (the gateway ticks every 30 s). */
  private startWatchdog(tickMs: number) {
    this.stopWatchdog()
    this.lastFrameAt = Date.now()
    this.watchdog = setInterval(() => {
      if (Date.now() - this.lastFrameAt > tickMs * 2) this.socket?.close(4000, 'tick timeout')
    }, tickMs)
  }

  private stopWatchdog() {
    if (this.watchdog) clearInterval(this.watchdog)
    this.watchdog = undefined
  }

  close() {
    if (this.closed) return
    this.closed = true
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    this.online?.removeEventListener('online', this.onOnline)
    this.stopWatchdog()
    this.failPending('bridge closed')
    this.failQueue({ code: 'UNAVAILABLE', message: 'bridge closed' })
    const s = this.socket
    this.socket = undefined
    try {
      s?.close(1000, 'bridge closed')
    } catch {
      // already closing
    }
    this.setStatus({ state: 'closed' })
  }

  private failPending(message: string) {
    for (const [, p] of this.pending) {
      clearTimeout(p.timer)
      p.resolve(unavailable(message))
    }
    this.pending.clear()
  }

  private failQueue(error: ErrorShape) {
    for (const q of this.queue.splice(0)) {
      clearTimeout(q.timer)
      q.resolve({ ok: false, error })
    }
  }

  // ------------------------------------------------------------------ requests and events

  /** Sends a request; waits for a connection first (bounded by the request timeout). */
  call(method: string, params: unknown): Promise<Result<unknown>> {
    const timeoutMs = this.opts.requestTimeoutMs ?? 60_000
    if (this.closed) return Promise.resolve(unavailable('bridge closed'))
    if (this.status.state === 'failed') return Promise.resolve({ ok: false, error: this.status.error ?? { code: 'UNAVAILABLE', message: 'not connected' } })
    const socket = this.socket
    if (!this.hello || !socket || socket.readyState !== OPEN) {
      return new Promise((resolve) => {
        const q: Queued = {
          method,
          params,
          resolve,
          timer: setTimeout(() => {
            this.queue = this.queue.filter((x) => x !== q)
            resolve(unavailable('not connected to the gateway'))
          }, timeoutMs),
        }
        this.queue.push(q)
      })
    }
    const id = String(this.nextId++)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        resolve({ ok: false, error: { code: 'AGENT_TIMEOUT', message: `${method} timed out after ${timeoutMs} ms` } })
      }, timeoutMs)
      this.pending.set(id, { resolve, timer })
      try {
        socket.send(JSON.stringify({ type: 'req', id, method, params }))
      } catch (err) {
        clearTimeout(timer)
        this.pending.delete(id)
        resolve(unavailable(String((err as Error).message ?? err)))
      }
    })
  }

  private onResponse(frame: { id: string; ok: boolean; payload?: unknown; error?: ErrorShape }) {
    const p = this.pending.get(frame.id)
    // `agent` answers twice (ack, then final); the Bridge's `run` resolves with the ack, so the final
    // finds no pending entry and is ignored — the UI follows the run through its events.
    if (!p) return
    this.pending.delete(frame.id)
    clearTimeout(p.timer)
    p.resolve(frame.ok ? { ok: true, data: frame.payload } : { ok: false, error: frame.error ?? { code: 'UNAVAILABLE', message: 'request failed' } })
  }

  private onEvent(frame: { event?: unknown; payload?: unknown }) {
    if (typeof frame.event !== 'string' || frame.event === 'connect.challenge') return
    if (isPairingEventName(frame.event)) {
      if (!frame.payload || typeof frame.payload !== 'object') return
      const pe = { event: frame.event, payload: frame.payload } as PairingEvent
      for (const l of this.pairingListeners) {
        try {
          l(pe)
        } catch {
          // isolate subscribers from each other
        }
      }
      return
    }
    if (frame.event === 'agent' && frame.payload && typeof frame.payload === 'object') {
      expandAssistantPayload(this.texts, frame.payload as AgentEvent)
    }
    const ev = { event: frame.event, payload: frame.payload } as AnyEvent
    for (const s of this.subscribers) {
      if (!eventMatches(s.filter, ev)) continue
      try {
        s.listener(ev)
      } catch {
        // isolate subscribers from each other
      }
    }
  }

  subscribe(filter: EventFilter, listener: (event: AnyEvent) => void): () => void {
    const entry = { filter, listener }
    this.subscribers.add(entry)
    return () => {
      this.subscribers.delete(entry)
    }
  }

  subscribePairing(listener: (event: PairingEvent) => void): () => void {
    const entry = (ev: PairingEvent) => listener(ev)
    this.pairingListeners.add(entry)
    return () => {
      this.pairingListeners.delete(entry)
    }
  }
}

function toBridge(impl: WsBridgeImpl): WsBridge {
  const calls = Object.fromEntries([
    ...(Object.keys(BRIDGE_METHODS) as BridgeCallName[]).map((name) => [name, (params: unknown) => impl.call(BRIDGE_METHODS[name], params ?? {})]),
    // the gateway's own device.pair.* methods (src/shared/pairing.ts)
    ...(Object.keys(PAIRING_CALLS) as PairingCallName[]).map((name) => [name, (params: unknown) => impl.call(PAIRING_CALLS[name], params ?? {})]),
  ])
  // the gateway answers this cap holder's recentEvents compact (gateway/assistant-delta.ts): texts rebuilt here
  const recentEvents = calls.recentEvents as WsBridge['recentEvents']
  calls.recentEvents = async (params: Parameters<WsBridge['recentEvents']>[0]) => {
    const r = await recentEvents(params)
    if (r.ok) expandEventList(r.data.events)
    return r
  }
  const bridge = Object.assign(calls, {
    transport: 'ws' as const,
    subscribe: impl.subscribe.bind(impl),
    subscribePairing: impl.subscribePairing.bind(impl),
    onConnectionChange: impl.onStatus.bind(impl),
    close: impl.close.bind(impl),
  })
  // live getters (Object.assign would copy a one-time snapshot)
  Object.defineProperties(bridge, {
    connection: { get: () => impl.status, enumerable: true },
    hello: { get: () => impl.hello, enumerable: true },
  })
  return bridge as unknown as WsBridge
}

/** Creates the bridge and starts connecting in the background (calls wait for the connection). */
export function createWsBridge(opts: WsBridgeOptions): WsBridge {
  return toBridge(new WsBridgeImpl(opts))
}

/**
 * Creates the bridge and resolves once the first hello-ok arrived. Rejects when the gateway refuses
 * the credentials (token, origin) or no connection succeeds within `initialTimeoutMs`.
 */
export function connectWsBridge(opts: WsBridgeOptions): Promise<WsBridge> {
  const bridge = createWsBridge(opts)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      bridge.close()
      reject(new Error(`could not connect to the gateway at ${opts.url}${bridge.connection.error ? `: ${bridge.connection.error.message}` : ''}`))
    }, opts.initialTimeoutMs ?? 15_000)
    const check = (s: WsBridgeStatus) => {
      if (s.state === 'open') {
        clearTimeout(timer)
        off()
        resolve(bridge)
      } else if (s.state === 'failed') {
        clearTimeout(timer)
        off()
        bridge.close()
        reject(Object.assign(new Error(s.error?.message ?? 'gateway refused the connection'), { code: s.error?.code, details: s.error?.details }))
      }
    }
    const off = bridge.onConnectionChange(check)
    check(bridge.connection)
  })
}
