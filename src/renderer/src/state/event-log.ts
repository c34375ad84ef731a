// Per-session ring of raw events for the inspector. Kept outside React state: recording is O(1) and
// nothing re-renders unless the inspector is open (the controller bumps its version then).
import type { AnyEvent } from '../../../shared/events'
import type { ToolApproval } from './types'

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

/**
 * An event that reports something going wrong, whatever its stream: a run's lifecycle error, an agent `error`
 * event (e.g. a seq gap), a tool result that failed, a chat error.
 */
export function isErrorEvent(e: LoggedEvent): boolean {
  const ev = e.event
  if (ev.event === 'chat') return ev.payload.state === 'error'
  if (ev.event !== 'agent') return false
  const d = ev.payload.data as { phase?: unknown; isError?: unknown }
  if (ev.payload.stream === 'error') return true
  if (ev.payload.stream === 'lifecycle') return d.phase === 'error'
  if (ev.payload.stream === 'tool') return d.phase === 'result' && d.isError === true
  return false
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

export interface TimelineTool {
  name: string
  toolCallId: string
  startedAt: number
  endedAt?: number
  isError?: boolean
  /** the exec approval it asked for (the wait is not the call's own time: components/tool-timing.ts) */
  approval?: ToolApproval
  /** the result's details (exec's `durationMs`, `approval`) */
  details?: unknown
}

export interface RunTimeline {
  runId: string
  acceptedAt?: number
  startedAt?: number
  firstDeltaAt?: number
  tools: TimelineTool[]
  endedAt?: number
  outcome?: 'done' | 'error' | 'stopped'
}

/** Derives the per-run timeline (accepted → first delta → tools → end) from logged events. */
export function timelines(events: LoggedEvent[], accepted: Record<string, number> = {}): RunTimeline[] {
  const byRun = new Map<string, RunTimeline>()
  const get = (runId: string) => {
    let t = byRun.get(runId)
    if (!t) {
      t = { runId, tools: [], acceptedAt: accepted[runId] }
      byRun.set(runId, t)
    }
    return t
  }
  // approvals by id: a resolved event names the approval, not its call
  const asked = new Map<string, { runId: string; toolCallId: string }>()
  const toolOf = (runId: string, toolCallId: string) => get(runId).tools.find((x) => x.toolCallId === toolCallId)
  const pendingApprovals = new Map<string, ToolApproval>() // asked before the call's own start event arrived
  for (const { event } of events) {
    if (event.event === 'exec.approval.requested') {
      const r = event.payload
      asked.set(r.id, { runId: r.runId, toolCallId: r.toolCallId })
      const approval: ToolApproval = { askedAt: r.createdAt }
      const tool = toolOf(r.runId, r.toolCallId)
      if (tool) tool.approval = approval
      else pendingApprovals.set(r.toolCallId, approval)
      continue
    }
    if (event.event === 'exec.approval.resolved') {
      const r = event.payload
      const at = asked.get(r.id)
      const tool = at && toolOf(at.runId, at.toolCallId)
      const answer = { decision: r.decision, resolvedBy: r.resolvedBy, resolvedAt: r.ts }
      if (tool) tool.approval = { ...tool.approval, ...answer }
      else if (at) pendingApprovals.set(at.toolCallId, { ...pendingApprovals.get(at.toolCallId), ...answer })
      continue
    }
    if (event.event !== 'agent') continue
    const ev = event.payload
    const t = get(ev.runId)
    const d = ev.data as Record<string, unknown>
    if (ev.stream === 'lifecycle') {
      if (d.phase === 'start') t.startedAt = (d.startedAt as number) ?? ev.ts
      else if (d.phase === 'end') {
        t.endedAt = (d.endedAt as number) ?? ev.ts
        t.outcome = d.aborted ? 'stopped' : 'done'
      } else if (d.phase === 'error') {
        t.endedAt = (d.endedAt as number) ?? ev.ts
        t.outcome = 'error'
      }
    } else if (ev.stream === 'assistant' && t.firstDeltaAt === undefined) t.firstDeltaAt = ev.ts
    else if (ev.stream === 'tool') {
      const id = String(d.toolCallId ?? '')
      let tool = t.tools.find((x) => x.toolCallId === id)
      if (!tool) {
        tool = { name: String(d.name ?? 'tool'), toolCallId: id, startedAt: ev.ts }
        const approval = pendingApprovals.get(id)
        if (approval) tool.approval = approval
        t.tools.push(tool)
      }
      if (d.phase === 'result') {
        tool.endedAt = ev.ts
        tool.isError = !!d.isError
        const details = (d.result as { details?: unknown } | undefined)?.details
        if (details !== undefined) tool.details = details
      }
    }
  }
  return [...byRun.values()]
}
