// The in-process agent event bus (OpenClaw §4.1): numbers events per run, fans them out to listeners
// and keeps a bounded per-session history so late subscribers (a window opened mid-run) can catch up.
// Text deltas (`emitDelta`) of a run that arrive in the same tick — the SSE frames of one network read —
// leave as ONE `assistant`/`thinking` event {text: cumulative, delta: their concatenation}: a model that
// streams 20,000 tiny deltas costs a few hundred events downstream (ring, chat projection, gateway, every
// client), not 20,000.
import type { AgentEvent } from '../../../shared/events'
import type { EmitInput, EventBusLike } from '../contracts'
import { RingBuffer } from './ring-buffer'

export type AgentEventListener = (ev: AgentEvent) => void

/** Streams whose events are `{text: cumulative, delta: new suffix}` and may be merged (emitDelta). */
export type DeltaStream = 'assistant' | 'thinking'

export interface DeltaInput {
  runId: string
  sessionKey?: string
  stream: DeltaStream
  /** the cumulative text after this delta (a string reference: never copied here) */
  text: string
  delta: string
}

interface HeldDelta {
  sessionKey?: string
  stream: DeltaStream
  text: string
  delta: string
}

export interface EventBusOptions {
  /** events kept per session for `recent()` (default 2000) */
  ringSize?: number
  /** sessions with a ring; the least recently active one is dropped beyond this (default 200) */
  maxSessions?: number
  /** approximate characters of event data kept per session (default 2M); oldest events dropped first */
  maxSessionChars?: number
  /** approximate characters kept over all sessions (default 32M); least recently active sessions dropped */
  maxTotalChars?: number
  /** seq counters kept for runs never cleared with clearRun (default 10000, oldest dropped first) */
  maxTrackedRuns?: number
  /** told about listener failures; the failure never reaches the emitter or other listeners */
  onListenerError?: (err: unknown, ev: AgentEvent) => void
}

export const DEFAULT_RING_SIZE = 2000
export const DEFAULT_MAX_SESSIONS = 200
export const DEFAULT_MAX_SESSION_CHARS = 2_000_000
export const DEFAULT_MAX_TOTAL_CHARS = 32_000_000

interface Kept {
  ev: AgentEvent
  size: number
}

/** A session's recent events; bounded by count and by approximate size (assistant text is cumulative). */
interface SessionRing {
  ring: RingBuffer<Kept>
  chars: number
}

export class EventBus implements EventBusLike {
  private listeners: AgentEventListener[] = []
  private readonly seqByRun = new Map<string, number>()
  private readonly sessionByRun = new Map<string, string>()
  private readonly rings = new Map<string, SessionRing>()
  private totalChars = 0
  private lastKept: string | undefined
  private readonly ringSize: number
  private readonly maxSessions: number
  private readonly maxSessionChars: number
  private readonly maxTotalChars: number
  private readonly maxTrackedRuns: number
  private readonly onListenerError: (err: unknown, ev: AgentEvent) => void
  // Events emitted from inside a listener are delivered after the current one, so every listener
  // sees each run's events in seq order.
  private readonly pending: AgentEvent[] = []
  private delivering = false
  // Deltas not yet emitted, per run; released at the end of the tick or before the run's next event.
  private readonly held = new Map<string, HeldDelta>()
  private releaseScheduled = false

  constructor(opts: EventBusOptions = {}) {
    this.ringSize = opts.ringSize ?? DEFAULT_RING_SIZE
    this.maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS
    this.maxSessionChars = opts.maxSessionChars ?? DEFAULT_MAX_SESSION_CHARS
    this.maxTotalChars = opts.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS
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
    // a run's held text goes first: per-run order (and seq) is emission order
    if (this.held.size > 0) this.releaseRun(input.runId)
    const seq = (this.seqByRun.get(input.runId) ?? 0) + 1
    if (seq === 1) this.trimRuns()
    this.seqByRun.set(input.runId, seq)
    const sessionKey = input.sessionKey ?? this.sessionByRun.get(input.runId)
    const ev: AgentEvent = { runId: input.runId, seq, stream: input.stream, ts: Date.now(), data: input.data }
    if (sessionKey !== undefined) {
      ev.sessionKey = sessionKey
      this.keep(sessionKey, ev)
    }
    this.pending.push(ev)
    if (!this.delivering) this.drain()
    return ev
  }

