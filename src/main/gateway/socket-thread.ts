// Main-thread side of the socket thread (LOOPDESK_SOCKET_THREAD=1): starts the worker that owns the listener and
// the sockets (socket-thread-worker.ts) and gives server.ts a facade per connection, so its connection,
// handshake and method code runs unchanged. Writes are batched: one message to the worker per I/O phase (a
// `res` flushes at once, as connection.ts uncorks for it).
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { GatewaySocket, UpgradeInfo } from './gateway-socket'
import { PortInUseError } from './listen'
import { workerEntry, type WorkerEntry } from './socket-thread-entry'
import { SeenKeys, type AcceptView, type FromWorker, type OutOp, type SocketThreadData, type ToWorker } from './socket-thread-protocol'

export { socketThreadAvailable } from './socket-thread-entry'

/** What the gateway's listener (on this thread or the socket thread) gives server.ts. */
export interface GatewayListener {
  port: number
  fellBack: boolean
  /** sockets not yet closed */
  openSockets(): number
  terminateAll(): void
  /** shutdown began: the socket thread stops acking `agent` itself */
  closing(): void
  /** a run id the runtime has, before the first frame that names it goes out (the socket thread's accept) */
  noteRun(runId: string, state?: 'live' | 'ended'): void
  close(): Promise<void>
}

export interface ListenerHooks {
  /** undefined = let the upgrade through, else its refusal */
  admit(info: UpgradeInfo): { status: number; message: string } | undefined
  onConnection(ws: GatewaySocket, info: UpgradeInfo): void
}

const OPEN = 1
const CLOSING = 2
const CLOSED = 3

/** One connection's socket as the main thread sees it: the real one is in the worker. */
class ThreadSocket extends EventEmitter {
  readonly OPEN = OPEN
  readyState: number = OPEN
  /**
   * what ws still buffers, as the worker last reported it (after each batch, then as it drains): frames on
   * their way to the worker do not count — a reader that keeps up would otherwise look slow — so a slow one
   * is seen one batch later than on the main thread
   */
  wsBuffered = 0

  constructor(readonly id: string, private readonly thread: SocketThread) {
    super()
  }

  get bufferedAmount() {
    return this.wsBuffered
  }

  send(text: string) {
    this.thread.queue(['send', this.id, text])
  }

  close(code?: number, reason?: string) {
    if (this.readyState >= CLOSING) return
    this.readyState = CLOSING
    this.thread.queue(['close', this.id, code ?? 1000, reason ?? ''])
    this.thread.flush()
  }

  terminate() {
    if (this.readyState === CLOSED) return
    this.readyState = CLOSING
    this.thread.queue(['terminate', this.id])
    this.thread.flush()
  }

  flushNow() {
    this.thread.flush()
  }

  passedHello(maxPayload: number, scopes: readonly string[]) {
    this.thread.queue(['hello', this.id, maxPayload, [...scopes]])
  }

  closed() {
    this.readyState = CLOSED
    this.emit('close')
  }
}

export class SocketThread implements GatewayListener {
  port = 0
  fellBack = false
  private readonly worker: Worker
  private readonly socks = new Map<string, ThreadSocket>()
  private ops: OutOp[] = []
  private flushScheduled = false
  private stopped: (() => void) | undefined
  private exited = false
  /** run ids told to the worker already (as long as it remembers them) */
  private readonly toldRuns: SeenKeys
  /** runs told live and not yet ended (so each is told once), at most the worker's cap of them */
  private readonly liveRuns = new Set<string>()
  private readonly maxLive: number

  private constructor(
    /** the worker this thread runs */
    readonly entry: WorkerEntry,
    data: SocketThreadData,
    private readonly hooks: ListenerHooks,
  ) {
    this.toldRuns = new SeenKeys(data.dedupeTtlMs, data.dedupeMax)
    this.maxLive = data.dedupeMax * 2
    // its own small young generation: a scavenge there is short, and rare (it keeps only sockets and frames in flight)
    const resourceLimits = { maxYoungGenerationSizeMb: 4 }
    this.worker = entry.viaTsx
      ? new Worker(`import(${JSON.stringify(entry.viaTsx)}).then((m) => m.tsImport(${JSON.stringify(entry.url.href)}, ${JSON.stringify(entry.url.href)}))`, { eval: true, workerData: data, resourceLimits })
      : new Worker(entry.url, { workerData: data, resourceLimits })
  }

