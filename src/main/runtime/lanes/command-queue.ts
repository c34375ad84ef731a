// In-process FIFO command lanes (OpenClaw §6.1). Each lane runs at most `concurrency` tasks at once
// (default 1); tasks start in the order they were enqueued; a failing task frees its slot like any other.
// Tasks start synchronously when a slot is free, so an idle lane adds no scheduling latency.

export interface EnqueueOptions {
  /** waits at least this long are reported to onWaitExceeded (default 2000 ms) */
  warnAfterMs?: number
  /** called when the task starts: how long it waited and how many tasks were queued ahead of it */
  onWait?: (waitedMs: number, queuedAhead: number) => void
  /** aborting while queued removes the task and rejects with an AbortError */
  signal?: AbortSignal
  /**
   * With `signal`: aborting while queued still rejects at once, but the place is kept and this runs there
   * instead of the task when the lane reaches it — after the tasks ahead, before the ones behind (a stopped
   * run's message is written after the reply that was running, not inside it)
   */
  inPlaceOfAborted?: () => unknown
}

export interface LaneWaitExceeded {
  lane: string
  waitedMs: number
  queuedAhead: number
  queuedNow: number
}

export interface CommandQueueOptions {
  /** initial per-lane concurrency (default `{ main: 4 }`, other lanes 1) */
  concurrency?: Record<string, number>
  /** diagnostic for slow lanes ("lane wait exceeded") */
  onWaitExceeded?: (info: LaneWaitExceeded) => void
}

/** Rejection of tasks removed by clearLane (e.g. /stop clearing a session's queue). */
export class LaneClearedError extends Error {
  constructor(
    readonly lane: string,
    readonly reason: string,
  ) {
    super(`lane ${lane} cleared: ${reason}`)
    this.name = 'LaneClearedError'
  }
}

interface Entry {
  task: () => Promise<unknown>
  resolve: (v: unknown) => void
  reject: (e: unknown) => void
  enqueuedAt: number
  queuedAhead: number
  opts?: EnqueueOptions
  onAbort?: () => void
  /** aborted, its place kept for `inPlaceOfAborted` */
  kept?: boolean
}

interface Lane {
  queue: Entry[]
  head: number
  active: number
}

const DEFAULT_WARN_AFTER_MS = 2000

export class CommandQueue {
  private readonly lanes = new Map<string, Lane>()
  private readonly limits = new Map<string, number>()
  private readonly onWaitExceeded?: (info: LaneWaitExceeded) => void

  constructor(opts: CommandQueueOptions = {}) {
    // The global `main` lane defaults to 4 (agents.defaults.maxConcurrent); every other lane to 1.
    for (const [lane, n] of Object.entries({ main: 4, ...opts.concurrency })) this.setConcurrency(lane, n)
    this.onWaitExceeded = opts.onWaitExceeded
  }

  enqueue<T>(lane: string, task: () => Promise<T>, opts?: EnqueueOptions): Promise<T> {
    if (opts?.signal?.aborted) return Promise.reject(abortError(opts.signal))
    const l = this.lane(lane)
    return new Promise<T>((resolve, reject) => {
      const entry: Entry = {
        task,
        resolve: resolve as (v: unknown) => void,
        reject,
        enqueuedAt: performance.now(),
        queuedAhead: l.queue.length - l.head,
        opts,
      }
      const signal = opts?.signal
      if (signal) {
        entry.onAbort = () => {
          const idx = l.queue.indexOf(entry, l.head)
          if (idx < 0) return // already started: aborting the task itself is the task's business
          reject(abortError(signal))
          const inPlace = opts?.inPlaceOfAborted
          if (inPlace) {
            // the caller has its answer; the place runs `inPlace`, whose outcome no one waits on
            entry.task = async () => inPlace()
            entry.resolve = entry.reject = () => undefined
            entry.opts = { warnAfterMs: opts.warnAfterMs }
            entry.kept = true
            return
          }
          l.queue.splice(idx, 1)
          this.dropIfIdle(lane, l)
        }
        signal.addEventListener('abort', entry.onAbort, { once: true })
      }
      l.queue.push(entry)
      this.pump(lane, l)
    })
  }

