// The socket thread (LOOPDESK_SOCKET_THREAD=1): owns the HTTP listener and every WebSocket, with a heap of its
// own, so an `agent` ack does not wait for the main thread's GC pauses or run steps. Raw frame I/O only: each
// text frame goes to the main thread, whose connection code (server.ts) answers through a facade
// (socket-thread.ts); the exception is the accept of an `agent` request past hello (socket-thread-protocol.ts).
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { parentPort, workerData } from 'node:worker_threads'
import type { RawData, WebSocket } from 'ws'
import { nameOversizedPreauthClose, setMaxPayload, upgradeInfoOf, wsSocket } from './gateway-socket'
import { answerCappedPing, bindAddress, createEndpoint, loopbackHosts, rawToString } from './http-endpoint'
import { listenWithFallback, PortInUseError } from './listen'
import { rejectUpgrade } from './reject-upgrade'
import { acceptState, FLOW, frameCost, readForAccept, SeenKeys, workerAck, type FromWorker, type SocketThreadData, type ToWorker } from './socket-thread-protocol'

const data = workerData as SocketThreadData
const port = parentPort!
const post = (m: FromWorker) => port.postMessage(m)

interface Sock {
  ws: WebSocket
  /** set at hello-ok: its scopes (the worker acks `agent` only past hello) */
  scopes: ReadonlySet<string> | undefined
  /** frames handed to the main thread that it has not taken yet (frameCost) */
  untaken: number
  paused: boolean
}
const socks = new Map<string, Sock>()
const seen = new SeenKeys(data.dedupeTtlMs, data.dedupeMax)
/** undefined: no view of the runtime (a host without a config), so no acks here */
let state = data.view && acceptState(data.view)
let closing = false
let boundPort = 0

const { httpServer, wss } = createEndpoint({
  staticDir: data.staticDir,
  port: () => boundPort,
  allowedHosts: () => loopbackHosts(data.bind, boundPort),
  preauthMaxPayload: data.preauthMaxPayload,
})

// upgrades wait for the main thread's verdict (its pre-handshake budgets, shutdown)
let nextUid = 0
const pendingUpgrades = new Map<number, { req: IncomingMessage; socket: Duplex; head: Buffer }>()
httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
  socket.on('error', () => socket.destroy())
  const uid = ++nextUid
  pendingUpgrades.set(uid, { req, socket, head })
  post({ t: 'upgrade', uid, info: upgradeInfoOf(req) })
})

function admitted(uid: number, id: string | undefined, reject?: { status: number; message: string }) {
  const p = pendingUpgrades.get(uid)
  pendingUpgrades.delete(uid)
  if (reject || id === undefined) {
    if (p && !p.socket.destroyed) rejectUpgrade(p.socket, reject?.status ?? 503, reject?.message ?? 'refused')
    return
  }
  // the main thread counted this connection in its budgets at its verdict, as it does on its own thread
  // (where the upgrade completes at once): ws completes it here synchronously, or refuses the request
  let upgraded = false
  if (p && !p.socket.destroyed) {
    wss.handleUpgrade(p.req, p.socket, p.head, (ws) => {
      upgraded = true
      onConnection(id, ws)
    })
  }
  if (!upgraded) post({ t: 'closed', id })
}

function onConnection(id: string, ws: WebSocket) {
  const sock: Sock = { ws, scopes: undefined, untaken: 0, paused: false }
  socks.set(id, sock)
  nameOversizedPreauthClose(wsSocket(ws), () => sock.scopes === undefined)
  ws.on('message', (raw: RawData, isBinary: boolean) => {
    const text = isBinary ? '' : rawToString(raw)
    sock.untaken += frameCost(text)
    if (!sock.paused && sock.untaken > FLOW.pauseAt) {
      sock.paused = true
      ws.pause()
    }
    if (isBinary) return post({ t: 'frame', id, text, binary: true })
    if (sock.scopes && state && !closing) {
      const { ack: req, handedKey } = readForAccept(text, sock.scopes, state)
      const now = Date.now()
      if (req && seen.firstTime(req.params.idempotencyKey, now)) {
        ws.send(workerAck(req.id, req.params.idempotencyKey, now))
        return post({ t: 'frame', id, text, binary: false, acked: now })
      }
      if (handedKey !== undefined) seen.firstTime(handedKey, now)
    }
    post({ t: 'frame', id, text, binary: false })
  })
  ws.on('ping', (payload: Buffer) => answerPing(sock, payload))
  ws.on('error', () => {})
  ws.on('close', () => {
    socks.delete(id)
    post({ t: 'closed', id })
  })
}

