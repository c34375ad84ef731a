// The wait side of runs (OpenClaw `waitForAgentJob`, §3): watches lifecycle events on the bus, remembers
// when each run started and caches terminal snapshots for 10 minutes, so `agent.wait` resolves whether it
// is called before, during or after the run. A wait that times out never touches the run itself.
// A lifecycle `error` is not final at once: a retry / model fallback may restart the same runId and still
// end ok, so the error is held for a grace period (15 s) and a new `start` cancels it. An error whose data
// says `executionSettled: true` (nothing can retry it any more — the embedded runner marks its final error
// so) is final immediately, as is one settled through settle().
import type { AgentEvent } from '../../../shared/events'
import type { WaitResult } from '../../../shared/methods'
import type { EventBusLike } from '../contracts'
import { readTerminalReply } from './terminal-reply'

export const DEFAULT_WAIT_TIMEOUT_MS = 30_000
export const FINISHED_RUN_TTL_MS = 10 * 60_000
/** OpenClaw AGENT_RUN_ERROR_RETRY_GRACE_MS */
export const ERROR_RETRY_GRACE_MS = 15_000

export interface RunSnapshot {
  status: 'ok' | 'error' | 'timeout'
  startedAt?: number
  endedAt?: number
  error?: string
  stopReason?: string
  terminalReply?: WaitResult['terminalReply']
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
  /** how long an unsettled lifecycle error waits for a retry of the same runId (default 15 s; 0 = final at once) */
  errorGraceMs?: number
  now?: () => number
}

interface Waiter {
  resolve: (r: WaitResult) => void
  timer?: ReturnType<typeof setTimeout>
  /** detaches the caller's abort listener once the wait settled */
  unlisten?: () => void
}

export class RunRegistry {
  private readonly active = new Map<string, ActiveRun>()
  private readonly finished = new Map<string, { snapshot: RunSnapshot; expiresAt: number }>()
  private readonly waiters = new Map<string, Set<Waiter>>()
  /** lifecycle errors inside their retry grace */
  private readonly pendingErrors = new Map<string, { snapshot: RunSnapshot; timer: ReturnType<typeof setTimeout> }>()
  private readonly ttlMs: number
  private readonly maxFinished: number
  private readonly errorGraceMs: number
  private readonly now: () => number

  constructor(opts: RunRegistryOptions = {}) {
    this.ttlMs = opts.ttlMs ?? FINISHED_RUN_TTL_MS
    this.maxFinished = opts.maxFinished ?? 10_000
    this.errorGraceMs = opts.errorGraceMs ?? ERROR_RETRY_GRACE_MS
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
    const data = ev.data as {
      phase?: unknown
      startedAt?: unknown
      endedAt?: unknown
      aborted?: unknown
      error?: unknown
      executionSettled?: unknown
      stopReason?: unknown
      terminalReply?: unknown
    }
    if (data.phase === 'start') {
      const startedAt = num(data.startedAt) ?? ev.ts
      // A new start (retry under the same runId) supersedes an older terminal snapshot or a pending error.
      this.cancelPendingError(ev.runId)
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
    if (data.phase === 'end') {
      if (typeof data.stopReason === 'string') snapshot.stopReason = data.stopReason
      const reply = readTerminalReply(data.terminalReply)
      if (reply) snapshot.terminalReply = reply
    }
    if (data.phase === 'error') {
      snapshot.error = typeof data.error === 'string' ? data.error : 'run failed'
      if (data.executionSettled !== true && this.errorGraceMs > 0) {
        this.holdError(ev.runId, snapshot)
        return
      }
    }
    this.finish(ev.runId, snapshot)
  }

  /** An error that may still be retried: final once the grace passes without a new start. */
  private holdError(runId: string, snapshot: RunSnapshot): void {
    this.cancelPendingError(runId)
    const timer = setTimeout(() => {
      if (this.pendingErrors.get(runId)?.timer !== timer) return
      this.pendingErrors.delete(runId)
      this.finish(runId, snapshot)
    }, this.errorGraceMs)
    // the grace alone must not keep a process alive
    ;(timer as { unref?: () => void }).unref?.()
    this.pendingErrors.set(runId, { snapshot, timer })
  }

  private cancelPendingError(runId: string): void {
    const p = this.pendingErrors.get(runId)
    if (!p) return
    clearTimeout(p.timer)
    this.pendingErrors.delete(runId)
  }

  /** Nothing can retry the run any more: a held error becomes final now. False when none was held. */
  settle(runId: string): boolean {
    const p = this.pendingErrors.get(runId)
    if (!p) return false
    this.cancelPendingError(runId)
    this.finish(runId, p.snapshot)
    return true
  }

  /** The run has a lifecycle error inside its retry grace. */
  hasPendingError(runId: string): boolean {
    return this.pendingErrors.has(runId)
  }

  /** Records a terminal snapshot directly (for runs that end without lifecycle events). */
  finish(runId: string, snapshot: RunSnapshot): void {
    this.cancelPendingError(runId)
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
      w.unlisten?.()
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
   * negative / non-finite → the 30 s default. `signal` (the caller went away: its gateway connection closed)
   * ends the wait at once with `timeout`: a day-long wait of a client that left held its timer and entry for
   * the day, so a client looping agent.wait + reconnect grew the gateway by ~3 KB a wait.
   */
  waitForAgentJob(runId: string, timeoutMs: number = DEFAULT_WAIT_TIMEOUT_MS, signal?: AbortSignal): Promise<WaitResult> {
    const done = this.snapshot(runId)
    if (done) return Promise.resolve({ runId, ...done })
    // setTimeout overflows (fires at once) above 2^31-1 ms
    const ms = Math.min(Number.isFinite(timeoutMs) && timeoutMs >= 0 ? timeoutMs : DEFAULT_WAIT_TIMEOUT_MS, 2 ** 31 - 1)
    if (ms === 0 || signal?.aborted) return Promise.resolve({ runId, status: 'timeout' })
    return new Promise<WaitResult>((resolve) => {
      const waiter: Waiter = { resolve }
      let set = this.waiters.get(runId)
      if (!set) this.waiters.set(runId, (set = new Set()))
      set.add(waiter)
      const giveUp = () => {
        if (waiter.timer) clearTimeout(waiter.timer)
        waiter.unlisten?.()
        const s = this.waiters.get(runId)
        s?.delete(waiter)
        if (s && s.size === 0) this.waiters.delete(runId)
        resolve({ runId, status: 'timeout' })
      }
      waiter.timer = setTimeout(giveUp, ms)
      if (signal) {
        signal.addEventListener('abort', giveUp, { once: true })
        waiter.unlisten = () => signal.removeEventListener('abort', giveUp)
      }
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

  /** Resolves every pending wait with `timeout` (shutdown: OpenClaw v4's `timeoutPhase: gateway_draining`) and forgets all state. */
  dispose(): void {
    for (const p of this.pendingErrors.values()) clearTimeout(p.timer)
    this.pendingErrors.clear()
    for (const [runId, set] of this.waiters) {
      for (const w of set) {
        if (w.timer) clearTimeout(w.timer)
        w.unlisten?.()
        w.resolve({ runId, status: 'timeout', timeoutPhase: 'gateway_draining' })
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
