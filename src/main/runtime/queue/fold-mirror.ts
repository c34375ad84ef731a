// Collect mode folds several queued chat messages into ONE run. Each of those messages was acknowledged
// with its own runId (its chat.send idempotency key), and clients wait on it (agent.wait, chat events).
// The batch run answers all of them, so every folded runId mirrors the batch run's lifecycle: `start` when
// it starts, then the same `end` / `error` — marked `foldedInto: <batch runId>` (and, for a normal end,
// stopReason "collected") so clients can tell the reply is the batch run's.
import type { AgentEvent } from '../../../shared/events'
import type { EmitInput } from '../contracts'

export interface FoldMirrorBus {
  emit(input: EmitInput): unknown
  subscribe(listener: (ev: AgentEvent) => void): () => void
  clearRun(runId: string): void
}

export const COLLECTED_STOP_REASON = 'collected'

export class FoldMirror {
  /** batch runId → the runIds folded into it */
  private readonly folds = new Map<string, { sessionKey: string; runIds: string[] }>()
  private readonly unsubscribe: () => void

  constructor(private readonly bus: FoldMirrorBus) {
    this.unsubscribe = bus.subscribe((ev) => this.onEvent(ev))
  }

  /** Call BEFORE the batch run starts (its lifecycle start may be emitted synchronously). */
  fold(sessionKey: string, intoRunId: string, runIds: string[]): void {
    const ids = runIds.filter((id) => id && id !== intoRunId)
    if (ids.length > 0) this.folds.set(intoRunId, { sessionKey, runIds: ids })
  }

  /** The batch run did not start after all (its folded messages are discarded by the queue instead). */
  unfold(intoRunId: string): void {
    this.folds.delete(intoRunId)
  }

  /** runIds folded into a batch run that has not ended yet */
  foldedInto(intoRunId: string): string[] {
    return [...(this.folds.get(intoRunId)?.runIds ?? [])]
  }

  dispose(): void {
    this.unsubscribe()
    this.folds.clear()
  }

  private onEvent(ev: AgentEvent): void {
    if (ev.stream !== 'lifecycle') return
    const fold = this.folds.get(ev.runId)
    if (!fold) return
    const data = ev.data as Record<string, unknown>
    const phase = data.phase
    if (phase !== 'start' && phase !== 'end' && phase !== 'error') return
    const mirrored: Record<string, unknown> = { ...data, foldedInto: ev.runId }
    if (phase === 'end' && !data.aborted) mirrored.stopReason = COLLECTED_STOP_REASON
    const terminal = phase !== 'start'
    if (terminal) this.folds.delete(ev.runId)
    for (const runId of fold.runIds) {
      this.bus.emit({ runId, sessionKey: fold.sessionKey, stream: 'lifecycle', data: mirrored })
      if (terminal) this.bus.clearRun(runId)
    }
  }
}
