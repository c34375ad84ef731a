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
import { frameCost, SeenKeys, type AcceptView, type FromWorker, type OutOp, type SocketThreadData, type ToWorker } from './socket-thread-protocol'

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
  /** the socket thread's own trouble (it died, was restarted or not) */
  log?: { error(message: string): void; warn?(message: string): void }
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

  /**
   * Gone for the main thread at once (next tick, as ws emits it after destroying its socket): waiting for the
   * worker's report held the connection in the gateway's count and budgets after its peer had seen it end — an
   * evicted pending handshake still counted when the next one was judged (address-key.test.ts, threaded).
   */
  terminate() {
    if (this.readyState === CLOSED) return
    this.readyState = CLOSING
    this.thread.queue(['terminate', this.id])
    this.thread.flush()
    this.thread.forget(this.id)
    process.nextTick(() => this.closed())
  }

  flushNow() {
    this.thread.flush()
  }

  passedHello(maxPayload: number, scopes: readonly string[]) {
    this.thread.queue(['hello', this.id, maxPayload, [...scopes]])
  }

  closed() {
    if (this.readyState === CLOSED) return
    this.readyState = CLOSED
    this.emit('close')
  }
}

export { socketThreadAvailable } from './socket-thread-entry'

/** a worker that dies is restarted on the same port, at most this many times in RESTART_WINDOW_MS */
const MAX_RESTARTS = 3
const RESTART_WINDOW_MS = 60_000

export class SocketThread implements GatewayListener {
  port = 0
  fellBack = false
  private worker!: Worker
  private readonly socks = new Map<string, ThreadSocket>()
  private ops: OutOp[] = []
  private flushScheduled = false
  private stopped: (() => void) | undefined
  /** no worker now (it died; a restart may be under way) */
  private exited = false
  /** run ids told to the worker already (as long as it remembers them): told again to a restarted one */
  private readonly toldRuns: SeenKeys
  private closingSent = false
  private shuttingDown = false
  private restarting: Promise<void> | undefined
  private restarts: number[] = []
  /** runs told live and not yet ended (so each is told once), at most the worker's cap of them */
  private readonly liveRuns = new Set<string>()
  private readonly maxLive: number

  private constructor(
    /** the worker this thread runs */
    readonly entry: WorkerEntry,
    private data: SocketThreadData,
    private readonly hooks: ListenerHooks,
  ) {
    this.toldRuns = new SeenKeys(data.dedupeTtlMs, data.dedupeMax)
    this.maxLive = data.dedupeMax * 2
  }

  static async start(data: SocketThreadData, hooks: ListenerHooks, cacheDir?: string): Promise<SocketThread> {
    const entry = await workerEntry(cacheDir)
    if (!entry) throw new Error('the socket thread\'s worker is not part of this build')
    const t = new SocketThread(entry, data, hooks)
    const bound = await t.spawn(data)
    t.port = bound.port
    t.fellBack = bound.fellBack
    return t
  }

  /** A worker, listening: its port, or why it could not listen. */
  private spawn(data: SocketThreadData): Promise<{ port: number; fellBack: boolean }> {
    const entry = this.entry
    // its own small young generation: a scavenge there is short, and rare (it keeps only sockets and frames in flight)
    const resourceLimits = { maxYoungGenerationSizeMb: 4 }
    const worker = entry.viaTsx
      ? new Worker(`import(${JSON.stringify(entry.viaTsx)}).then((m) => m.tsImport(${JSON.stringify(entry.url.href)}, ${JSON.stringify(entry.url.href)}))`, { eval: true, workerData: data, resourceLimits })
      : new Worker(entry.url, { workerData: data, resourceLimits })
    this.worker = worker
    this.exited = false
    return new Promise((resolve, reject) => {
      let listening = false
      let failure: Error | undefined
      worker.on('error', (err) => {
        failure = err
        if (!listening) reject(err)
      })
      worker.on('exit', (code) => {
        if (!listening) return reject(failure ?? new Error(`the gateway's socket thread exited (${code}) before listening`))
        this.died(failure, code)
      })
      worker.on('message', (m: FromWorker) => {
        if (m.t === 'listening') {
          listening = true
          return resolve({ port: m.port, fellBack: m.fellBack })
        }
        if (m.t === 'listen-error') {
          void worker.terminate()
          return reject(m.portInUse ? new PortInUseError(m.portInUse.port, m.portInUse.host) : new Error(m.message))
        }
        this.onMessage(m)
      })
    })
  }

