// A small Node client for the gateway protocol (used by the CLI, tests and benchmarks):
// challenge → signed connect → hello-ok, request/response correlation, `expectFinal` for `agent`.
import { randomUUID } from 'node:crypto'
import WebSocket from 'ws'
import { ASSISTANT_DELTA_CAP, expandAssistantPayload, expandEventList } from '../shared/assistant-delta'
import type { AgentEvent, AnyEvent } from '../shared/events'
import { FULL_OPERATOR_SCOPES } from '../shared/scopes'
import { createNodeDeviceProof, type NodeDeviceIdentity } from './identity'

export const ALL_OPERATOR_SCOPES: string[] = [...FULL_OPERATOR_SCOPES]

export interface ConnectOptions {
  url: string
  token?: string
  /** a device token from an earlier hello-ok (auth.deviceToken); needs the same identity */
  deviceToken?: string
  /** device identity to sign the connect with; null = connect without one (scopes get cleared) */
  identity: NodeDeviceIdentity | null
  clientId?: string
  clientMode?: string
  clientVersion?: string
  platform?: string
  deviceFamily?: string
  scopes?: string[]
  caps?: string[]
  minProtocol?: number
  maxProtocol?: number
  /** ask for compact assistant events (cap loopdesk.assistant-delta; text rebuilt here). Default true */
  assistantDeltas?: boolean
  /** Origin header (browser emulation in tests) */
  origin?: string
  /** extra HTTP headers for the upgrade request */
  headers?: Record<string, string>
  connectTimeoutMs?: number
}

/** `code` of a handshake error for an upgrade the gateway answered with an HTTP refusal: its message is whole */
export const UPGRADE_REFUSED = 'UPGRADE_REFUSED'
/** code of an 'unreachable' error: another kind of server answered the upgrade (the line names what to check) */
export const NOT_A_GATEWAY = 'NOT_A_GATEWAY'

export type GatewayErrorKind = 'unreachable' | 'auth' | 'handshake' | 'request' | 'timeout' | 'closed'

export class GatewayClientError extends Error {
  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    readonly code?: string,
    readonly details?: unknown,
    readonly payload?: unknown,
    /** when the gateway says the call may be retried, after this long (a rate limit) */
    readonly retryAfterMs?: number,
  ) {
    super(message)
    this.name = 'GatewayClientError'
  }

  /** `details.code` of the gateway's error (e.g. AUTH_TOKEN_MISMATCH), when it sent one */
  get detailCode(): string | undefined {
    const code = this.details && typeof this.details === 'object' ? (this.details as { code?: unknown }).code : undefined
    return typeof code === 'string' ? code : undefined
  }
}

export interface EventFrameIn {
  event: string
  payload?: unknown
  seq?: number
}

export interface RequestOptions {
  /** keep waiting past an `{status:"accepted"}` ack for the final response (agent) */
  expectFinal?: boolean
  timeoutMs?: number
  onAccepted?: (payload: unknown) => void
}

interface Pending {
  resolve: (v: unknown) => void
  reject: (e: Error) => void
  expectFinal: boolean
  onAccepted?: (payload: unknown) => void
  timer?: NodeJS.Timeout
  method: string
}

const AUTH_DETAIL_CODES = new Set([
  'AUTH_TOKEN_MISSING',
  'AUTH_TOKEN_MISMATCH',
  'AUTH_DEVICE_TOKEN_MISMATCH',
  'DEVICE_IDENTITY_REQUIRED',
  'DEVICE_AUTH_SIGNATURE_INVALID',
  'DEVICE_AUTH_NONCE_MISMATCH',
  'DEVICE_AUTH_SIGNATURE_EXPIRED',
  'DEVICE_AUTH_DEVICE_ID_MISMATCH',
  'DEVICE_AUTH_PUBLIC_KEY_INVALID',
  'PAIRING_REQUIRED',
  'CONTROL_UI_ORIGIN_NOT_ALLOWED',
])

/** the gateway's `shutdown` event: it stops (a restart expected in `restartExpectedMs` when it says so) */
export interface GatewayShutdown {
  reason: string
  restartExpectedMs?: number
}

