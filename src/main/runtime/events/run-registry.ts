// The wait side of runs (OpenClaw `waitForAgentJob`, §3): watches lifecycle events on the bus, remembers
// when each run started and caches terminal snapshots for 10 minutes, so `agent.wait` resolves whether it
// is called before, during or after the run. A wait that times out never touches the run itself.
import type { AgentEvent } from '../../../shared/events'
import type { WaitResult } from '../../../shared/methods'
import type { EventBusLike } from '../contracts'

export const DEFAULT_WAIT_TIMEOUT_MS = 30_000
export const FINISHED_RUN_TTL_MS = 10 * 60_000

export interface RunSnapshot {
  status: 'ok' | 'error' | 'timeout'
  startedAt?: number
  endedAt?: number
  error?: string
}

export interface ActiveRun {
  runId: string
  sessionKey?: string
  startedAt: number
}

export interface RunRegistryOptions {
  /** how long terminal snapshots are kept (default 10 min) */
  ttlMs?: number
  /** upper bound on cached finished runs, oldest dropped first (default 10000) */
  maxFinished?: number
  now?: () => number
}

interface Waiter {
  resolve: (r: WaitResult) => void
  timer?: ReturnType<typeof setTimeout>
}

export class RunRegistry {
  private readonly active = new Map<string, ActiveRun>()
  private readonly finished = new Map<string, { snapshot: RunSnapshot; expiresAt: number }>()
  private readonly waiters = new Map<string, Set<Waiter>>()
  private readonly ttlMs: number
  private readonly maxFinished: number
  private readonly now: () => number

  constructor(opts: RunRegistryOptions = {}) {
    this.ttlMs = opts.ttlMs ?? FINISHED_RUN_TTL_MS
    this.maxFinished = opts.maxFinished ?? 10_000
    this.now = opts.now ?? Date.now
  }

  /** Starts observing a bus. Returns the unsubscribe function. */
  attach(bus: Pick<EventBusLike, 'subscribe'>): () => void {
    return bus.subscribe((ev) => {
      if (ev.stream === 'lifecycle') this.observe(ev)
    })
  }

  /** Feeds one lifecycle event (attach() does this for every bus event). */
  observe(ev: AgentEvent): void {
    const data = ev.data as { phase?: unknown; startedAt?: unknown; endedAt?: unknown; aborted?: unknown; error?: unknown }
    if (data.phase === 'start') {
      const startedAt = num(data.startedAt) ?? ev.ts
      // A new start (retry under the same runId) supersedes an older terminal snapshot.
      this.finished.delete(ev.runId)
      this.active.set(ev.runId, { runId: ev.runId, sessionKey: ev.sessionKey, startedAt })
      return
    }
    if (data.phase !== 'end' && data.phase !== 'error') return
    const startedAt = num(data.startedAt) ?? this.active.get(ev.runId)?.startedAt
    const snapshot: RunSnapshot = {
      status: data.phase === 'error' ? 'error' : data.aborted ? 'timeout' : 'ok',
      endedAt: num(data.endedAt) ?? ev.ts,
    }
    if (startedAt !== undefined) snapshot.startedAt = startedAt
    if (data.phase === 'error') snapshot.error = typeof data.error === 'string' ? data.error : 'run failed'
    this.finish(ev.runId, snapshot)
  }

  /** Records a terminal snapshot directly (for runs that end without lifecycle events). */
  finish(runId: string, snapshot: RunSnapshot): void {
    this.active.delete(runId)
    this.prune()
    this.finished.delete(runId)
    this.finished.set(runId, { snapshot, expiresAt: this.now() + this.ttlMs })
    while (this.finished.size > this.maxFinished) this.finished.delete(this.finished.keys().next().value as string)
    const set = this.waiters.get(runId)
    if (!set) return
    this.waiters.delete(runId)
    for (const w of set) {
      if (w.timer) clearTimeout(w.timer)
      w.resolve({ runId, ...snapshot })
    }
  }

  /** The terminal snapshot of a finished run still in the cache. */
  snapshot(runId: string): RunSnapshot | undefined {
    const hit = this.finished.get(runId)
    if (!hit) return undefined
    if (hit.expiresAt <= this.now()) {
      this.finished.delete(runId)
      return undefined
    }
    return { ...hit.snapshot }
  }

  /**
   * Resolves when the run ends (or at once when it already did). On wait expiry returns
   * `{runId, status:'timeout'}` without startedAt; the run keeps going. timeoutMs 0 = snapshot or timeout now;
   * negative / non-finite → the 30 s default.
   */
  waitForAgentJob(runId: string, timeoutMs: number = DEFAULT_WAIT_TIMEOUT_MS): Promise<WaitResult> {
    const done = this.snapshot(runId)
    if (done) return Promise.resolve({ runId, ...done })
    // setTimeout overflows (fires at once) above 2^31-1 ms
    const ms = Math.min(Number.isFinite(timeoutMs) && timeoutMs >= 0 ? timeoutMs : DEFAULT_WAIT_TIMEOUT_MS, 2 ** 31 - 1)
    if (ms === 0) return Promise.resolve({ runId, status: 'timeout' })
    return new Promise<WaitResult>((resolve) => {
      const waiter: Waiter = { resolve }
      let set = this.waiters.get(runId)
      if (!set) this.waiters.set(runId, (set = new Set()))
      set.add(waiter)
      waiter.timer = setTimeout(() => {
        const s = this.waiters.get(runId)
        s?.delete(waiter)
        if (s && s.size === 0) this.waiters.delete(runId)
        resolve({ runId, status: 'timeout' })
      }, ms)
    })
  }

  isActive(runId: string): boolean {
    return this.active.has(runId)
  }

  activeRuns(): ActiveRun[] {
    return [...this.active.values()].map((r) => ({ ...r }))
  }

  /** Number of pending waits (diagnostics; should fall back to 0 once waits settle). */
  waiterCount(): number {
    let n = 0
    for (const s of this.waiters.values()) n += s.size
    return n
  }

  /** Resolves every pending wait with `timeout` (shutdown) and forgets all state. */
  dispose(): void {
    for (const [runId, set] of this.waiters) {
      for (const w of set) {
        if (w.timer) clearTimeout(w.timer)
        w.resolve({ runId, status: 'timeout' })
      }
    }
    this.waiters.clear()
    this.active.clear()
    this.finished.clear()
  }

  private prune(): void {
    const now = this.now()
    // Insertion order ≈ expiry order, so stop at the first live entry.
    for (const [id, hit] of this.finished) {
      if (hit.expiresAt > now) break
      this.finished.delete(id)
    }
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
