// What the gateway's connection code needs of a WebSocket: `ws`'s own socket (sockets on the main thread), or
// a socket-thread facade (socket-thread.ts) whose writes go to the worker that owns the real one.
import type { IncomingHttpHeaders } from 'node:http'
import type { RawData, WebSocket } from 'ws'
import { CLOSE } from './protocol'

export interface GatewaySocket {
  readonly readyState: number
  readonly OPEN: number
  readonly bufferedAmount: number
  send(text: string): void
  close(code?: number, reason?: string): void
  terminate(): void
  /** `acked`: from a socket thread, the time it acked this `agent` request itself */
  on(event: 'message', listener: (data: RawData | string, isBinary: boolean, acked?: number) => void): unknown
  on(event: 'close', listener: () => void): unknown
  on(event: 'error', listener: (err: Error) => void): unknown
  /** `ws`'s socket (its automatic pong off: connection.ts answerPing caps them); a facade emits none — the worker's ws answers */
  on(event: 'ping', listener: (data: Buffer) => void): unknown
  pong?(data: Buffer): void
  /** a facade: sends leave now rather than with the rest of this I/O phase (what uncorking is to a TCP socket) */
  flushNow?(): void
  /** a facade: past hello-ok — the frame-size limit and the scopes, for the thread that has the real socket */
  passedHello?(maxPayload: number, scopes: readonly string[]): void
}

/** `ws`'s socket as the gateway uses it */
export const wsSocket = (ws: WebSocket): GatewaySocket => ws as unknown as GatewaySocket

/** What the gateway reads of an upgrade request (the thread's worker sends these over, not the request). */
export interface UpgradeInfo {
  remoteAddress: string
  headers: Pick<IncomingHttpHeaders, 'origin' | 'x-forwarded-for' | 'x-real-ip' | 'forwarded'>
}

export const upgradeInfoOf = (req: { socket: { remoteAddress?: string }; headers: IncomingHttpHeaders }): UpgradeInfo => ({
  remoteAddress: req.socket.remoteAddress ?? 'unknown',
  headers: { origin: req.headers.origin, 'x-forwarded-for': req.headers['x-forwarded-for'], 'x-real-ip': req.headers['x-real-ip'], forwarded: req.headers.forwarded },
})

/**
 * ws closes a frame over `maxPayload` with 1009 and no reason, from inside its receiver; OpenClaw's clients
 * are told "preauth payload too large". ws calls the socket's own `close`, so this instance's close names it.
 */
export function nameOversizedPreauthClose(ws: GatewaySocket, inHandshake: () => boolean) {
  const close = ws.close.bind(ws)
  ws.close = (code?: number, reason?: string) =>
    close(code, code === CLOSE.tooBig && !reason && inHandshake() ? 'preauth payload too large' : reason)
}

/** Past hello-ok: the connection's frame-size limit rises (and a socket thread learns its scopes). */
export function socketPassedHello(ws: GatewaySocket, maxPayload: number, scopes: ReadonlySet<string>) {
  if (ws.passedHello) ws.passedHello(maxPayload, [...scopes])
  else setMaxPayload(ws, maxPayload)
}

// ws has no public API to raise the limit after the handshake; the receiver reads `_maxPayload` per frame.
export function setMaxPayload(ws: GatewaySocket, bytes: number) {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload: number } })._receiver
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes
}
