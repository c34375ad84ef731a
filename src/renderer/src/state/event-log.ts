// Per-session ring of raw events for the inspector. Kept outside React state: recording is O(1) and
// nothing re-renders unless the inspector is open (the controller bumps its version then).
import type { AnyEvent } from '../../../shared/events'

export const EVENTS_PER_SESSION = 5000
const MAX_SESSIONS = 20

export interface LoggedEvent {
  id: number
  receivedAt: number
  event: AnyEvent
  /** agent stream, or the event name for non-agent events */
  stream: string
  runId?: string
}

class Ring {
  private buf: LoggedEvent[] = []
  private start = 0
  constructor(private readonly cap: number) {}

  push(e: LoggedEvent) {
    if (this.buf.length < this.cap) this.buf.push(e)
    else {
      this.buf[this.start] = e
      this.start = (this.start + 1) % this.cap
    }
  }

  toArray(): LoggedEvent[] {
    return this.start === 0 ? this.buf.slice() : this.buf.slice(this.start).concat(this.buf.slice(0, this.start))
  }

  get size() {
    return this.buf.length
  }
}

export function streamOf(ev: AnyEvent): string {
  if (ev.event === 'agent') return ev.payload.stream
  if (ev.event === 'exec.approval.requested' || ev.event === 'exec.approval.resolved') return 'approval'
  if (ev.event === 'queue.changed') return 'queue'
  if (ev.event === 'sessions.changed') return 'session'
  return ev.event
}

/** Cumulative text longer than this is elided in the log: keeping every snapshot of a long reply
 * would make the ring hold gigabytes (one copy per delta). */
export const MAX_LOGGED_TEXT = 2_000

function compact(ev: AnyEvent): AnyEvent {
  if (ev.event === 'chat') {
    const parts = ev.payload.message?.content
    const len = parts?.reduce((n, p) => n + (p?.text?.length ?? 0), 0) ?? 0
    if (len <= MAX_LOGGED_TEXT || !ev.payload.message) return ev
    const text = `[${len} chars of cumulative text elided; the transcript has them]`
    return { event: 'chat', payload: { ...ev.payload, message: { ...ev.payload.message, content: [{ type: 'text', text }] } } }
  }
  if (ev.event !== 'agent') return ev
  const d = ev.payload.data as Record<string, unknown>
  if (typeof d.text !== 'string' || d.text.length <= MAX_LOGGED_TEXT) return ev
  // No slicing: any operation on the cumulative string would copy it (V8 flattens ropes).
  const text = `[${d.text.length} chars of cumulative text elided; the transcript has them]`
  return { event: 'agent', payload: { ...ev.payload, data: { ...d, text } } }
}

export class EventLog {
  private rings = new Map<string, Ring>()
  private nextId = 1

  constructor(private readonly perSession = EVENTS_PER_SESSION) {}

  record(sessionKey: string, event: AnyEvent, receivedAt = Date.now()) {
    let ring = this.rings.get(sessionKey)
    if (!ring) {
      ring = new Ring(this.perSession)
      this.rings.set(sessionKey, ring)
      if (this.rings.size > MAX_SESSIONS) this.rings.delete(this.rings.keys().next().value as string)
    }
    const p = event.payload as { runId?: string }
    ring.push({ id: this.nextId++, receivedAt, event: compact(event), stream: streamOf(event), runId: typeof p.runId === 'string' ? p.runId : undefined })
  }

  list(sessionKey: string): LoggedEvent[] {
    return this.rings.get(sessionKey)?.toArray() ?? []
  }

  size(sessionKey: string): number {
    return this.rings.get(sessionKey)?.size ?? 0
  }
}
