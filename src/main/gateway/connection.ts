// One WebSocket client of the gateway: its negotiated identity and a send path that enforces the
// per-connection buffered-bytes cap (slow consumers lose droppable frames, or get closed).
import { setMaxListeners } from 'node:events'
import type { AssistantTextTracker } from './assistant-delta'
import type { GatewaySocket } from './gateway-socket'
import { answerCappedPing } from './http-endpoint'
import { CLOSE, type ResponseFrame } from './protocol'
import { toolAudienceFor, type ToolAudience } from './tool-routing'

export type ConnState = 'handshake' | 'open' | 'closed'

export interface SendOptions {
  /** skip this frame (instead of closing the socket) when the client is not keeping up */
  dropIfSlow?: boolean
}

export class GatewayConnection {
  state: ConnState = 'handshake'
  role = 'operator'
  scopes = new Set<string>()
  caps = new Set<string>()
  clientId = ''
  clientMode = ''
  deviceId: string | undefined
  /** 'token' = the shared gateway secret (closed with 4001 when it rotates); 'device-token' = this device's own token */
  authMethod: 'token' | 'device-token' = 'token'
  protocol = 0
  sessionsSubscribed = false
  /** canonical session keys whose transcript appends this connection gets as `session.message` */
  messageSubs = new Set<string>()
  /** of those, the keys subscribed with `includeApprovals` (it gets their `session.approval` events) */
  approvalSubs = new Set<string>()
  /** which runs' tool events this connection gets, and whether with results (set at hello) */
  tools: ToolAudience = toolAudienceFor('', new Set())
  unauthorizedStreak = 0
  /** set by its first frame (a pending connection that sent none may be evicted from a full pre-handshake budget) */
  sentFrame = false
  droppedFrames = 0
  /** set when the client declared `loopdesk.assistant-delta` */
  assistantTexts: AssistantTextTracker | undefined
  handshakeTimer: NodeJS.Timeout | undefined
  /** counted in the per-IP pending-handshake budget */
  preauthCounted = false
  /** which budget: the address, or the address's foreign-origin budget (see `preauthKey` in server.ts) */
  preauthKey = ''
  /** agent.wait requests of this connection not answered yet (bounded: `MAX_PENDING_WAITS` in requests.ts) */
  pendingWaits = 0
  private readonly gone = new AbortController()

  constructor(
    readonly id: string,
    readonly ws: GatewaySocket,
    readonly remoteAddress: string,
    /** direct loopback peer without proxy headers */
    readonly isLocal: boolean,
    /** the browser Origin header, if any */
    readonly origin: string | undefined,
    readonly nonce: string,
    private readonly maxBufferedBytes: () => number,
  ) {
    // one abort listener per pending wait: bounded by MAX_PENDING_WAITS, not a leak
    setMaxListeners(0, this.gone.signal)
  }

  /** aborted once the connection is closed: what its requests still wait on (agent.wait) stops waiting */
  get signal(): AbortSignal {
    return this.gone.signal
  }

  /** the socket is gone (its close event, or the gateway closed it) */
  ended() {
    this.state = 'closed'
    this.gone.abort()
  }

  get isOpen() {
    return this.state === 'open'
  }

  /** Sends a serialized frame. Returns false when it was not sent (closed, dropped, or slow-closed). */
  sendText(text: string, opts: SendOptions = {}): boolean {
    if (this.state === 'closed' || this.ws.readyState !== this.ws.OPEN) return false
    if (this.ws.bufferedAmount > this.maxBufferedBytes()) {
      if (opts.dropIfSlow) {
        this.droppedFrames++
        return false
      }
      this.close(CLOSE.policy, 'slow consumer')
      return false
    }
    this.cork()
    this.ws.send(text)
    return true
  }

  /**
   * Answers a ping (ws's automatic pong is off). A peer that pings without reading its pongs made ws queue
   * them without bound — one socket still in its handshake grew the gateway by ~600 MB in 10 s — so past the
   * cap (`preauthCap` before hello: only the challenge is owed then; the buffered-bytes cap after) it is cut
   * off at once: a close frame would queue behind the pongs it does not read.
   */
  answerPing(data: Buffer, preauthCap: number) {
    if (this.state === 'closed' || this.ws.readyState !== this.ws.OPEN) return
    answerCappedPing(this.ws, data, this.state === 'handshake' ? preauthCap : this.maxBufferedBytes(), () => this.ended())
  }

  private corked = false

  // Frames produced in one burst (e.g. the events of one model read) leave in one write instead of one
  // syscall each: cork the TCP socket on the first send, uncork once the current I/O phase is done.
  private cork() {
    if (this.corked) return
    const socket = (this.ws as unknown as { _socket?: { cork(): void; uncork(): void; destroyed?: boolean } })._socket
    if (!socket || typeof socket.cork !== 'function') return
    this.corked = true
    socket.cork()
    setImmediate(() => this.uncork())
  }

  private uncork() {
    if (!this.corked) return
    this.corked = false
    const socket = (this.ws as unknown as { _socket?: { uncork(): void; destroyed?: boolean } })._socket
    if (socket && !socket.destroyed) socket.uncork()
  }

  send(frame: object, opts?: SendOptions): boolean {
    return this.sendText(JSON.stringify(frame), opts)
  }

  respond(id: string, res: Omit<ResponseFrame, 'type' | 'id'>): boolean {
    const sent = this.send({ type: 'res', id, ...res })
    // a response (an `agent` ack above all) is what a client waits on: out now, with whatever is corked
    // before it, not after the rest of this I/O phase
    this.uncork()
    this.ws.flushNow?.()
    return sent
  }

  close(code: number, reason: string) {
    if (this.state === 'closed') return
    this.ended()
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer)
    // close reasons are limited to 123 bytes by the protocol
    try {
      this.ws.close(code, reason.slice(0, 120))
    } catch {
      this.ws.terminate()
    }
  }
}
