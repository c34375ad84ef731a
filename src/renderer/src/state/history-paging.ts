// History paging for long sessions. chat.history pages backwards from the newest message (`offset` =
// how many of the newest to skip, at most 1000 per call), and new messages keep arriving while the
// user scrolls back. Two rules keep the view free of duplicates and gaps:
//
// - A transcript has an older part (pages loaded on scroll-up, kept as they are) and a refetched part
//   that starts at a fixed message, the anchor. A refetch (end of a run, reconnect, a seq gap) asks for
//   at least everything from the anchor on and rebuilds only that part, so nothing the user scrolled
//   back to disappears. When the refetched part gets long, its older runs move to the older part (at a
//   run boundary, so item keys do not change) and the anchor moves forward: every refetch stays small.
// - Offsets count from the newest message, so they drift as messages are appended. An older page may
//   then repeat messages already shown: those are recognised by id and dropped (never a gap: the page
//   can only start later than expected, not skip anything).
//
// A refetch of a loaded session first asks with the `deltaCursor` its refetched part was read with: a
// `delta` reply holds only the messages appended since, which join the rows that part was built from
// (`planDelta`); the part is then rebuilt exactly as a full refetch would rebuild it. A `reset` (the
// session was reset, compacted or rewritten), an error or no cursor means a full refetch (`planRefetch`).
import type { ChatHistoryCursorResult, ChatHistoryPage, HistoryMessage } from '../../../shared/methods'
import { historyRowOfPayload } from '../../../shared/history-row'
import type { Transcript } from './types'

/** Messages per page when a session opens and per scroll-up. */
export const HISTORY_PAGE = 200
/** chat.history's maximum `limit`. */
export const MAX_HISTORY_LIMIT = 1000
/** The refetched part may grow to this many messages before its older runs move to the older part. */
export const RECENT_MAX = 400
/** A refetch looks back this far for its anchor before giving up and starting over. */
export const MAX_ANCHOR_SCAN = 5000

export type HistoryResult = ChatHistoryPage

/** How the reducer stitches a refetch onto what is shown (the `paging` of a hydrate action). */
export interface RefetchPaging {
  /** keep the older part of the transcript (false: the anchor was not found, start over) */
  keepOlder: boolean
  /** messages that join the older part, right after it (oldest first) */
  frozen: HistoryMessage[]
  /** messages from the first of `frozen` (or of the refetched part) to the newest */
  rows: number
  /** older messages exist before those (used when there is no older part) */
  more: boolean
}

export interface RefetchPlan {
  /** the refetched part: `messages` replaced, the rest of the first page's fields kept */
  history: HistoryResult
  paging: RefetchPaging
}

/** How many of the newest messages a refetch asks for first. */
export function refetchLimit(t: Transcript | undefined): number {
  if (!t?.loaded || !t.anchorId) return HISTORY_PAGE
  return Math.min(MAX_HISTORY_LIMIT, t.anchorCount + HISTORY_PAGE)
}

/** Index of the first message of a run that starts at or after `from` (0 when none). */
function runStartAtOrAfter(messages: HistoryMessage[], from: number): number {
  for (let i = Math.max(1, from); i < messages.length; i++) {
    const a = messages[i - 1].runId
    const b = messages[i].runId
    if (!a || !b || a !== b) return i
  }
  return 0
}

/** Splits a long refetched part: older runs are frozen, the newest ~HISTORY_PAGE stay refetchable. */
function freeze(messages: HistoryMessage[]): { frozen: HistoryMessage[]; recent: HistoryMessage[] } {
  if (messages.length <= RECENT_MAX) return { frozen: [], recent: messages }
  const cut = runStartAtOrAfter(messages, messages.length - HISTORY_PAGE)
  return cut > 0 ? { frozen: messages.slice(0, cut), recent: messages.slice(cut) } : { frozen: [], recent: messages }
}

/**
 * Plans a refetch. `fetched`: the newest messages, oldest first (one or more pages fetched with
 * offsets 0, n, …), `more`: older messages exist before fetched[0]. Returns undefined when the anchor
 * is older than what was fetched: fetch the next older page and ask again.
 */
export function planRefetch(t: Transcript | undefined, first: HistoryResult, fetched: HistoryMessage[], more: boolean): RefetchPlan | undefined {
  const anchor = t?.loaded ? t.anchorId : undefined
  let at = -1
  if (anchor) {
    for (let i = fetched.length - 1; i >= 0; i--)
      if (fetched[i].id === anchor) {
        at = i
        break
      }
    if (at < 0 && more && fetched.length < MAX_ANCHOR_SCAN) return undefined
  }
  const keepOlder = at >= 0
  // Without an anchor (first load, or history was rewritten) the newest messages are shown afresh.
  const from = keepOlder ? at : Math.max(0, fetched.length - RECENT_MAX)
  const olderIds = keepOlder && t ? t.olderIds : undefined
  const shown = fetched.slice(from).filter((m) => !olderIds?.has(m.id))
  const { frozen, recent } = freeze(shown)
  return {
    history: { ...first, messages: recent, hasMore: from > 0 || more, nextOffset: fetched.length - from },
    paging: { keepOlder, frozen, rows: fetched.length - from, more: from > 0 || more },
  }
}

/**
 * An older page, without the messages already shown (the offset lagged behind new messages) and
 * without messages of runs still streaming live (they are shown from their events).
 */
export function olderPage(t: Transcript, page: HistoryResult): HistoryResult {
  const messages = page.messages.filter((m) => {
    if (t.olderIds.has(m.id) || t.recentIds.has(m.id)) return false
    const run = m.runId ? t.runs[m.runId] : undefined
    return !(run && !run.terminal)
  })
  return messages.length === page.messages.length ? page : { ...page, messages }
}

export type HistoryDelta = Extract<ChatHistoryCursorResult, { kind: 'delta' }>

/** The delta cursor a refetch of this transcript may ask with (none: refetch in full). */
export function resyncCursor(t: Transcript | undefined): string | undefined {
  if (!t?.loaded || !t.historyCursor) return undefined
  // rows shown from older pages but no refetched part to extend: only a full refetch knows where to start
  if (!t.anchorId && t.older > 0) return undefined
  if (t.anchorId !== undefined && t.recentMessages[0]?.id !== t.anchorId) return undefined
  return t.historyCursor
}

/**
 * Plans a refetch from a delta: the refetched part's rows plus the rows appended since the cursor (without
 * rows already shown, matched by message id, and without rows history hides). Undefined when the delta does
 * not fit what is shown: refetch in full.
 */
export function planDelta(t: Transcript, delta: HistoryDelta): RefetchPlan | undefined {
  if (!resyncCursor(t) || !Array.isArray(delta.messages) || typeof delta.deltaCursor !== 'string') return undefined
  const seen = new Set<string>()
  const added: HistoryMessage[] = []
  for (const payload of delta.messages) {
    // the window's pages keep silent replies' rows (controller.ts): so do its deltas
    const row = historyRowOfPayload(payload, { silentReplies: true })
    if (!row || seen.has(row.id) || t.recentIds.has(row.id) || t.olderIds.has(row.id)) continue
    seen.add(row.id)
    added.push(row)
  }
  const fetched = t.recentMessages.concat(added)
  const { kind: _kind, messages: _messages, ...state } = delta
  // (sessionId: the reducer does not use it, and a delta has none)
  const first: HistoryResult = { ...state, sessionKey: t.sessionKey, sessionId: '', messages: fetched, hasMore: t.older > 0 || t.hasMore }
  return planRefetch(t, first, fetched, t.older > 0 || t.hasMore)
}