/** `code` of a 'closed' error for a connection the gateway closed because it shut down; `details` is the GatewayShutdown */
export const GATEWAY_SHUTDOWN = 'GATEWAY_SHUTDOWN'
/** OpenClaw closes every client with 1012 (service restart) on shutdown, restart or not */
const CLOSE_SERVICE_RESTART = 1012

/** "the gateway shut down [while …] (reason: its reason); it expects to be back in about N s" */
export function describeGatewayShutdown(s: GatewayShutdown, during = ''): string {
  const back = s.restartExpectedMs !== undefined ? `; it expects to be back in about ${Math.max(1, Math.ceil(s.restartExpectedMs / 1000))} s` : ''
  return `the gateway shut down${during ? ` ${during}` : ''} (reason: ${s.reason})${back}`
}

export class GatewayConnectionClient {
  private pending = new Map<string, Pending>()
  /** the gateway's shutdown event, once it came (it precedes the close) */
  shutdown: GatewayShutdown | undefined
  private shutdownListeners = new Set<(s: GatewayShutdown | undefined) => void>()
  private listeners = new Set<(ev: EventFrameIn) => void>()
  private closeListeners = new Set<(code: number, reason: string) => void>()
  private nextId = 1
  /** per-run assistant text, to rebuild compact assistant events */
  private texts = new Map<string, string>()
  closed = false
  closeCode: number | undefined

  constructor(
    private readonly ws: WebSocket,
    readonly hello: Record<string, any>,
  ) {
    ws.on('message', (data) => this.onMessage(data.toString()))
    ws.on('close', (code, reason) => {
      this.closed = true
      this.closeCode = code
      const why = reason.toString() || `code ${code}`
      // a gateway that shut down says why (its shutdown event, else the 1012 close): not a connection lost anyhow
      if (!this.shutdown && code === CLOSE_SERVICE_RESTART) this.shutdown = { reason: why }
      const lost = () =>
        this.shutdown
          ? new GatewayClientError('closed', describeGatewayShutdown(this.shutdown), GATEWAY_SHUTDOWN, this.shutdown)
          : new GatewayClientError('closed', `gateway connection closed (${why})`)
      for (const [, p] of this.pending) {
        if (p.timer) clearTimeout(p.timer)
        p.reject(lost())
      }
      this.pending.clear()
      this.settleShutdownWaits()
      for (const l of this.closeListeners) l(code, reason.toString())
    })
  }

  private onMessage(text: string) {
    let frame: any
    try {
      frame = JSON.parse(text)
    } catch {
      return
    }
    if (frame?.type === 'event') {
      if (frame.event === 'shutdown') this.noteShutdown(frame.payload)
      if (frame.event === 'agent' && frame.payload && typeof frame.payload === 'object') expandAssistantPayload(this.texts, frame.payload as AgentEvent)
      for (const l of this.listeners) l(frame as EventFrameIn)
      return
    }
    if (frame?.type !== 'res' || typeof frame.id !== 'string') return
    const p = this.pending.get(frame.id)
    if (!p) return
    if (frame.ok && p.expectFinal && frame.payload?.status === 'accepted') {
      p.onAccepted?.(frame.payload)
      return
    }
    this.pending.delete(frame.id)
    if (p.timer) clearTimeout(p.timer)
    if (frame.ok) {
      // answered compact to this cap holder (gateway/assistant-delta.ts): callers get standard events
      if (p.method === 'loopdesk.events.recent' && Array.isArray(frame.payload?.events)) expandEventList(frame.payload.events)
      p.resolve(frame.payload)
    } else {
      const e = frame.error ?? {}
      const retryAfterMs = e.retryable === true && typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined
      p.reject(new GatewayClientError('request', e.message ?? 'request failed', e.code, e.details, frame.payload, retryAfterMs))
    }
  }

  private noteShutdown(payload: unknown) {
    const p = (payload ?? {}) as { reason?: unknown; restartExpectedMs?: unknown }
    this.shutdown = {
      reason: typeof p.reason === 'string' && p.reason ? p.reason : 'gateway stopping',
      ...(typeof p.restartExpectedMs === 'number' && p.restartExpectedMs >= 0 ? { restartExpectedMs: p.restartExpectedMs } : {}),
    }
    this.settleShutdownWaits()
  }

