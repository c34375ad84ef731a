// The gateway's HTTP + WebSocket endpoint, built the same way by the listener on the main thread
// (in-process-listener.ts) and by the socket thread's worker (socket-thread-worker.ts).
import { createServer, type Server } from 'node:http'
import { WebSocketServer, type RawData } from 'ws'
import { createStaticHandler } from './static'
import type { GatewayBind } from './server'

/** The address a bind mode listens on. */
export const bindAddress = (bind: GatewayBind): string => (bind === 'loopback' ? '127.0.0.1' : '0.0.0.0')

/** The Host headers a loopback gateway answers on this port (undefined: any — another bind mode). */
export const loopbackHosts = (bind: GatewayBind, port: number): Set<string> | undefined =>
  bind === 'loopback' ? new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) : undefined

export interface EndpointOptions {
  staticDir: string | undefined
  /** the bound port (known once listening) */
  port: () => number
  allowedHosts: () => Set<string> | undefined
  preauthMaxPayload: number
}

/** The HTTP server (the built renderer, /healthz) and the WebSocket server its upgrades go to. */
export function createEndpoint(opts: EndpointOptions): { httpServer: Server; wss: WebSocketServer } {
  const httpServer = createServer(createStaticHandler({ staticDir: opts.staticDir, port: opts.port, allowedHosts: opts.allowedHosts }))
  httpServer.headersTimeout = 10_000
  httpServer.requestTimeout = 30_000
  // autoPong off: pongs are capped (answerCappedPing) — a peer that never reads them made ws queue them without bound
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.preauthMaxPayload, perMessageDeflate: false, autoPong: false })
  return { httpServer, wss }
}

/** A text frame's string, whatever form ws handed it in. */
export function rawToString(data: RawData | string): string {
  if (typeof data === 'string') return data
  if (Buffer.isBuffer(data)) return data.toString('utf8')
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.from(data as ArrayBuffer).toString('utf8')
}

/**
 * Answers a ping unless the peer has left more than `cap` bytes unread: ws would queue pongs without bound for a
 * peer that pings without reading them (one socket in its handshake grew the gateway by ~600 MB in 10 s). Past the
 * cap it is cut off at once (a close frame would queue behind the pongs it does not read): false.
 */
export function answerCappedPing(
  ws: { bufferedAmount: number; pong?(data: Buffer): void; terminate(): void },
  data: Buffer,
  cap: number,
  /** called just before a cut-off */
  onCut?: () => void,
): boolean {
  if (ws.bufferedAmount > cap) {
    onCut?.()
    ws.terminate()
    return false
  }
  ws.pong?.(data)
  return true
}
