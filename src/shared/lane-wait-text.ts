// What a run accepted but not started waits for, in plain words: the window's run footer and `loopdesk agent`'s
// "waiting:" line read the runtime's `lane` stream (LaneWaitData) the same way.
import type { LaneWaitData } from './events'

/** The `lane` stream's data without its phase. */
export type RunWaiting = { lane: 'session'; ahead: number } | { lane: 'global'; running: number; limit: number; ahead: number }

export function laneWaitText(w: RunWaiting): string {
  if (w.lane === 'session') return 'Waiting for this session’s earlier run to finish'
  const others = w.running === 1 ? '1 other session is running' : `${w.running} other sessions are running`
  const queued = w.ahead > 0 ? `, ${w.ahead} more waiting before this one` : ''
  return `Waiting for a free slot — ${others} (limit ${w.limit}${queued})`
}

/** The `lane` stream's data as a RunWaiting; anything else (another phase, a lane this version does not know): undefined. */
export function runWaitingOf(data: Partial<LaneWaitData> | Record<string, unknown>): RunWaiting | undefined {
  const d = data as Record<string, unknown>
  if (d.phase !== 'waiting') return undefined
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0)
  if (d.lane === 'session') return { lane: 'session', ahead: n(d.ahead) }
  if (d.lane === 'global') return { lane: 'global', running: n(d.running), limit: n(d.limit), ahead: n(d.ahead) }
  return undefined
}
