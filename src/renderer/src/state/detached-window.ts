// A detached window of a long session: a jump to a message far back (a search hit, a find match) shows the rows
// around it — a chat.history `messageId` window — instead of loading every row from the end down to it. The
// window pages both ways (older above, newer below, each a `messageId` window around its edge row) and is
// bounded: paging one way drops rows at the far end of the other. It is a separate transcript beside the
// session's live one, which goes on taking the session's events, so nothing live is appended to a window that
// does not end at the end; a newer page that reaches the transcript's end hands back to the live transcript
// ("latest"), as does "Jump to latest".
//
// The window starts at a run's first row (unless it starts at the transcript's start): item keys are built per
// run (run-reducer `segKey`), so rebuilding from more rows keeps the keys of the runs shown, and the list keeps
// its reading position (the virtualizer anchors on the key of the item in view).
import type { ChatHistoryWindow, HistoryMessage } from '../../../shared/methods'
import { reduce } from './run-reducer'
import { emptyTranscript, type Transcript } from './types'

/** Rows of the window a jump opens (about half of them after the match). */
export const OPEN_ROWS = 201
/** Rows a page adds at one edge (a `messageId` window of twice that around the edge row). */
export const PAGE_EACH_WAY = 150
/** Rows a detached window holds at most: paging past it drops rows at the other end. */
export const MAX_DETACHED_ROWS = 900

export interface DetachedView {
  sessionKey: string
  /** the rows shown, oldest first */
  rows: readonly HistoryMessage[]
  /** rows older than `rows[0]` exist */
  hasOlder: boolean
  /** the window's session state (levels, reasoning), without its rows and without the run in flight */
  base: Omit<ChatHistoryWindow, 'messages'>
  /** the items built from `rows` */
  transcript: Transcript
}

/** The limit of a window that adds `each` rows before (or after) its anchor. */
export const pageLimit = (each = PAGE_EACH_WAY) => 2 * each + 1

const idOf = (m: HistoryMessage) => m.__openclaw?.id ?? m.id

/** Where the anchor is in a window's rows, and whether the window ran out of rows before / after it. */
function split(rows: readonly HistoryMessage[], anchorId: string, limit: number) {
  const at = rows.findIndex((m) => idOf(m) === anchorId)
  const newerWanted = Math.floor(limit / 2)
  const olderWanted = limit - 1 - newerWanted
  // the runtime takes more of one side when the other runs out, so a side short of its half has no more rows
  // (its 6 MiB cap could also shorten both sides: then a later page asks again and gets none)
  return { at, olderDone: at >= 0 && at < olderWanted, newerDone: at >= 0 && rows.length - 1 - at < newerWanted }
}

/** Index of the first row of the first whole run (rows of a run cut by the window's start are left out). */
function firstRunStart(rows: readonly HistoryMessage[]): number {
  const first = rows[0]?.runId
  if (!first) return 0
  for (let i = 1; i < rows.length; i++) if (rows[i].runId !== first) return i
  return 0 // one run fills the window: keep it
}

function build(sessionKey: string, base: DetachedView['base'], rows: readonly HistoryMessage[], hasOlder: boolean): Transcript {
  // no run in flight, no events: a detached window shows history only (the live transcript shows the run)
  const history = { ...base, sessionKey, messages: rows.slice(), hasMore: hasOlder }
  return reduce(emptyTranscript(sessionKey), [{ type: 'hydrate', history }])
}

function view(sessionKey: string, base: DetachedView['base'], rows: readonly HistoryMessage[], hasOlder: boolean): DetachedView {
  return { sessionKey, rows, hasOlder, base, transcript: build(sessionKey, base, rows, hasOlder) }
}

/** A window opened at `messageId` (undefined when the window does not have it: the message is gone). */
export function openDetached(sessionKey: string, win: ChatHistoryWindow, messageId: string, limit = OPEN_ROWS): DetachedView | undefined {
  const { at, olderDone } = split(win.messages, messageId, limit)
  if (at < 0) return undefined
  const { messages, inFlightRun: _run, ...base } = win
  let rows = messages
  if (!olderDone) {
    // start at a whole run, but never past the match itself
    const cut = Math.min(firstRunStart(rows), at)
    rows = rows.slice(cut)
  }
  return view(sessionKey, base, rows, !olderDone)
}

/** The window with the rows of an older page (a window around its first row) added above. */
export function withOlder(v: DetachedView, page: readonly HistoryMessage[], limit = pageLimit()): DetachedView {
  const first = v.rows[0]
  if (!first) return v
  const { at, olderDone } = split(page, idOf(first), limit)
  if (at < 0) return { ...v, hasOlder: false } // its first row is gone (a rewrite): stop paging
  let older = page.slice(0, at)
  // (the last run of `older` ends where the window's first run starts: whole)
  if (!olderDone) older = older.slice(firstRunStart(older))
  let rows = older.concat(v.rows)
  // bounded: the newest rows go (a newer page brings them back)
  if (rows.length > MAX_DETACHED_ROWS) rows = rows.slice(0, MAX_DETACHED_ROWS)
  return view(v.sessionKey, v.base, rows, !olderDone)
}

/**
 * The window with the rows of a newer page (a window around its last row) added below, or `latest` when the
 * page reached the transcript's end: the live transcript shows the rest (it holds at least the newest page).
 */
export function withNewer(v: DetachedView, page: readonly HistoryMessage[], limit = pageLimit()): DetachedView | 'latest' {
  const last = v.rows[v.rows.length - 1]
  if (!last) return 'latest'
  const { at, newerDone } = split(page, idOf(last), limit)
  if (at < 0 || newerDone) return 'latest'
  let rows = v.rows.concat(page.slice(at + 1))
  let hasOlder = v.hasOlder
  if (rows.length > MAX_DETACHED_ROWS) {
    // bounded: the oldest rows go, at a run's start so the runs left keep their item keys
    const over = rows.slice(rows.length - MAX_DETACHED_ROWS)
    rows = over.slice(firstRunStart(over))
    hasOlder = true
  }
  return view(v.sessionKey, v.base, rows, hasOlder)
}

/** Whether the window shows this message (a row of it, or an item built from it). */
export function detachedHas(v: DetachedView | undefined, messageId: string): boolean {
  return !!v && (!!v.transcript.msgKeys?.has(messageId) || v.rows.some((m) => idOf(m) === messageId))
}
