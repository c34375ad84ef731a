// The local gateway: an HTTP server (browser UI + /healthz) with a WebSocket endpoint speaking the
// OpenClaw gateway protocol over a RuntimeHost. Electron-free; used by the desktop shell and the CLI.
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import type { RuntimeHost } from '../api/host'
import type { AgentEvent, AnyEvent, EventName } from '../../shared/events'
import { METHOD_NAMES } from '../../shared/methods'
import { DEFAULT_AGENT_ID, MAIN_KEY, mainSessionKey } from '../../shared/session-key'
import { AgentDedupe } from './agent-dedupe'
import { ASSISTANT_DELTA_CAP, AssistantTextTracker, compactAssistantPayload } from './assistant-delta'
import { GatewayConnection, type SendOptions } from './connection'
import { evaluateConnect, NonceLog } from './handshake'
import { listenWithFallback } from './listen'
import { PairedDevices } from './paired-devices'
import { CLOSE, LIMITS, SCOPES, checkConnectParams, checkRequestFrame, type ConnectParams, type GatewayLimits } from './protocol'
import { frameId, handleRequest, parseRequest, type RequestContext } from './requests'
import { eventScope, hasScope } from './scopes'
import { gatewayDir, removeGatewayInfo, writeGatewayInfo } from './state-files'
import { createStaticHandler } from './static'

export type GatewayBind = 'loopback' | 'lan' | 'all'

export interface GatewayLogger {
  debug?(msg: string): void
  info(msg: string): void
  warn(msg: string): void
  error(msg: string): void
}

export interface StartGatewayOptions {
  host: RuntimeHost
  /** default 18789; 0 = any free port */
  port?: number
  bind?: GatewayBind
  /** shared secret every client must present (always required, on every bind) */
  token: string
  stateDir: string
  /** extra browser origins allowed besides the gateway's own */
  allowedOrigins?: string[]
  /** built renderer served in browser mode; null disables; default <repo>/out/renderer */
  staticDir?: string | null
  /** when the port is taken, listen on a free one instead of failing (desktop app) */
  portFallback?: boolean
  /** record the bound port in <stateDir>/gateway/gateway.json (default true) */
  writeInfo?: boolean
  logger?: GatewayLogger
  /** override limits (tests) */
  limits?: Partial<GatewayLimits>
}

export interface GatewayHandle {
  readonly port: number
  /** ws://127.0.0.1:<port> */
  readonly url: string
  /** http://127.0.0.1:<port> */
  readonly httpUrl: string
  /** true when the configured port was taken and another one was chosen */
  readonly fellBack: boolean
  connectionCount(): number
  /** Broadcasts `shutdown`, closes every socket and the server. Idempotent. */
  close(reason?: string, opts?: { restartExpectedMs?: number }): Promise<void>
}

export const DEFAULT_GATEWAY_PORT = 18789
export const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../../out/renderer', import.meta.url))

export const GATEWAY_EVENTS = [
  'connect.challenge',
  'agent',
  'chat',
  'sessions.changed',
  'exec.approval.requested',
  'exec.approval.resolved',
  'queue.changed',
  'tick',
  'shutdown',
] as const

const silentLogger: GatewayLogger = { info() {}, warn() {}, error() {} }

function isLoopbackAddress(addr: string | undefined): boolean {
  if (!addr) return false
  const a = addr.startsWith('::ffff:') ? addr.slice(7) : addr
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a)
}

const hasProxyHeaders = (req: IncomingMessage) =>
  req.headers['x-forwarded-for'] !== undefined || req.headers['x-real-ip'] !== undefined || req.headers.forwarded !== undefined

function bindAddress(bind: GatewayBind): string {
  return bind === 'loopback' ? '127.0.0.1' : '0.0.0.0'
}

