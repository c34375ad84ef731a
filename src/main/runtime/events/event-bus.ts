// The in-process agent event bus (OpenClaw §4.1): numbers events per run, fans them out to listeners
// and keeps a bounded per-session history so late subscribers (a window opened mid-run) can catch up.
import type { AgentEvent } from '../../../shared/events'
import type { EmitInput, EventBusLike } from '../contracts'
import { RingBuffer } from './ring-buffer'

export type AgentEventListener = (ev: AgentEvent) => void

export interface EventBusOptions {
  /** events kept per session for `recent()` (default 2000) */
  ringSize?: number
  /** sessions with a ring; the least recently active one is dropped beyond this (default 200) */
  maxSessions?: number
  /** seq counters kept for runs never cleared with clearRun (default 10000, oldest dropped first) */
  maxTrackedRuns?: number
  /** told about listener failures; the failure never reaches the emitter or other listeners */
  onListenerError?: (err: unknown, ev: AgentEvent) => void
}

export const DEFAULT_RING_SIZE = 2000
export const DEFAULT_MAX_SESSIONS = 200

export class EventBus implements EventBusLike {
  private listeners: AgentEventListener[] = []
  private readonly seqByRun = new Map<string, number>()
  private readonly sessionByRun = new Map<string, string>()
  private readonly rings = new Map<string, RingBuffer<AgentEvent>>()
  private readonly ringSize: number
  private readonly maxSessions: number
  private readonly maxTrackedRuns: number
  private readonly onListenerError: (err: unknown, ev: AgentEvent) => void
  // Events emitted from inside a listener are delivered after the current one, so every listener
  // sees each run's events in seq order.
  private readonly pending: AgentEvent[] = []
  private delivering = false

  constructor(opts: EventBusOptions = {}) {
    this.ringSize = opts.ringSize ?? DEFAULT_RING_SIZE
    this.maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS
    this.maxTrackedRuns = opts.maxTrackedRuns ?? 10_000
    this.onListenerError =
      opts.onListenerError ??
      ((err, ev) => console.error(`[events] listener failed on ${ev.stream} event of run ${ev.runId}:`, err))
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) throw new RangeError('maxSessions must be >= 1')
  }

  /** Remembers the session of a run so later emits without sessionKey are still attributed to it. */
  setRunContext(runId: string, ctx: { sessionKey?: string }): void {
    if (ctx.sessionKey) this.sessionByRun.set(runId, ctx.sessionKey)
    else this.sessionByRun.delete(runId)
  }

  emit(input: EmitInput): AgentEvent {
    const seq = (this.seqByRun.get(input.runId) ?? 0) + 1
    if (seq === 1) this.trimRuns()
    this.seqByRun.set(input.runId, seq)
    const sessionKey = input.sessionKey ?? this.sessionByRun.get(input.runId)
    const ev: AgentEvent = { runId: input.runId, seq, stream: input.stream, ts: Date.now(), data: input.data }
    if (sessionKey !== undefined) {
      ev.sessionKey = sessionKey
      this.ringFor(sessionKey).push(ev)
    }
    this.pending.push(ev)
    if (!this.delivering) this.drain()
    return ev
  }

  subscribe(listener: AgentEventListener): () => void {
    this.listeners = [...this.listeners, listener]
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener)
    }
  }

  recent(sessionKey: string, limit?: number): AgentEvent[] {
    return this.rings.get(sessionKey)?.last(limit) ?? []
  }

  clearRun(runId: string): void {
    this.seqByRun.delete(runId)
    this.sessionByRun.delete(runId)
  }

  /** Drops a session's history (session deleted or reset). */
  clearSession(sessionKey: string): void {
    this.rings.delete(sessionKey)
  }

  /** Current seq of a run (0 when unknown). */
  lastSeq(runId: string): number {
    return this.seqByRun.get(runId) ?? 0
  }

  get listenerCount(): number {
    return this.listeners.length
  }

  private drain(): void {
    this.delivering = true
    try {
      for (let i = 0; i < this.pending.length; i++) {
        const ev = this.pending[i]
        for (const listener of this.listeners) this.deliver(listener, ev)
      }
    } finally {
      this.pending.length = 0
      this.delivering = false
    }
  }

  private deliver(listener: AgentEventListener, ev: AgentEvent): void {
    try {
      const r = listener(ev) as unknown
      // An async listener's rejection must not become an unhandled rejection that kills the process.
      if (r && typeof (r as Promise<unknown>).then === 'function') {
        ;(r as Promise<unknown>).then(undefined, (err) => this.reportListenerError(err, ev))
      }
    } catch (err) {
      this.reportListenerError(err, ev)
    }
  }

  private reportListenerError(err: unknown, ev: AgentEvent): void {
    try {
      this.onListenerError(err, ev)
    } catch {
      // the error reporter itself failed: nothing sensible left to do
    }
  }

  private ringFor(sessionKey: string): RingBuffer<AgentEvent> {
    let ring = this.rings.get(sessionKey)
    if (ring) {
      // Map order doubles as LRU order: move the active session to the end.
      this.rings.delete(sessionKey)
      this.rings.set(sessionKey, ring)
      return ring
    }
    ring = new RingBuffer<AgentEvent>(this.ringSize)
    this.rings.set(sessionKey, ring)
    while (this.rings.size > this.maxSessions) {
      const oldest = this.rings.keys().next().value as string
      this.rings.delete(oldest)
    }
    return ring
  }

  private trimRuns(): void {
    while (this.seqByRun.size >= this.maxTrackedRuns) {
      const oldest = this.seqByRun.keys().next().value as string
      this.seqByRun.delete(oldest)
      this.sessionByRun.delete(oldest)
    }
  }
}
