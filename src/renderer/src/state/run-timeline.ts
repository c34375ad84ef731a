// A run's timeline for the Inspector (accepted → started → first delta → tools → end), derived from the
// logged events. Apart from event-log.ts: only the Inspector's chunk needs it, not first paint.
import type { LoggedEvent } from './event-log'
import type { ToolApproval } from './types'

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
