// What the Inspector reads out of the logged events (state/event-log.ts): which report a failure, and each
// run's timeline. Apart from the log itself so that only the Inspector's chunk carries it (first paint is at budget).
import type { LoggedEvent } from './event-log'
import type { Item, RunItem, ToolApproval } from './types'

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
  /** stopped by the gateway's shutdown (the lifecycle end's `stopReason`, or its footer's) */
  stopCause?: 'shutdown'
  /** a crash cut the run off (its footer's `interrupted`) */
  interrupted?: boolean
}

/** The footer of run `runId` in a conversation's items. */
export function runFooterOf(items: Item[] | undefined, runId: string | undefined): RunItem | undefined {
  if (!items || !runId) return undefined
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]
    if (it.kind === 'run' && it.runId === runId) return it
  }
  return undefined
}

/**
 * A timeline with no end event, ended as the conversation says when its run is over there. The end event never
 * reaches the log of a window that was not connected when it went out (a gateway restart loses it), while the
 * history read again on reconnecting has the run's outcome.
 */
export function endedAsConversation(t: RunTimeline, footer: RunItem | undefined): RunTimeline {
  if (t.outcome || !footer) return t
  const { status } = footer
  if (status !== 'done' && status !== 'error' && status !== 'stopped') return t
  return {
    ...t,
    outcome: status,
    endedAt: footer.endedAt,
    ...(footer.interrupted ? { interrupted: true } : {}),
    ...(status === 'stopped' && footer.stopCause ? { stopCause: footer.stopCause } : {}),
  }
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
        if (d.aborted && d.stopReason === 'shutdown') t.stopCause = 'shutdown'
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
