// A run that ended before its message reached the model (stopped right after the ack, no API key, a failed
// setup step) still leaves the message in the transcript: the user turn as pi would have written it, closed by
// the assistant turn a later stop or failure leaves — an empty reply with stopReason `aborted` (and the abort
// mark) or `error` with the run's error text. The window reads them as "Stopped" / the error with Retry, also
// after a reload, and the next run's history skips the closing turn like any failed or aborted reply.
import type { TranscriptEntry } from '../contracts'
import { abortOrigin } from './bridge'

type MessageEntry = Extract<TranscriptEntry, { type: 'message' }>

export interface UnsentTurn {
  runId: string
  /** the message as accepted (its attachment lines included) */
  message: string
  acceptedAt: number
  /** provenance / intent the run would have stamped on its user message */
  stamp?: Record<string, unknown>
  /** the model the run had resolved, when it got that far */
  model?: { api: string; provider: string; id: string }
  ending: { kind: 'aborted'; reason: string } | { kind: 'error'; error: string }
}

/** How the run ended: a stop (`reason` is the abort's, when it gave one as text) or an error with its message. */
export function unsentEnding(aborted: boolean, reason: unknown, error: string): UnsentTurn['ending'] {
  return aborted ? { kind: 'aborted', reason: typeof reason === 'string' ? reason : 'abort' } : { kind: 'error', error }
}

const zeroUsage = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } })

/** The two transcript entries of a turn whose run never sent it. */
export function unsentTurnEntries(t: UnsentTurn, now = Date.now()): MessageEntry[] {
  const user: MessageEntry = {
    type: 'message',
    id: crypto.randomUUID(),
    timestamp: now,
    runId: t.runId,
    message: { role: 'user', content: [{ type: 'text', text: t.message }], timestamp: t.acceptedAt, ...(t.stamp ?? {}) },
  }
  const closing: MessageEntry['message'] = {
    role: 'assistant',
    content: [],
    api: t.model?.api ?? 'unknown',
    provider: t.model?.provider ?? 'unknown',
    model: t.model?.id ?? 'unknown',
    usage: zeroUsage(),
    stopReason: t.ending.kind,
    timestamp: now,
  }
  if (t.ending.kind === 'aborted') closing.openclawAbort = { aborted: true, origin: abortOrigin(t.ending.reason), runId: t.runId }
  else closing.errorMessage = t.ending.error
  return [user, { type: 'message', id: crypto.randomUUID(), timestamp: now, runId: t.runId, message: closing }]
}
