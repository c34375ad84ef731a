// chat.history (reference §5.4): transcript entries → HistoryMessage rows, newest last, paged backwards
// with `offset` or taken around one row (`messageId`), bounded per message (128 KiB) and in total (6 MiB).
// Which messages are rows and how a row looks: src/shared/history-row.ts (the renderer builds the same rows
// from history deltas).
import type { HistoryMessage, SessionMessagePayload } from '../../../shared/methods'
import type { TranscriptEntry } from '../contracts'
import { historyRow, type HistoryRowOptions } from '../../../shared/history-row'
import { cutOffToolTurns } from './interrupted-before'
import { INTERRUPTED_RUN } from './recovery'

export const HISTORY_DEFAULT_LIMIT = 200
export const HISTORY_MESSAGE_MAX_BYTES = 128 * 1024
export const HISTORY_TOTAL_MAX_BYTES = 6 * 1024 * 1024
export const HISTORY_OMITTED_TEXT = '[chat.history omitted: message too large]'

export interface HistoryPage {
  messages: HistoryMessage[]
  hasMore: boolean
  nextOffset?: number
}

/**
 * A message entry as the gateway's `session.message` carries it: the transcript's message with the row identity
 * chat.history gives (__openclaw), so clients can match the two. History deltas replay exactly these.
 */
export function sessionMessageOf(sessionKey: string, e: Extract<TranscriptEntry, { type: 'message' }>, seq: number): SessionMessagePayload {
  const run = e.runId ? { runId: e.runId } : {}
  const message = { ...e.message, __openclaw: { id: e.id, seq, ...run } }
  return { sessionKey, message, messageId: e.id, messageSeq: seq, ts: e.timestamp, ...run }
}

/** Every displayable row of a transcript, oldest first. */
export function historyRows(entries: readonly TranscriptEntry[], opts: HistoryRowOptions = {}): HistoryMessage[] {
  const rows: HistoryMessage[] = []
  // position among the transcript's message entries, hidden ones included (session.message counts them too)
  let seq = 0
  // runs an older recovery left ending on a tool turn: that turn's row says the run was interrupted
  const cutOff = cutOffToolTurns(entries)
  for (const e of entries) {
    if (e.type === 'compaction') {
      const run = e.runId ? { runId: e.runId } : {}
      rows.push({ role: 'compaction', content: [], summary: e.summary, timestamp: e.timestamp, id: e.id, ...run, __openclaw: { id: e.id, ...run } })
      continue
    }
    if (e.type !== 'message') continue
    seq++
    const row = historyRow(e.message as { role?: unknown }, { id: e.id, seq, runId: e.runId, timestamp: e.timestamp }, opts)
    if (!row) continue
    if (cutOff.has(e.id)) {
      row.interrupted = true
      row.errorMessage = INTERRUPTED_RUN
    }
    rows.push(row)
  }
  return rows
}

function capText(row: HistoryMessage, maxChars: number): HistoryMessage {
  const content = row.content
  if (typeof content === 'string') return content.length > maxChars ? { ...row, content: content.slice(0, maxChars) } : row
  if (!Array.isArray(content)) return row
  let changed = false
  const next = content.map((c) => {
    const b = c as { type?: string; text?: string }
    if (b?.type === 'text' && typeof b.text === 'string' && b.text.length > maxChars) {
      changed = true
      return { ...b, text: b.text.slice(0, maxChars) }
    }
    return c
  })
  return changed ? { ...row, content: next } : row
}

/**
 * A row as served: text cut to maxChars, a row over 128 KiB replaced by a placeholder (unless `whole`: an
 * export wants every message as it is); with its JSON size.
 */
function shapeRow(row: HistoryMessage, maxChars: number | undefined, whole = false): { row: HistoryMessage; size: number } {
  if (maxChars) row = capText(row, maxChars)
  let size = Buffer.byteLength(JSON.stringify(row), 'utf8')
  if (size > HISTORY_MESSAGE_MAX_BYTES && !whole) {
    row = { ...row, content: [{ type: 'text', text: HISTORY_OMITTED_TEXT }] }
    if (row.usage !== undefined) delete row.usage
    size = Buffer.byteLength(JSON.stringify(row), 'utf8')
  }
  return { row, size }
}

export function pageHistory(
  rows: HistoryMessage[],
  opts: { limit?: number; offset?: number; maxChars?: number; wholeMessages?: boolean } = {},
): HistoryPage {
  const limit = opts.limit ?? HISTORY_DEFAULT_LIMIT
  const offset = Math.min(opts.offset ?? 0, rows.length)
  const end = rows.length - offset
  const start = Math.max(0, end - limit)
  const out: HistoryMessage[] = []
  let total = 0
  let first = end // index of the oldest row included
  // newest first, so the total cap keeps the most recent messages
  for (let i = end - 1; i >= start; i--) {
    const { row, size } = shapeRow(rows[i], opts.maxChars, opts.wholeMessages)
    if (total + size > HISTORY_TOTAL_MAX_BYTES && out.length > 0) break
    total += size
    out.push(row)
    first = i
  }
  out.reverse()
  const hasMore = first > 0
  return hasMore ? { messages: out, hasMore, nextOffset: rows.length - first } : { messages: out, hasMore }
}

/**
 * chat.history `messageId` (OpenClaw v4): up to `limit` rows around the row whose `__openclaw.id` is `messageId`,
 * about half of them newer; [] when no row has it. Within 6 MiB the rows nearest the anchor are kept; `wholeMessages`
 * (the window's detached view of a jump) keeps a row over 128 KiB whole, as pages do.
 */
export function windowHistory(rows: HistoryMessage[], messageId: string, opts: { limit?: number; maxChars?: number; wholeMessages?: boolean } = {}): HistoryMessage[] {
  const at = rows.findIndex((r) => r.__openclaw?.id === messageId)
  if (at < 0) return []
  const limit = opts.limit ?? HISTORY_DEFAULT_LIMIT
  let newer = Math.min(Math.floor(limit / 2), rows.length - 1 - at)
  const older = Math.min(limit - 1 - newer, at)
  // near the start of the transcript the window takes more newer rows instead
  newer = Math.min(limit - 1 - older, rows.length - 1 - at)
  // outwards from the anchor, so the byte budget drops the rows farthest from it
  const order = [at]
  for (let d = 1; d <= Math.max(newer, older); d++) {
    if (d <= newer) order.push(at + d)
    if (d <= older) order.push(at - d)
  }
  const kept: Array<[number, HistoryMessage]> = []
  let total = 0
  for (const i of order) {
    const { row, size } = shapeRow(rows[i], opts.maxChars, opts.wholeMessages)
    if (total + size > HISTORY_TOTAL_MAX_BYTES && kept.length > 0) break
    total += size
    kept.push([i, row])
  }
  return kept.sort((a, b) => a[0] - b[0]).map(([, r]) => r)
}