  setConcurrency(lane: string, n: number): void {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`lane concurrency must be an integer >= 1 (got ${n})`)
    this.limits.set(lane, n)
    const l = this.lanes.get(lane)
    if (l) this.pump(lane, l)
  }

  concurrency(lane: string): number {
    return this.limits.get(lane) ?? 1
  }

  stats(): Record<string, { active: number; queued: number }> {
    const out: Record<string, { active: number; queued: number }> = {}
    for (const [name, l] of this.lanes) out[name] = { active: l.active, queued: l.queue.length - l.head }
    return out
  }

  /** Queued (not yet started) tasks of a lane. */
  size(lane: string): number {
    const l = this.lanes.get(lane)
    return l ? l.queue.length - l.head : 0
  }

  active(lane: string): number {
    return this.lanes.get(lane)?.active ?? 0
  }

  /**
   * Rejects every queued task of the lane with LaneClearedError; running tasks are untouched, and so are the
   * places aborted tasks kept (`inPlaceOfAborted`: already answered, they still run).
   */
  clearLane(lane: string, reason: string): number {
    const l = this.lanes.get(lane)
    if (!l) return 0
    const waiting = l.queue.slice(l.head)
    const dropped = waiting.filter((e) => !e.kept)
    l.queue = waiting.filter((e) => e.kept)
    l.head = 0
    for (const e of dropped) {
      detach(e)
      e.reject(new LaneClearedError(lane, reason))
    }
    this.dropIfIdle(lane, l)
    return dropped.length
  }

  private lane(name: string): Lane {
    let l = this.lanes.get(name)
    if (!l) this.lanes.set(name, (l = { queue: [], head: 0, active: 0 }))
    return l
  }

  private pump(name: string, l: Lane): void {
    const max = this.limits.get(name) ?? 1
    while (l.active < max && l.head < l.queue.length) {
      const e = l.queue[l.head]
      l.queue[l.head++] = undefined as unknown as Entry
      // Compact now and then so a busy lane's array does not grow without bound.
      if (l.head > 64 && l.head * 2 > l.queue.length) {
        l.queue = l.queue.slice(l.head)
        l.head = 0
      }
      this.start(name, l, e)
    }
  }

  private start(name: string, l: Lane, e: Entry): void {
    detach(e)
    l.active++
    const waitedMs = performance.now() - e.enqueuedAt
    const warnAfter = e.opts?.warnAfterMs ?? DEFAULT_WARN_AFTER_MS
    if (waitedMs >= warnAfter && this.onWaitExceeded) {
      safe(() =>
        this.onWaitExceeded!({ lane: name, waitedMs, queuedAhead: e.queuedAhead, queuedNow: l.queue.length - l.head }),
      )
    }
    if (e.opts?.onWait) safe(() => e.opts!.onWait!(waitedMs, e.queuedAhead))
    let p: Promise<unknown>
    try {
      p = Promise.resolve(e.task())
    } catch (err) {
      p = Promise.reject(err)
    }
    p.then(e.resolve, e.reject).finally(() => {
      l.active--
      this.pump(name, l)
      this.dropIfIdle(name, l)
    })
  }

  // Session lanes come and go with sessions: forget idle ones so the map stays small.
  private dropIfIdle(name: string, l: Lane): void {
    if (l.active === 0 && l.head >= l.queue.length && this.lanes.get(name) === l) this.lanes.delete(name)
  }
}

function detach(e: Entry): void {
  if (e.onAbort && e.opts?.signal) e.opts.signal.removeEventListener('abort', e.onAbort)
  e.onAbort = undefined
}

function safe(fn: () => void): void {
  try {
    fn()
  } catch {
    // diagnostics callbacks must never break the queue
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason
  if (reason instanceof Error && reason.name === 'AbortError') return reason
  const err = new Error(reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted')
  err.name = 'AbortError'
  return err
}
