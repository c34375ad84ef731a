// Per-run seq continuity of forwarded agent events (OpenClaw §4.1): when a run's event does not follow
// the last one the gateway forwarded (last + 1), clients first get an `agent` event with stream "error"
// and data {reason: "seq gap", expected, received}, so a client rebuilding a run knows it missed some.
import type { AgentEvent } from '../../shared/events'

export interface SeqGap {
  expected: number
  received: number
}

export class RunSeqTracker {
  // insertion-ordered: the oldest runs are forgotten first. Kept after a run ends (events such as a late
  // compaction may still follow), so only a bound — not lifecycle end — clears it.
  private last = new Map<string, number>()

  constructor(private readonly maxRuns = 5000) {}

  /** Records the event; returns the gap to announce before it, if any. */
  observe(ev: AgentEvent): SeqGap | undefined {
    const seq = ev.seq
    if (typeof seq !== 'number') return undefined
    const prev = this.last.get(ev.runId)
    if (prev === undefined && this.last.size >= this.maxRuns) {
      const oldest = this.last.keys().next().value
      if (oldest !== undefined) this.last.delete(oldest)
    }
    // seq 1 starts a run (also a runId reused after its dedupe window): nothing was missed
    if (seq === 1) {
      this.last.set(ev.runId, 1)
      return undefined
    }
    const expected = (prev ?? 0) + 1
    this.last.set(ev.runId, Math.max(prev ?? 0, seq))
    return seq === expected ? undefined : { expected, received: seq }
  }
}

/** The notice OpenClaw sends: no `seq` of its own (it is not one of the run's events). */
export function seqGapNotice(ev: AgentEvent, gap: SeqGap) {
  const notice: { runId: string; stream: 'error'; ts: number; sessionKey?: string; data: { reason: 'seq gap'; expected: number; received: number } } = {
    runId: ev.runId,
    stream: 'error',
    ts: Date.now(),
    data: { reason: 'seq gap', expected: gap.expected, received: gap.received },
  }
  if (ev.sessionKey !== undefined) notice.sessionKey = ev.sessionKey
  return notice
}