  /** awaitShutdown's waits: the notice came, or the connection closed (with or without one) */
  private settleShutdownWaits() {
    for (const l of this.shutdownListeners) l(this.shutdown)
    this.shutdownListeners.clear()
  }

  /**
   * The gateway's shutdown notice: at once when it came, else once it comes or the connection closes (undefined if
   * it closed without one), or undefined after `maxWaitMs`. For a run that ended because the gateway is stopping:
   * its notice (the reason, a restart expected) follows the run's end.
   */
  awaitShutdown(maxWaitMs: number): Promise<GatewayShutdown | undefined> {
    if (this.shutdown || this.closed) return Promise.resolve(this.shutdown)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.shutdownListeners.delete(done)
        resolve(undefined)
      }, maxWaitMs)
      const done = (s: GatewayShutdown | undefined) => {
        clearTimeout(timer)
        resolve(s)
      }
      this.shutdownListeners.add(done)
    })
  }

  request<T = any>(method: string, params?: unknown, opts: RequestOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new GatewayClientError('closed', 'gateway connection closed'))
    const id = String(this.nextId++)
    return new Promise<T>((resolve, reject) => {
      const p: Pending = {
        resolve: resolve as (v: unknown) => void,
        reject,
        expectFinal: !!opts.expectFinal,
        onAccepted: opts.onAccepted,
        method,
      }
      if (opts.timeoutMs && opts.timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.pending.delete(id)
          reject(new GatewayClientError('timeout', `${method} timed out after ${opts.timeoutMs} ms`))
        }, opts.timeoutMs)
      }
      this.pending.set(id, p)
      const frame: Record<string, unknown> = { type: 'req', id, method }
      if (params !== undefined) frame.params = params
      this.ws.send(JSON.stringify(frame))
    })
  }

  onEvent(listener: (ev: EventFrameIn) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Typed view of runtime events (agent/chat/…) */
  onRuntimeEvent(listener: (ev: AnyEvent) => void): () => void {
    return this.onEvent((f) => listener({ event: f.event, payload: f.payload } as AnyEvent))
  }

  onClose(listener: (code: number, reason: string) => void): () => void {
    this.closeListeners.add(listener)
    return () => this.closeListeners.delete(listener)
  }

  close(code = 1000, reason = 'client closing'): Promise<void> {
    if (this.closed) return Promise.resolve()
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve())
      this.ws.close(code, reason)
      setTimeout(() => {
        this.ws.terminate()
        resolve()
      }, 1000).unref()
    })
  }
}

/** the gateway shed this socket from its full pre-handshake budget before our connect arrived */
const PREAUTH_EVICTED = 'PREAUTH_EVICTED'

/**
 * Opens a socket, answers the challenge with a (signed) connect, and resolves after hello-ok. A socket the gateway
 * evicted from its address's full pending-handshake budget (another process flooding it with idle sockets faster
 * than our connect went out) is opened again, twice at most: the newest socket is the last one evicted.
 */
export async function connectGateway(opts: ConnectOptions): Promise<GatewayConnectionClient> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connectOnce(opts)
    } catch (err) {
      if (!(err instanceof GatewayClientError && err.code === PREAUTH_EVICTED) || attempt >= 2) throw err
    }
  }
}