/** Pongs capped as on the main thread (connection.ts answerPing); the main thread learns a cut-off as a close. */
function answerPing(sock: Sock, payload: Buffer) {
  if (sock.ws.readyState !== sock.ws.OPEN) return
  answerCappedPing(sock.ws, payload, sock.scopes === undefined ? data.preauthMaxPayload : data.maxBufferedBytes)
}

// sockets that had bytes left in ws's buffer: their bufferedAmount is reported as it drains (slow-consumer checks)
const draining = new Set<string>()
const drainTimer = setInterval(() => {
  for (const id of draining) {
    const buffered = socks.get(id)?.ws.bufferedAmount ?? 0
    post({ t: 'buffered', id, buffered })
    if (buffered === 0) draining.delete(id)
  }
}, 20)
drainTimer.unref()

function applyOps(ops: Extract<ToWorker, { t: 'ops' }>['ops']) {
  const sent = new Set<string>()
  const corked: WebSocket[] = []
  for (const op of ops) {
    const sock = socks.get(op[1])
    if (op[0] === 'send') {
      sent.add(op[1])
      if (!sock || sock.ws.readyState !== sock.ws.OPEN) continue
      const socket = (sock.ws as unknown as { _socket?: { cork(): void } })._socket
      // one write per socket per batch (connection.ts corks the same way on the main thread)
      if (socket && !corked.includes(sock.ws)) {
        socket.cork()
        corked.push(sock.ws)
      }
      sock.ws.send(op[2])
    } else if (op[0] === 'run') {
      seen.firstTime(op[1], Date.now())
      continue
    } else if (op[0] === 'live') {
      seen.started(op[1], Date.now())
      continue
    } else if (op[0] === 'ended') {
      seen.ended(op[1], Date.now())
      continue
    } else if (!sock) continue
    else if (op[0] === 'close') {
      try {
        sock.ws.close(op[2], op[3])
      } catch {
        sock.ws.terminate()
      }
    } else if (op[0] === 'terminate') sock.ws.terminate()
    else {
      setMaxPayload(wsSocket(sock.ws), op[2])
      sock.scopes = new Set(op[3])
    }
  }
  for (const ws of corked) (ws as unknown as { _socket: { uncork(): void; destroyed?: boolean } })._socket.uncork()
  if (sent.size === 0) return
  const conns: Array<[string, number]> = []
  for (const id of sent) {
    const buffered = socks.get(id)?.ws.bufferedAmount ?? 0
    if (buffered > 0) draining.add(id)
    conns.push([id, buffered])
  }
  post({ t: 'sent', conns })
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'ops':
      return applyOps(m.ops)
    case 'admit':
      return admitted(m.uid, m.id, m.reject)
    case 'taken':
      for (const [id, cost] of m.conns) {
        const sock = socks.get(id)
        if (!sock) continue
        sock.untaken -= cost
        if (sock.paused && sock.untaken <= FLOW.resumeAt) {
          sock.paused = false
          sock.ws.resume()
        }
      }
      return
    case 'closing':
      closing = true
      return
    case 'view':
      state = acceptState(m.view)
      return
    case 'terminate-all':
      for (const s of socks.values()) s.ws.terminate()
      return
    case 'shutdown':
      wss.close()
      httpServer.close(() => post({ t: 'stopped' }))
      httpServer.closeAllConnections()
      return
  }
})

listenWithFallback(httpServer, { port: data.port, host: bindAddress(data.bind), fallback: data.fallback }).then(
  (bound) => {
    boundPort = bound.port
    post({ t: 'listening', port: bound.port, fellBack: bound.fellBack })
  },
  (err: unknown) =>
    post({
      t: 'listen-error',
      message: err instanceof Error ? err.message : String(err),
      ...(err instanceof PortInUseError ? { portInUse: { port: err.port, host: err.host } } : {}),
    }),
)