  /**
   * Emits a text delta of a run, merged with the run's other deltas of this tick: listeners get one event
   * `{text, delta}` (text = the latest cumulative text, delta = the deltas concatenated) once the current
   * tick's microtasks are done (process.nextTick runs after them), or right before the run's next event
   * of any kind (tool start, lifecycle end, compaction, …), whichever comes first. So nothing is held
   * across a macrotask, and a text that does not extend the held one (a new message) is never merged.
   */
  emitDelta(input: DeltaInput): void {
    const h = this.held.get(input.runId)
    if (h) {
      // O(1) extension check by length: the caller's text is the held text + delta (a rope, not compared)
      if (h.stream === input.stream && h.sessionKey === input.sessionKey && input.text.length === h.text.length + input.delta.length) {
        h.text = input.text
        h.delta += input.delta
        return
      }
      this.releaseRun(input.runId)
    }
    this.held.set(input.runId, { sessionKey: input.sessionKey, stream: input.stream, text: input.text, delta: input.delta })
    if (!this.releaseScheduled) {
      this.releaseScheduled = true
      process.nextTick(this.releaseAll)
    }
  }

  /** Emits the run's held delta now (no-op when there is none). */
  flushDeltas(runId: string): void {
    this.releaseRun(runId)
  }

  private readonly releaseAll = (): void => {
    this.releaseScheduled = false
    for (const runId of this.held.keys()) this.releaseRun(runId)
  }

  private releaseRun(runId: string): void {
    const h = this.held.get(runId)
    if (!h) return
    this.held.delete(runId)
    this.emit({ runId, sessionKey: h.sessionKey, stream: h.stream, data: { text: h.text, delta: h.delta } })
  }

  subscribe(listener: AgentEventListener): () => void {
    this.listeners = [...this.listeners, listener]
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener)
    }
  }

  recent(sessionKey: string, limit?: number): AgentEvent[] {
    return this.rings.get(sessionKey)?.ring.last(limit).map((k) => k.ev) ?? []
  }

  clearRun(runId: string): void {
    this.releaseRun(runId)
    this.seqByRun.delete(runId)
    this.sessionByRun.delete(runId)
  }

  /** Drops a session's history (session deleted or reset). */
  clearSession(sessionKey: string): void {
    this.dropSession(sessionKey)
  }

  /** Approximate characters held by the rings (diagnostics). */
  get retainedChars(): number {
    return this.totalChars
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

  private keep(sessionKey: string, ev: AgentEvent): void {
    let sr = this.rings.get(sessionKey)
    if (sr) {
      // Map order doubles as LRU order: move the active session to the end (unless it already is).
      if (this.lastKept !== sessionKey) {
        this.rings.delete(sessionKey)
        this.rings.set(sessionKey, sr)
      }
    } else {
      sr = { ring: new RingBuffer<Kept>(this.ringSize), chars: 0 }
      this.rings.set(sessionKey, sr)
      while (this.rings.size > this.maxSessions) this.dropSession(this.rings.keys().next().value as string)
    }
    this.lastKept = sessionKey
    const size = approxSize(ev.data)
    const evicted = sr.ring.push({ ev, size })
    sr.chars += size
    this.totalChars += size
    if (evicted) this.forget(sr, evicted.size)
    while (sr.chars > this.maxSessionChars && sr.ring.size > 1) this.forget(sr, sr.ring.shift()!.size)
    while (this.totalChars > this.maxTotalChars && this.rings.size > 1) {
      const oldest = this.rings.keys().next().value as string
      if (oldest === sessionKey) break
      this.dropSession(oldest)
    }
  }

  private forget(sr: SessionRing, size: number): void {
    sr.chars -= size
    this.totalChars -= size
  }

  private dropSession(sessionKey: string): void {
    const sr = this.rings.get(sessionKey)
    if (!sr) return
    if (this.lastKept === sessionKey) this.lastKept = undefined
    this.totalChars -= sr.chars
    this.rings.delete(sessionKey)
  }

  private trimRuns(): void {
    while (this.seqByRun.size >= this.maxTrackedRuns) {
      const oldest = this.seqByRun.keys().next().value as string
      this.seqByRun.delete(oldest)
      this.sessionByRun.delete(oldest)
    }
  }
}

/** Rough size of event data in characters: strings count their length; bounded work per event. */
export function approxSize(v: unknown): number {
  sizeBudget = 256 // nodes visited at most; beyond that a flat guess per node
  return sizeOf(v, 0)
}

// Module-level budget instead of a closure per call: this runs on every emit.
let sizeBudget = 0
function sizeOf(x: unknown, depth: number): number {
  if (typeof x === 'string') return x.length
  if (x === null || typeof x !== 'object') return 8
  if (--sizeBudget < 0 || depth > 8) return 64
  let n = 16
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) n += sizeOf(x[i], depth + 1)
    return n
  }
  for (const k in x as Record<string, unknown>) n += k.length + sizeOf((x as Record<string, unknown>)[k], depth + 1)
  return n
}