function connectOnce(opts: ConnectOptions): Promise<GatewayConnectionClient> {
  const scopes = opts.scopes ?? ALL_OPERATOR_SCOPES
  const clientId = opts.clientId ?? 'cli'
  const clientMode = opts.clientMode ?? 'cli'
  const platform = opts.platform ?? process.platform
  return new Promise((resolve, reject) => {
    let settled = false
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.origin) headers.Origin = opts.origin
    const ws = new WebSocket(opts.url, { headers, perMessageDeflate: false })
    const fail = (err: GatewayClientError) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      ws.removeAllListeners('message')
      ws.terminate()
      reject(err)
    }
    const timer = setTimeout(
      () => fail(new GatewayClientError('timeout', `gateway at ${opts.url} did not complete the handshake in time`)),
      opts.connectTimeoutMs ?? 10_000,
    )
    const connectId = randomUUID()
    ws.on('error', (err: NodeJS.ErrnoException) => {
      const refused = err.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(err.message)
      fail(
        new GatewayClientError(
          'unreachable',
          refused ? `gateway not running at ${opts.url} (connection refused)` : `cannot reach gateway at ${opts.url}: ${err.message}`,
          err.code,
        ),
      )
    })
    // An HTTP answer instead of the upgrade: the gateway's own refusals (429: too many connections of this
    // address still in their handshake; 503: stopping) mean it is up — "start one" would mislead. Anything
    // else is not our gateway answering, as before.
    ws.on('unexpected-response', (_req, res) => {
      res.resume()
      const status = res.statusCode ?? 0
      if (status === 429) {
        fail(
          new GatewayClientError(
            'handshake',
            `gateway at ${opts.url} is running but refused the connection: too many connections from this address are still waiting in their handshake (HTTP 429) — another program may be holding them open; try again shortly`,
            UPGRADE_REFUSED,
          ),
        )
      } else if (status === 503) {
        fail(new GatewayClientError('handshake', `gateway at ${opts.url} is running but refused the connection: it is shutting down (HTTP 503)`, UPGRADE_REFUSED))
      } else {
        // (ws's own words, "Unexpected server response", left the user to guess that another server answered)
        fail(new GatewayClientError('unreachable', `cannot reach gateway at ${opts.url}: a server that is no Loopdesk gateway answered there (HTTP ${status}) — check the URL and port`, NOT_A_GATEWAY))
      }
    })
    ws.on('close', (code, reason) => {
      const why = reason.toString()
      const evicted = code === 1008 && why.startsWith('evicted:')
      fail(new GatewayClientError('handshake', `gateway closed the connection during the handshake (${code} ${why})`, evicted ? PREAUTH_EVICTED : undefined))
    })
    ws.on('message', (data) => {
      let frame: any
      try {
        frame = JSON.parse(data.toString())
      } catch {
        return
      }
      if (frame?.type === 'event' && frame.event === 'connect.challenge') {
        const nonce = String(frame.payload?.nonce ?? '')
        const signedAtMs = typeof frame.payload?.ts === 'number' ? frame.payload.ts : Date.now()
        const params: Record<string, unknown> = {
          minProtocol: opts.minProtocol ?? 3,
          maxProtocol: opts.maxProtocol ?? 4,
          client: {
            id: clientId,
            version: opts.clientVersion ?? '0.1.0',
            platform,
            mode: clientMode,
            ...(opts.deviceFamily ? { deviceFamily: opts.deviceFamily } : {}),
          },
          role: 'operator',
          scopes,
          caps: opts.assistantDeltas === false ? (opts.caps ?? []) : [...new Set([...(opts.caps ?? []), ASSISTANT_DELTA_CAP])],
          auth:
            opts.token !== undefined || opts.deviceToken !== undefined
              ? { ...(opts.token !== undefined ? { token: opts.token } : {}), ...(opts.deviceToken !== undefined ? { deviceToken: opts.deviceToken } : {}) }
              : undefined,
        }
        if (opts.identity) {
          params.device = createNodeDeviceProof(opts.identity, {
            clientId,
            clientMode,
            role: 'operator',
            scopes,
            signedAtMs,
            // the token presented is what gets signed: the shared one, else the device token
            token: opts.token || opts.deviceToken || '',
            nonce,
            platform,
            deviceFamily: opts.deviceFamily,
          })
        }
        ws.send(JSON.stringify({ type: 'req', id: connectId, method: 'connect', params }))
        return
      }
      if (frame?.type === 'res' && frame.id === connectId) {
        if (frame.ok) {
          settled = true
          clearTimeout(timer)
          ws.removeAllListeners('message')
          ws.removeAllListeners('close')
          resolve(new GatewayConnectionClient(ws, frame.payload))
        } else {
          const e = frame.error ?? {}
          const detail = e.details?.code as string | undefined
          const kind = detail && AUTH_DETAIL_CODES.has(detail) ? 'auth' : 'handshake'
          fail(new GatewayClientError(kind, e.message ?? 'connect rejected', e.code, e.details))
        }
      }
    })
  })
}
