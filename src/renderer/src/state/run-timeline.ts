// What the Inspector derives from the event log: each run's timeline and which events are failures. Apart
// from event-log.ts (which the controller keeps filling from first paint on), so it loads with the Inspector.
import type { LoggedEvent } from './event-log'

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

export interface RunTimeline {
  runId: string
  acceptedAt?: number
  startedAt?: number
  firstDeltaAt?: number
  tools: Array<{ name: string; toolCallId: string; startedAt: number; endedAt?: number; isError?: boolean }>
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
  for (const { event } of events) {
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
        t.tools.push(tool)
      }
      if (d.phase === 'result') {
        tool.endedAt = ev.ts
        tool.isError = !!d.isError
      }
    }
  }
  return [...byRun.values()]
}
