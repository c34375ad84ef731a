// chat.history with a cursor (OpenClaw v4): the messages appended to the transcript since the cursor, as the
// `session.message` payloads a client missed, or `reset` when they cannot be given exactly — the client then
// refetches the tail. There is no continuation: a gap too big for one reply is a reset too.
import type { SessionMessagePayload } from '../../../shared/methods'
import type { TranscriptEntry } from '../contracts'
import { sessionMessageOf } from './chat-history'
import { decodeHistoryCursor, encodeHistoryCursor, historyGeneration, messageCount } from './history-cursor'

/** most messages one delta replays (OpenClaw: 200 events) */
export const HISTORY_DELTA_MAX_MESSAGES = 200
/** most bytes of replayed payloads in one delta (OpenClaw: 1 MB) */
export const HISTORY_DELTA_MAX_BYTES = 1024 * 1024

/** Where the client's copy of a session ends: the session's agent and current transcript. */
export interface HistoryTarget {
  sessionKey: string
  agentId: string
  /** the session's current sessionId ('' when the session does not exist) */
  sessionId: string
  entries: readonly TranscriptEntry[]
}

export type DeltaOutcome =
  | { kind: 'delta'; messages: SessionMessagePayload[]; deltaCursor: string }
  | { kind: 'reset'; why: 'malformed' | 'other-session' | 'rewritten' | 'past-end' | 'too-many' | 'too-big' }

/** The cursor for a client that has everything in `t` (the newest page ends at the transcript's end). */
export function tailCursor(t: HistoryTarget): string {
  const lastSeq = messageCount(t.entries)
  return encodeHistoryCursor({ agentId: t.agentId, generation: historyGeneration(t.entries, lastSeq)!, lastSeq, sessionId: t.sessionId })
}

export function historyDelta(cursorText: string, t: HistoryTarget): DeltaOutcome {
  const c = decodeHistoryCursor(cursorText)
  if (!c) return { kind: 'reset', why: 'malformed' }
  // another agent, or the session was reset / deleted and made again since: a new transcript
  if (c.agentId !== t.agentId || c.sessionId !== t.sessionId) return { kind: 'reset', why: 'other-session' }
  const generation = historyGeneration(t.entries, c.lastSeq)
  if (generation === undefined) return { kind: 'reset', why: 'past-end' }
  // a compaction was appended, or the file no longer has the cursor's message where it was
  if (generation !== c.generation) return { kind: 'reset', why: 'rewritten' }
  const messages: SessionMessagePayload[] = []
  let bytes = 0
  let seq = 0
  for (const e of t.entries) {
    if (e.type !== 'message' || ++seq <= c.lastSeq) continue
    if (messages.length === HISTORY_DELTA_MAX_MESSAGES) return { kind: 'reset', why: 'too-many' }
    const payload = sessionMessageOf(t.sessionKey, e, seq)
    bytes += Buffer.byteLength(JSON.stringify(payload), 'utf8')
    if (bytes > HISTORY_DELTA_MAX_BYTES) return { kind: 'reset', why: 'too-big' }
    messages.push(payload)
  }
  return { kind: 'delta', messages, deltaCursor: tailCursor(t) }
}
