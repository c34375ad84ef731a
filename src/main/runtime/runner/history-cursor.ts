// chat.history delta cursors (OpenClaw v4): an opaque base64url JSON {agentId, generation, lastSeq, sessionId,
// version: 1} naming the last transcript message a client has. The generation ties the cursor to the transcript
// as it was: it changes when a compaction is appended or the transcript is rewritten under the cursor, so such
// a cursor gets `reset` instead of a delta that would not fit what the client holds.
import { createHash } from 'node:crypto'
import type { TranscriptEntry } from '../contracts'

/** longer cursors are not even parsed (OpenClaw's bound) */
export const HISTORY_CURSOR_MAX_CHARS = 4096

export interface HistoryCursor {
  agentId: string
  generation: string
  /** messages the client has: the 1-based `__openclaw.seq` of the last one (0 = none) */
  lastSeq: number
  /** the transcript it points into ('' = the session did not exist yet) */
  sessionId: string
  version: 1
}

export function encodeHistoryCursor(c: Omit<HistoryCursor, 'version'>): string {
  // fixed key order, so equal positions give equal cursors
  const body = { agentId: c.agentId, generation: c.generation, lastSeq: c.lastSeq, sessionId: c.sessionId, version: 1 }
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url')
}

/** The cursor, or undefined for anything that is not one of ours (too long, not base64url JSON, wrong fields). */
export function decodeHistoryCursor(text: string): HistoryCursor | undefined {
  if (text.length === 0 || text.length > HISTORY_CURSOR_MAX_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined
  let v: unknown
  try {
    v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined
  const c = v as Record<string, unknown>
  if (c.version !== 1) return undefined
  if (typeof c.agentId !== 'string' || !c.agentId) return undefined
  if (typeof c.generation !== 'string' || typeof c.sessionId !== 'string') return undefined
  if (typeof c.lastSeq !== 'number' || !Number.isSafeInteger(c.lastSeq) || c.lastSeq < 0) return undefined
  return { agentId: c.agentId, generation: c.generation, lastSeq: c.lastSeq, sessionId: c.sessionId, version: 1 }
}

/**
 * The generation of a transcript seen up to its `lastSeq`-th message: how many compactions it holds and which
 * entry that message is. Appending messages keeps it; appending a compaction or rewriting the file changes it.
 * Undefined when the transcript has fewer messages than `lastSeq` (the cursor points past its end).
 */
export function historyGeneration(entries: readonly TranscriptEntry[], lastSeq: number): string | undefined {
  let compactions = 0
  let seq = 0
  let anchor = ''
  for (const e of entries) {
    if (e.type === 'compaction') compactions++
    else if (e.type === 'message' && ++seq === lastSeq) anchor = e.id
  }
  if (seq < lastSeq) return undefined
  return createHash('sha256').update(`${compactions}\n${anchor}`).digest('base64url').slice(0, 16)
}

/** Number of message entries (= the `__openclaw.seq` of the last one). */
export function messageCount(entries: readonly TranscriptEntry[]): number {
  let n = 0
  for (const e of entries) if (e.type === 'message') n++
  return n
}