export async function startGateway(opts: StartGatewayOptions): Promise<GatewayHandle> {
  const host = opts.host
  const bind = opts.bind ?? 'loopback'
  if (!opts.token || opts.token.length < 16) {
    throw new Error('the gateway requires a token of at least 16 characters (ensureGatewayToken creates one)')
  }
  const limits: GatewayLimits = { ...LIMITS, ...opts.limits }
  const log = opts.logger ?? silentLogger
  mkdirSync(gatewayDir(opts.stateDir), { recursive: true, mode: 0o700 })

  const conns = new Map<string, GatewayConnection>()
  const preauthByIp = new Map<string, number>()
  const dedupe = new AgentDedupe(limits.dedupeTtlMs, limits.dedupeMax)
  const usedNonces = new NonceLog(limits.signatureSkewMs * 2)
  const paired = new PairedDevices(opts.stateDir, (err) => log.warn(`gateway: could not save paired devices: ${String(err)}`))
  const extraOrigins = new Set((opts.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/+$/, '')))
  let port = 0
  let seq = 0
  let closing: Promise<void> | undefined

  const ownOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`])
  const originAllowed = (origin: string) => {
    const o = origin.toLowerCase().replace(/\/+$/, '')
    return ownOrigins().has(o) || extraOrigins.has(o)
  }
  const allowedHosts = () =>
    bind === 'loopback' ? new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) : undefined

  const reqCtx: RequestContext = {
    host,
    dedupe,
    maxUnauthorizedStreak: limits.maxUnauthorizedStreak,
    log: (level, msg) => (level === 'debug' ? log.debug?.(msg) : log[level](msg)),
  }

  // ------------------------------------------------------------------ broadcasting

  /**
   * Sends to every open connection in scope that passes `targeted`; `seq` only on true broadcasts.
   * Serializes once, and only when someone receives it.
   */
  function deliver(event: EventName, payload: unknown, opts: { targeted?: (c: GatewayConnection) => boolean } & SendOptions = {}) {
    const scope = eventScope(event)
    const frameSeq = opts.targeted ? undefined : ++seq
    let text: string | undefined
    for (const c of conns.values()) {
      if (!c.isOpen || !hasScope(c.scopes, scope)) continue
      if (opts.targeted && !opts.targeted(c)) continue
      text ??= JSON.stringify(frameSeq === undefined ? { type: 'event', event, payload } : { type: 'event', event, payload, seq: frameSeq })
      c.sendText(text, { dropIfSlow: opts.dropIfSlow })
    }
  }

  /** Agent events: tool stream only to `tool-events` clients; assistant events compact where negotiated. */
  function deliverAgent(ev: AgentEvent) {
    const isTool = ev.stream === 'tool'
    const frameSeq = isTool ? undefined : ++seq
    const ended = ev.stream === 'lifecycle' && ((ev.data as { phase?: unknown }).phase === 'end' || (ev.data as { phase?: unknown }).phase === 'error')
    let full: string | undefined
    let compact: string | undefined
    for (const c of conns.values()) {
      if (!c.isOpen || !hasScope(c.scopes, SCOPES.read)) continue
      // Tool events carry arguments/results: only for clients that asked for them.
      if (isTool && !c.caps.has('tool-events')) continue
      if (c.assistantTexts && ev.stream === 'assistant' && c.assistantTexts.compactable(ev)) {
        compact ??= agentFrame(compactAssistantPayload(ev), frameSeq)
        c.sendText(compact)
      } else {
        full ??= agentFrame(ev, frameSeq)
        c.sendText(full)
      }
      if (ended) c.assistantTexts?.forget(ev.runId)
    }
  }

  function onHostEvent(ev: AnyEvent) {
    if (closing) return
    switch (ev.event) {
      case 'agent':
        return deliverAgent(ev.payload)
      case 'chat':
        return deliver('chat', ev.payload, { dropIfSlow: ev.payload.state === 'delta' })
      case 'sessions.changed':
        return deliver('sessions.changed', ev.payload, { targeted: (c) => c.sessionsSubscribed })
      case 'exec.approval.requested':
      case 'exec.approval.resolved':
      case 'queue.changed':
        return deliver(ev.event, ev.payload)
      default:
        // tick/shutdown belong to the gateway itself
        return
    }
  }
  const unsubscribeHost = host.subscribe(onHostEvent)

  const tickTimer = setInterval(() => deliver('tick', { ts: Date.now() }), limits.tickIntervalMs)
  tickTimer.unref()

  // ------------------------------------------------------------------ connections

  function releasePreauth(conn: GatewayConnection) {
    if (!conn.preauthCounted) return
    conn.preauthCounted = false
    const n = (preauthByIp.get(conn.remoteAddress) ?? 1) - 1
    if (n <= 0) preauthByIp.delete(conn.remoteAddress)
    else preauthByIp.set(conn.remoteAddress, n)
  }

  function helloOk(conn: GatewayConnection) {
    const now = Date.now()
    return {
      type: 'hello-ok',
      protocol: conn.protocol,
      server: { version: host.info.version, connId: conn.id },
      features: { methods: [...METHOD_NAMES], events: [...GATEWAY_EVENTS] },
      snapshot: {
        presence: [],
        health: { ok: true, ts: now, durationMs: 0 },
        stateVersion: { presence: 0, health: 0 },
        uptimeMs: Math.max(0, now - host.info.startedAt),
        configPath: host.info.configPath,
        stateDir: host.info.stateDir,
        sessionDefaults: { defaultAgentId: DEFAULT_AGENT_ID, mainKey: MAIN_KEY, mainSessionKey: mainSessionKey() },
        authMode: 'token',
      },
      auth: { role: conn.role, scopes: [...conn.scopes] },
      policy: { maxPayload: limits.maxPayload, maxBufferedBytes: limits.maxBufferedBytes, tickIntervalMs: limits.tickIntervalMs },
    }
  }

  function failHandshake(conn: GatewayConnection, id: string, message: string, details?: unknown, code = 'INVALID_REQUEST', closeCode: number = CLOSE.policy) {
    conn.respond(id, { ok: false, error: details === undefined ? { code, message } : { code, message, details } })
    conn.close(closeCode, message)
  }

  function onHandshakeFrame(conn: GatewayConnection, data: RawData, isBinary: boolean) {
    const notConnect = 'invalid handshake: first request must be connect'
    if (isBinary) return failHandshake(conn, 'invalid', notConnect)
    let value: unknown
    try {
      value = JSON.parse(rawToString(data))
    } catch {
      return failHandshake(conn, 'invalid', notConnect)
    }
    if (checkRequestFrame(value) !== undefined) return failHandshake(conn, frameId(value), notConnect)
    const req = value as { id: string; method: string; params?: unknown }
    if (req.method !== 'connect') return failHandshake(conn, req.id, notConnect)
    const problem = checkConnectParams(req.params)
    if (problem) return failHandshake(conn, req.id, `invalid connect params: ${problem}`)

    const result = evaluateConnect({
      params: req.params as ConnectParams,
      token: opts.token,
      nonce: conn.nonce,
      origin: conn.origin,
      isLocal: conn.isLocal,
      originAllowed,
      paired,
      usedNonces,
      now: Date.now(),
      skewMs: limits.signatureSkewMs,
    })
    if (!result.ok) {
      log.info(`gateway: connect rejected (${String(result.details.code ?? result.code)}) from ${conn.remoteAddress}`)
      return failHandshake(conn, req.id, result.message, result.details, result.code, result.closeCode)
    }
    const params = req.params as ConnectParams
    conn.protocol = result.protocol
    conn.role = result.role
    conn.scopes = new Set(result.scopes)
    conn.caps = new Set(result.caps)
    if (conn.caps.has(ASSISTANT_DELTA_CAP)) conn.assistantTexts = new AssistantTextTracker()
    conn.clientId = params.client.id
    conn.clientMode = params.client.mode
    conn.deviceId = result.deviceId
    if (conn.handshakeTimer) clearTimeout(conn.handshakeTimer)
    conn.handshakeTimer = undefined
    releasePreauth(conn)
    conn.state = 'open'
    setMaxPayload(conn.ws, limits.maxPayload)
    conn.respond(req.id, { ok: true, payload: helloOk(conn) })
  }

  function onFrame(conn: GatewayConnection, data: RawData, isBinary: boolean) {
    if (conn.state === 'closed') return
    if (conn.state === 'handshake') return onHandshakeFrame(conn, data, isBinary)
    if (isBinary) {
      conn.respond('invalid', { ok: false, error: { code: 'INVALID_REQUEST', message: 'invalid request frame: binary frames are not supported' } })
      return
    }
    const req = parseRequest(conn, rawToString(data))
    if (!req) return
    handleRequest(reqCtx, conn, req).catch((err) => {
      log.error(`gateway: ${req.method} failed: ${err instanceof Error ? err.message : String(err)}`)
      conn.respond(req.id, { ok: false, error: { code: 'UNAVAILABLE', message: 'internal error' } })
    })
  }

  function onConnection(ws: WebSocket, req: IncomingMessage) {
    const remote = req.socket.remoteAddress ?? 'unknown'
    const originHeader = req.headers.origin
    const conn = new GatewayConnection(
      randomUUID(),
      ws,
      remote,
      isLoopbackAddress(remote) && !hasProxyHeaders(req),
      typeof originHeader === 'string' && originHeader !== '' ? originHeader : undefined,
      randomUUID(),
      () => limits.maxBufferedBytes,
    )
    conns.set(conn.id, conn)
    preauthByIp.set(remote, (preauthByIp.get(remote) ?? 0) + 1)
    conn.preauthCounted = true
    conn.handshakeTimer = setTimeout(() => conn.close(CLOSE.policy, 'handshake timeout'), limits.handshakeTimeoutMs)

    ws.on('message', (data, isBinary) => {
      try {
        onFrame(conn, data, isBinary)
      } catch (err) {
        // never let one bad frame take the server down
        log.error(`gateway: frame handling error: ${err instanceof Error ? err.message : String(err)}`)
        conn.respond('invalid', { ok: false, error: { code: 'INVALID_REQUEST', message: 'invalid request frame' } })
      }
    })
    ws.on('error', (err) => log.debug?.(`gateway: socket error (${conn.id}): ${err.message}`))
    ws.on('close', () => {
      releasePreauth(conn)
      if (conn.handshakeTimer) clearTimeout(conn.handshakeTimer)
      conn.handshakeTimer = undefined
      conn.state = 'closed'
      conns.delete(conn.id)
    })
    conn.send({ type: 'event', event: 'connect.challenge', payload: { nonce: conn.nonce, ts: Date.now() } })
  }

  // ------------------------------------------------------------------ HTTP + upgrade

  const staticDir = opts.staticDir === null ? undefined : (opts.staticDir ?? DEFAULT_STATIC_DIR)
  const httpServer = createServer(createStaticHandler({ staticDir, port: () => port, allowedHosts }))
  httpServer.headersTimeout = 10_000
  httpServer.requestTimeout = 30_000
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.preauthMaxPayload, perMessageDeflate: false })
  wss.on('connection', onConnection)

  httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    if (closing) return rejectUpgrade(socket, 503, 'gateway shutting down')
    const remote = req.socket.remoteAddress ?? 'unknown'
    if ((preauthByIp.get(remote) ?? 0) >= limits.maxPreauthPerIp) {
      return rejectUpgrade(socket, 429, 'too many pending connections')
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  const bound = await listenWithFallback(httpServer, {
    port: opts.port ?? DEFAULT_GATEWAY_PORT,
    host: bindAddress(bind),
    fallback: opts.portFallback ?? false,
  })
  port = bound.port
  const url = `ws://127.0.0.1:${port}`
  const httpUrl = `http://127.0.0.1:${port}`
  if (opts.writeInfo !== false) {
    writeGatewayInfo(opts.stateDir, { port, pid: process.pid, url, startedAt: Date.now() })
  }
  log.info(`gateway: listening on ${url}${bound.fellBack ? ` (port ${opts.port} was taken)` : ''}`)
  host.gatewayLifecycle?.({ phase: 'start', port })

  async function close(reason = 'gateway stopping', closeOpts: { restartExpectedMs?: number } = {}) {
    if (closing) return closing
    closing = (async () => {
      clearInterval(tickTimer)
      unsubscribeHost()
      const payload: { reason: string; restartExpectedMs?: number } = { reason }
      if (closeOpts.restartExpectedMs !== undefined) payload.restartExpectedMs = closeOpts.restartExpectedMs
      const text = JSON.stringify({ type: 'event', event: 'shutdown', payload, seq: ++seq })
      for (const c of conns.values()) {
        if (c.isOpen) c.sendText(text)
        c.close(CLOSE.goingAway, 'gateway shutting down')
      }
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          for (const ws of wss.clients) ws.terminate()
          resolve()
        }, 2000)
        force.unref()
        const check = () => {
          if (wss.clients.size === 0) {
            clearTimeout(force)
            resolve()
          } else setTimeout(check, 10).unref()
        }
        check()
      })
      wss.close()
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve())
        httpServer.closeAllConnections()
      })
      if (opts.writeInfo !== false) removeGatewayInfo(opts.stateDir, process.pid, port)
      host.gatewayLifecycle?.({ phase: 'stop', reason })
      log.info(`gateway: stopped (${reason})`)
    })()
    return closing
  }

  return {
    port,
    url,
    httpUrl,
    fellBack: bound.fellBack,
    connectionCount: () => conns.size,
    close,
  }
}

function agentFrame(payload: AgentEvent, seq: number | undefined): string {
  return JSON.stringify(seq === undefined ? { type: 'event', event: 'agent', payload } : { type: 'event', event: 'agent', payload, seq })
}

function rejectUpgrade(socket: Duplex, status: number, message: string) {
  const body = `${message}\n`
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

function rawToString(data: RawData): string {
  if (typeof data === 'string') return data
  if (Buffer.isBuffer(data)) return data.toString('utf8')
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.from(data as ArrayBuffer).toString('utf8')
}

// ws has no public API to raise the limit after the handshake; the receiver reads `_maxPayload` per frame.
function setMaxPayload(ws: WebSocket, bytes: number) {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload: number } })._receiver
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes
}
