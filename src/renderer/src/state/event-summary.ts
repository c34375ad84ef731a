// The one-line summary of a logged event that the Inspector shows next to its stream (the raw JSON is
// one click away): what happened, not the payload's first 80 characters.
import type { LoggedEvent } from './event-log'
import { laneWaitText, runWaitingOf } from '../../../shared/lane-wait-text'

/** An approval event, whether the gateway-wide one or the run's own copy (same fields). */
function approvalSummary(phase: 'requested' | 'resolved', p: { command?: unknown; decision?: unknown; resolvedBy?: unknown }): string {
  return phase === 'requested' ? `requested: ${String(p.command)}` : `resolved: ${String(p.decision)} by ${String(p.resolvedBy)}`
}

export function eventSummary(e: LoggedEvent): string {
  const ev = e.event
  switch (ev.event) {
    case 'agent': {
      const d = ev.payload.data as Record<string, unknown>
      switch (ev.payload.stream) {
        case 'lifecycle':
          return `${d.phase}${d.aborted ? ' (aborted)' : ''}${d.error ? `: ${d.error}` : ''}`
        case 'assistant':
        case 'thinking':
          return `+${JSON.stringify(String(d.delta ?? '').slice(0, 60))}`
        case 'tool':
          return `${d.phase} ${d.name ?? ''}${d.isError ? ' (error)' : ''}`
        // a reasoning block started / ended (its text only at reasoning level `on`)
        case 'reasoning':
          return typeof d.text === 'string' ? `${d.phase} ${JSON.stringify(d.text.slice(0, 60))}` : String(d.phase)
        // not started yet: what the run waits for (the footer's words)
        case 'lane': {
          const w = runWaitingOf(d)
          return w ? laneWaitText(w) : JSON.stringify(d).slice(0, 80)
        }
        case 'compaction':
          return `${d.phase}${d.willRetry ? ' (will retry)' : ''}`
        // the run's own copy of its approval events (same fields plus phase)
        case 'approval':
          return approvalSummary(d.phase === 'requested' ? 'requested' : 'resolved', d)
        case 'block':
          return `${d.isReasoning ? 'reasoning ' : ''}${JSON.stringify(String(d.text ?? '').slice(0, 60))}`
        case 'error':
          return d.reason === 'seq gap' ? `seq gap: expected #${String(d.expected)}, got #${String(d.received)}` : JSON.stringify(d).slice(0, 80)
        default:
          return JSON.stringify(d).slice(0, 80)
      }
    }
    case 'chat':
      return `${ev.payload.state}${ev.payload.errorMessage ? `: ${ev.payload.errorMessage}` : ''}${ev.payload.usage ? ` · ${ev.payload.usage.totalTokens} tokens` : ''}`
    case 'exec.approval.requested':
      return approvalSummary('requested', ev.payload)
    case 'exec.approval.resolved':
      return approvalSummary('resolved', ev.payload)
    case 'queue.changed':
      return ev.payload.items.map((q) => `${q.mode}:${q.status}`).join(', ') || 'empty'
    case 'sessions.changed':
      return ev.payload.reason
    default:
      return ev.event
  }
}