  static async start(data: SocketThreadData, hooks: ListenerHooks, cacheDir?: string): Promise<SocketThread> {
    const entry = await workerEntry(cacheDir)
    if (!entry) throw new Error('the socket thread\'s worker is not part of this build')
    const t = new SocketThread(entry, data, hooks)
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err)
      t.worker.once('error', onError)
      t.worker.once('exit', (code) => reject(new Error(`the gateway's socket thread exited (${code}) before listening`)))
      t.worker.on('message', (m: FromWorker) => {
        if (m.t === 'listening') {
          t.port = m.port
          t.fellBack = m.fellBack
          t.worker.off('error', onError)
          t.worker.on('error', (err) => console.error(`gateway socket thread failed: ${err.message}`))
          // a worker that died takes its sockets with it: their connections end, and a close does not wait on it
          t.worker.on('exit', () => {
            t.exited = true
            for (const sock of t.socks.values()) sock.closed()
            t.socks.clear()
            t.stopped?.()
          })
          return resolve(t)
        }
        if (m.t === 'listen-error') {
          void t.worker.terminate()
          return reject(m.portInUse ? new PortInUseError(m.portInUse.port, m.portInUse.host) : new Error(m.message))
        }
        t.onMessage(m)
      })
    })
  }

  private post(m: ToWorker) {
    this.worker.postMessage(m)
  }

  queue(op: OutOp) {
    this.ops.push(op)
    if (this.flushScheduled) return
    this.flushScheduled = true
    setImmediate(() => this.flush())
  }

  flush() {
    this.flushScheduled = false
    if (this.ops.length === 0) return
    const ops = this.ops
    this.ops = []
    this.post({ t: 'ops', ops })
  }

  private onMessage(m: FromWorker) {
    switch (m.t) {
      case 'upgrade': {
        const reject = this.hooks.admit(m.info)
        if (reject) return this.post({ t: 'admit', uid: m.uid, reject })
        // the connection starts now (its budget slot taken before the next upgrade's verdict); the worker
        // completes the upgrade before it reads the batch with the challenge, or reports it closed
        const s = new ThreadSocket(randomUUID(), this)
        this.socks.set(s.id, s)
        this.post({ t: 'admit', uid: m.uid, id: s.id })
        return this.hooks.onConnection(s, m.info)
      }
      case 'frame':
        return void this.socks.get(m.id)?.emit('message', m.text, m.binary, m.acked)
      case 'sent':
        for (const [id, buffered] of m.conns) {
          const s = this.socks.get(id)
          if (s) s.wsBuffered = buffered
        }
        return
      case 'buffered': {
        const s = this.socks.get(m.id)
        if (s) s.wsBuffered = m.buffered
        return
      }
      case 'closed': {
        const s = this.socks.get(m.id)
        this.socks.delete(m.id)
        return s?.closed()
      }
      case 'stopped':
        return this.stopped?.()
    }
  }

  openSockets() {
    return this.socks.size
  }

  terminateAll() {
    this.flush()
    this.post({ t: 'terminate-all' })
  }

  closing() {
    this.post({ t: 'closing' })
  }

  noteRun(runId: string, state?: 'live' | 'ended') {
    // in the batch, ahead of the frames that name it
    const first = this.toldRuns.firstTime(runId, Date.now())
    if (state === 'live') {
      if (this.liveRuns.has(runId)) return
      this.liveRuns.add(runId)
      if (this.liveRuns.size > this.maxLive) this.liveRuns.delete(this.liveRuns.values().next().value!)
      this.queue(['live', runId])
    } else if (state === 'ended') {
      this.liveRuns.delete(runId)
      this.queue(['ended', runId])
    } else if (first) this.queue(['run', runId])
  }

  setView(view: AcceptView) {
    this.post({ t: 'view', view })
  }

  async close() {
    if (this.exited) return
    this.flush()
    await new Promise<void>((resolve) => {
      this.stopped = resolve
      this.post({ t: 'shutdown' })
    })
    await this.worker.terminate()
  }
}
