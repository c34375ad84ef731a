// What a tool card's clock says. A command that waited for approval shows its own run time, with the wait
// apart: "Done 32.4 s" for an `echo` approved after 30 s read as a slow command.
import { formatDuration } from '../lib/format'
import type { ToolItem } from '../state/types'

export interface ToolTiming {
  /** the call's own time (for a command that asked: from the answer on), or the wait so far while it waits */
  run: string
  /** how long it waited for the approval, once answered */
  waited?: string
}

interface ExecDetails {
  durationMs?: unknown
  approval?: unknown
}

/** Whether the user (not an allowlist or an earlier "always") answered this call's approval. */
function askedUser(item: ToolItem, details: ExecDetails | undefined): boolean {
  if (item.approval) return true
  return details?.approval === 'allow-once' || details?.approval === 'allow-always'
}

export function toolTiming(item: ToolItem, now: number): ToolTiming {
  const running = item.status === 'running'
  const end = item.endedAt ?? (running ? now : undefined)
  if (item.startedAt === undefined || end === undefined) return { run: '' }
  const total = end - item.startedAt
  const a = item.approval
  const details = (item.result as { details?: ExecDetails } | undefined)?.details
  // exec measures the command itself (tools/exec.ts `details.durationMs`), kept after a reload too
  const measured = typeof details?.durationMs === 'number' ? details.durationMs : undefined
  if (!askedUser(item, details) || (a && !a.decision)) return { run: formatDuration(measured ?? total) }
  // a call not run (denied, timed out, stopped while asking) spent all its time waiting
  if (a?.decision === 'deny') return { run: '', waited: formatDuration(total) }
  let waitedMs: number | undefined
  if (a?.resolvedAt !== undefined) waitedMs = a.resolvedAt - (a.askedAt ?? item.startedAt)
  else if (measured !== undefined) waitedMs = total - measured // after a reload: what the call took beyond the command
  let runMs = measured
  if (runMs === undefined) runMs = a?.resolvedAt !== undefined ? end - Math.max(item.startedAt, a.resolvedAt) : total
  // under a second of "waiting" is the runtime's own overhead, not a person answering
  if (waitedMs === undefined || waitedMs < 1000) return { run: formatDuration(runMs) }
  return { run: formatDuration(runMs), waited: formatDuration(waitedMs) }
}