  /**
   * The worker died (an exception in it, its heap's limit): its sockets went with it, so their connections end
   * here. Unless the gateway is stopping, a new one listens on the same port — the gateway's clients reconnect
   * as after a restart — but a worker that keeps dying is left dead, said loudly: the gateway then takes no
   * connections (its runs go on).
   */
  private died(failure: Error | undefined, code: number) {
    this.exited = true
    this.ops = []
    const open = this.socks.size
    for (const sock of this.socks.values()) sock.closed()
    this.socks.clear()
    if (this.shuttingDown) return this.stopped?.()
    const why = failure ? failure.message : `exit code ${code}`
    const now = Date.now()
    this.restarts = this.restarts.filter((at) => now - at < RESTART_WINDOW_MS)
    if (this.restarts.length >= MAX_RESTARTS) {
      this.hooks.log?.error(`gateway: the socket thread died (${why}), the ${MAX_RESTARTS + 1}th time within ${RESTART_WINDOW_MS / 1000} s: not restarted — the gateway takes no connections until it is restarted`)
      return
    }
    this.restarts.push(now)
    this.hooks.log?.error(`gateway: the socket thread died (${why}); its ${open} connection(s) closed — restarting it on port ${this.port}`)
    this.restarting = this.spawn({ ...this.data, port: this.port, fallback: false }).then(
      () => {
        this.restarting = undefined
        // what the dead one knew and the new one needs before its first upgrade's frames: the runtime's run ids
        // (it would ack a retried key as new), shutdown
        this.post({
          t: 'ops',
          ops: [...[...this.toldRuns.known()].map((runId): OutOp => ['run', runId]), ...[...this.liveRuns].map((runId): OutOp => ['live', runId])],
        })
        if (this.closingSent) this.post({ t: 'closing' })
        this.hooks.log?.warn?.(`gateway: the socket thread listens again on port ${this.port}`)
      },
      (err: unknown) => {
        this.restarting = undefined
        // no worker (spawn had said there was one): a close must not wait for its `stopped`
        this.exited = true
        this.hooks.log?.error(`gateway: the socket thread could not be restarted (${err instanceof Error ? err.message : String(err)}): the gateway takes no connections until it is restarted`)
      },
    )
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

  // what this thread took of each socket's frames, told to the worker once per I/O phase (its flow control)
  private taken = new Map<string, number>()
  private took(id: string, cost: number) {
    if (this.taken.size === 0) {
      setImmediate(() => {
        const conns = [...this.taken]
        this.taken.clear()
        this.post({ t: 'taken', conns })
      })
    }
    this.taken.set(id, (this.taken.get(id) ?? 0) + cost)
  }

  /** the main thread is done with this socket (terminated): what the worker reports of it later is not heard */
  forget(id: string) {
    this.socks.delete(id)
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
        this.took(m.id, frameCost(m.text))
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
    this.closingSent = true
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
      // its TTL from now, as the worker counts it: told to a restarted worker until then, however long it ran
      this.toldRuns.ended(runId, Date.now())
      this.queue(['ended', runId])
    } else if (first) this.queue(['run', runId])
  }

  setView(view: AcceptView) {
    this.data = { ...this.data, view }
    this.post({ t: 'view', view })
  }

  async close() {
    this.shuttingDown = true
    if (this.restarting) await this.restarting
    if (this.exited) return
    this.flush()
    await new Promise<void>((resolve) => {
      this.stopped = resolve
      this.post({ t: 'shutdown' })
    })
    await this.worker.terminate()
  }
}
