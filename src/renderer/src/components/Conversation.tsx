// The conversation: a virtualized list (only visible items are in the DOM) that follows the bottom
// while a reply streams unless the user scrolled up ("Jump to latest" then). Older history pages
// load when the top is reached; the reading position stays put when they are prepended. After a jump
// far back it shows a detached window of rows around the message (`state/detached-window.ts`): newer
// rows load when its bottom is reached, until the live end takes over; "Jump to latest" goes there at once.
// A run of many tool calls is one row that opens to the cards (`state/tool-groups.ts`).
import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useAppStore, useController } from '../app-context'
import { activeRun } from '../state/run-reducer'
import type { DetachedView } from '../state/detached-window'
import type { Item, Transcript } from '../state/types'
import { groupOf, toolRows, type Row } from '../state/tool-groups'
import { LazyBoundary } from '../lib/lazy-view'
import { ToolGroupView } from '../lazy-views'
import { occurrencesIn, toolCallSearchText } from '../../../shared/search-text'
import { renderedMarkdownText } from '../../../shared/rendered-text'
import { IconDown } from './icons'
import { ItemView } from './Messages'
import { RunAnnouncer } from './RunAnnouncer'

const EMPTY: Item[] = []
/** Within this many px of the end counts as "at the bottom". */
const STICK_PX = 48
/** Within this many px of the top, older history loads. */
const LOAD_OLDER_PX = 800
/** how long a search hit stays highlighted after the jump */
const FOUND_HIGHLIGHT_MS = 2500
/** the find marks' code, fetched with the first query (a chunk of its own: first paint is at its budget) */
const findMarks = () => import('../lib/find-highlight')

function estimate(row: Row | undefined): number {
  if (!row?.item) return row ? 44 : 60
  const item = row.item
  switch (item.kind) {
    case 'user':
      return 56 + Math.ceil(item.text.length / 90) * 22
    case 'assistant':
      return 36 + Math.min(20_000, Math.ceil(item.text.length / 95) * 24) + (item.reasoning ? 36 : 0)
    case 'tool':
      return 52
    case 'approval':
      return item.decision && item.onTool ? 0 : 150 // answered, its tool card carries the answer: not drawn
    case 'run':
      return 34
    case 'compaction':
      return 40
  }
}

/** What find reads of an item, as the runtime reads its message (`src/shared/message-search.ts`). */
function findText(it: Item): string | undefined {
  // a reply as rendered (no URLs, no markdown syntax), as the runtime counts it and the marks find it
  if (it.kind === 'assistant') return renderedMarkdownText(it.text)
  if (it.kind === 'user') return it.text
  if (it.kind === 'tool') return toolCallSearchText(it.name, it.args)
  return undefined
}

/**
 * The item to land on for a message and the occurrence within it: its first item, or — with a query — the
 * item (a long reply is several rows, a turn has tool cards) holding the `occurrence`-th occurrence of the
 * query in the message (0: its first), and which one of that item's it is.
 */
export function matchInItems(items: readonly Item[], firstKey: string, query?: string, occurrence = 0): { index: number; nth: number } {
  const at = items.findIndex((it) => it.key === firstKey)
  if (at < 0 || !query) return { index: at, nth: occurrence }
  const needle = query.toLowerCase()
  const { runId, msg } = items[at]
  let before = 0
  let first = -1
  for (let i = at; i < items.length && i < at + 200; i++) {
    const it = items[i]
    // the message's own items only (a live item reused by a refetch has no `msg`: its run bounds it)
    if (i > at && (!runId || it.runId !== runId || (msg && it.msg && it.msg !== msg))) break
    const text = findText(it)
    const n = text ? occurrencesIn(text.toLowerCase(), needle) : 0
    if (!n) continue
    if (first < 0) first = i
    if (occurrence < before + n) return { index: i, nth: occurrence - before }
    before += n
  }
  // counted otherwise than the runtime (a tool's output, rendered text): the first item that has it, else the first
  return first >= 0 ? { index: first, nth: 0 } : { index: at, nth: occurrence }
}

/** The item to land on for a message (see matchInItems). */
export function itemOfMatch(items: readonly Item[], firstKey: string, query?: string, occurrence = 0): number {
  return matchInItems(items, firstKey, query, occurrence).index
}

interface Props {
  sessionKey: string
  /** test hook: fixed viewport size when layout is unavailable (jsdom) */
  initialRect?: { width: number; height: number }
}

export function Conversation({ sessionKey, initialRect }: Props) {
  const controller = useController()
  // a detached window (a jump far back) is shown instead of the live transcript, which goes on beside it
  const detached = useAppStore('runs', (s) => !!s.detached?.[sessionKey])
  const shown = (s: { transcripts: Record<string, Transcript>; detached?: Record<string, DetachedView | undefined> }) =>
    s.detached?.[sessionKey]?.transcript ?? s.transcripts[sessionKey]
  const items = useAppStore('runs', (s) => shown(s)?.items ?? EMPTY)
  const loaded = useAppStore('runs', (s) => !!s.transcripts[sessionKey]?.loaded)
  const hasMore = useAppStore('runs', (s) => (s.detached?.[sessionKey] ? s.detached[sessionKey].hasOlder : !!s.transcripts[sessionKey]?.hasMore))
  const loading = useAppStore('runs', (s) => !!s.loading[sessionKey])
  const streaming = useAppStore('runs', (s) => {
    const t = s.transcripts[sessionKey]
    return !!t && !!activeRun(t)
  })
  const loadError = useAppStore('runs', (s) => s.loadErrors[sessionKey])
  const damagedLines = useAppStore('runs', (s) => s.transcripts[sessionKey]?.damaged?.lines ?? 0)
  const damagedFile = useAppStore('runs', (s) => s.transcripts[sessionKey]?.damaged?.file ?? '')
  // a message to land on (a search hit, the find bar's match): the item showing it
  const focus = useAppStore('runs', (s) => (s.focus?.sessionKey === sessionKey ? s.focus : undefined))
  const focusKey = useAppStore('runs', (s) => (s.focus?.sessionKey === sessionKey ? shown(s)?.msgKeys?.get(s.focus.messageId) : undefined))
  const scrollRef = useRef<HTMLDivElement>(null)
  const listRef = useRef<HTMLDivElement>(null)
  const [atEnd, setAtEnd] = useState(true)
  // a group's open state is kept in the ui store beside the cards' (rows remount as they scroll by)
  const expanded = useAppStore('ui', (s) => s.expanded)
  const rows = useMemo(() => toolRows(items, (k) => !!expanded[k]), [items, expanded])
  const reveal = useAppStore('ui', (s) => (s.reveal?.sessionKey === sessionKey ? s.reveal : undefined))
  const itemsRef = useRef(rows)
  itemsRef.current = rows
  const detachedRef = useRef(detached)
  detachedRef.current = detached

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimate(itemsRef.current[i]),
    getItemKey: (i) => itemsRef.current[i]?.key ?? i,
    // Rows can be tall (a long reply is split into rows of ~12k chars): keep few off-screen.
    overscan: 3,
    // Keeps the reading position when older pages are prepended.
    anchorTo: 'end',
    scrollEndThreshold: STICK_PX,
    initialRect,
    paddingStart: 16,
    paddingEnd: 24,
    // Positions and the list height are written to the DOM directly; React re-renders only when the
    // visible range changes (a streaming reply resizes its row every frame).
    useFlushSync: false,
    directDomUpdates: true,
    directDomUpdatesMode: 'position',
  })

  // Stick to the bottom while new content arrives, unless the user scrolled away. Items can grow
  // (streaming) or be inserted before the run footer, so we follow the content height itself.
  const stick = useRef(true)
  const userIntentAt = useRef(0)
  const snapHeight = useRef(0)
  const toBottom = useCallback(() => {
    const el = scrollRef.current
    // a detached window does not end at the end: nothing to follow there
    if (!el || !stick.current || detachedRef.current) return
    snapHeight.current = el.scrollHeight
    el.scrollTop = snapHeight.current
  }, [])
  useEffect(() => {
    const el = scrollRef.current
    const list = listRef.current
    if (!el || !list || typeof ResizeObserver === 'undefined') return
    // Runs after layout, before paint: reading scrollHeight here costs no extra layout.
    const ro = new ResizeObserver(toBottom)
    ro.observe(list)
    const intent = () => (userIntentAt.current = Date.now())
    const onKey = (e: KeyboardEvent) => {
      if (['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ', 'Tab'].includes(e.key)) intent()
    }
    const onPointer = (e: PointerEvent) => e.target === el && intent() // scrollbar drag
    const onScroll = () => {
      const distance = el.scrollHeight - el.scrollTop - el.clientHeight
      const userScrolled = Date.now() - userIntentAt.current < 600
      if (distance <= STICK_PX) stick.current = true
      else if (stick.current && !userScrolled && el.scrollHeight !== snapHeight.current) toBottom() // content moved, not the user
      else stick.current = false // the user (or find-in-page, focus) scrolled away
      setAtEnd(stick.current || distance <= STICK_PX)
    }
    el.addEventListener('wheel', intent, { passive: true })
    el.addEventListener('touchmove', intent, { passive: true })
    el.addEventListener('keydown', onKey)
    el.addEventListener('pointerdown', onPointer)
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => {
      ro.disconnect()
      el.removeEventListener('wheel', intent)
      el.removeEventListener('touchmove', intent)
      el.removeEventListener('keydown', onKey)
      el.removeEventListener('pointerdown', onPointer)
      el.removeEventListener('scroll', onScroll)
    }
  }, [toBottom])

  const opened = useRef(false)
  useLayoutEffect(() => {
    if (opened.current || !loaded || !items.length) return
    opened.current = true
    stick.current = true
    toBottom()
  }, [loaded, items.length, toBottom])

  // Land on the focused message: scrolled to the middle of the view, no longer following the end; a search
  // hit's highlight fades, the find bar's stays while it is open (it clears the focus).
  const match = useMemo(
    () => (focusKey ? matchInItems(items, focusKey, focus?.query, focus?.occurrence ?? 0) : { index: -1, nth: 0 }),
    [items, focusKey, focus?.query, focus?.occurrence],
  )
  const foundIndex = match.index
  const foundKey = foundIndex >= 0 ? items[foundIndex].key : undefined
  // the current occurrence is marked apart only while the find bar steps through them
  const foundNth = focus?.occurrence !== undefined ? match.nth : undefined
  // a tool card opened to show its match: the marks are set again once its body is there
  const foundOpen = foundKey ? !!expanded[foundKey] : false
  // a match (or a card to show) inside a closed group opens the group, once per landing; its row is there next render
  const rowOf = (key?: string) => (key ? rows.findIndex((r) => r.item && r.key === key) : -1)
  const foundRow = rowOf(foundKey)
  const revealRow = rowOf(reveal?.key)
  useEffect(() => {
    const found = foundKey && groupOf(rows, foundKey)
    if (found) controller.openForMatch(found)
    const shown = reveal?.key && groupOf(rows, reveal.key)
    if (shown) controller.setExpanded(shown, true)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [foundKey, focus?.seq, reveal?.seq, controller])
  // find moved on to another item, or closed: the cards and groups it opened for earlier matches fold back (not
  // while the focused message is briefly not among the items — a history refetch replacing them)
  const foundGroup = foundKey ? groupOf(rows, foundKey) : undefined
  const focusLost = !!focus && !foundKey
  useEffect(() => {
    if (!focusLost) controller.foldFindOpened([foundKey, foundGroup])
  }, [foundKey, foundGroup, focusLost, controller])
  const landed = useRef(0)
  useEffect(() => {
    if (!focus || foundRow < 0 || landed.current === focus.seq) return
    landed.current = focus.seq
    opened.current = true
    stick.current = false
    setAtEnd(false)
    virtualizer.scrollToIndex(foundRow, { align: 'center' })
  }, [focus, foundRow, virtualizer])
  // a tool card shown on request (the Inspector, a group's "Jump to failed"): scrolled to, outlined for a while
  const revealed = useRef(0)
  useEffect(() => {
    if (!reveal || revealRow < 0 || revealed.current === reveal.seq) return
    const seq = (revealed.current = reveal.seq)
    controller.setExpanded(reveal.key, true)
    opened.current = true
    stick.current = false
    setAtEnd(false)
    virtualizer.scrollToIndex(revealRow, { align: 'center' })
    setTimeout(() => controller.stores.ui.getState().reveal?.seq === seq && controller.stores.ui.setState({ reveal: undefined }), FOUND_HIGHLIGHT_MS)
  }, [reveal, revealRow, virtualizer, controller])
  // …and its header focused once its row is rendered (the scroll can take a frame or two)
  const focusedFor = useRef(0)
  useEffect(() => {
    if (!reveal || focusedFor.current === reveal.seq) return
    const row = [...(listRef.current?.children ?? [])].find((el) => (el as HTMLElement).dataset.key === reveal.key)
    const head = row?.querySelector<HTMLElement>('.tool-head')
    if (head) {
      focusedFor.current = reveal.seq
      head.focus({ preventScroll: true })
    }
  })
  const fadeSeq = focus && !focus.persist ? focus.seq : undefined
  useEffect(() => {
    if (fadeSeq === undefined) return
    const timer = setTimeout(() => controller.clearFocus(fadeSeq), FOUND_HIGHLIGHT_MS)
    return () => clearTimeout(timer)
  }, [fadeSeq, controller])

  const virtualItems = virtualizer.getVirtualItems()
  const first = virtualItems[0]?.index
  const last = virtualItems[virtualItems.length - 1]?.index
  // the find bar's query marked inside the matched row, each time that row is (re)rendered
  const query = focus?.query
  const marked = useRef(false)
  useEffect(() => {
    if (!query && !marked.current) return
    marked.current = !!query
    let live = true
    void findMarks().then(({ showFindHighlight }) => {
      if (!live) return // a newer render's marks replace these
      const current = showFindHighlight(foundKey ? listRef.current?.querySelector('[data-found]') : undefined, query, foundNth)
      // inside a tall row (an opened tool card's output) the current occurrence may be out of view: bring it in
      const at = current?.startContainer.parentElement
      if (at && typeof at.scrollIntoView === 'function' && foundOpen) at.scrollIntoView({ block: 'nearest' })
    })
    return () => {
      live = false
    }
  }, [foundKey, query, foundNth, foundOpen, first, last])
  useEffect(() => () => void (marked.current && findMarks().then((m) => m.showFindHighlight(undefined, undefined))), [])
  // Older history loads when the user reaches the top (the first item is rendered and the view is
  // near it: right after opening, the range can still include item 0 before the jump to the end).
  useEffect(() => {
    const el = scrollRef.current
    if (first === 0 && hasMore && !loading && opened.current && el && el.scrollTop < LOAD_OLDER_PX) void controller.loadOlder(sessionKey)
  }, [first, hasMore, loading, controller, sessionKey])
  // A detached window's newer rows load when its bottom is reached (after the jump has landed: before, the
  // range can still be where the live end was)
  useEffect(() => {
    const el = scrollRef.current
    if (!detached || loading || last !== rows.length - 1 || !el) return
    if (focus && landed.current !== focus.seq) return
    if (el.scrollHeight - el.scrollTop - el.clientHeight < LOAD_OLDER_PX) void controller.loadNewer(sessionKey)
  }, [detached, last, rows.length, loading, focus, controller, sessionKey])
  // back at the live end (paged down to it, or "Jump to latest"): follow it again when the view is at the bottom
  const wasDetached = useRef(detached)
  const jumpedFromWindow = useRef(false)
  useLayoutEffect(() => {
    if (wasDetached.current && !detached) {
      const el = scrollRef.current
      if (jumpedFromWindow.current && itemsRef.current.length) {
        // "Jump to latest": the live items replaced the window's, so their end is only known now
        jumpedFromWindow.current = false
        virtualizer.scrollToIndex(itemsRef.current.length - 1, { align: 'end' })
        toBottom()
      } else if (el && el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX) stick.current = true
    }
    if (detached) stick.current = false
    wasDetached.current = detached
  }, [detached, virtualizer, toBottom])

  const jump = useCallback((e: React.MouseEvent<HTMLButtonElement>) => {
    // the button goes away: focus on it would drop to the page, so it moves to the conversation it scrolled
    if (document.activeElement === e.currentTarget) scrollRef.current?.focus({ preventScroll: true })
    // from a detached window: the live transcript replaces it, and the list follows its end from there
    if (detachedRef.current) {
      detachedRef.current = false
      jumpedFromWindow.current = true
      controller.jumpToLatest(sessionKey)
    }
    stick.current = true
    toBottom()
    setAtEnd(true)
  }, [toBottom, controller, sessionKey])

  return (
    <div className="conversation">
      <RunAnnouncer sessionKey={sessionKey} />
      {damagedLines > 0 && (
        // quiet, outside the scrolled list: parts of the conversation are missing and the user should know why
        <div className="conversation-notice" role="note">
          {damagedLines === 1 ? '1 line' : `${damagedLines} lines`} of this conversation could not be read (file {damagedFile} in Loopdesk's state folder)
        </div>
      )}
      <div ref={scrollRef} className="conversation-scroll" tabIndex={-1}>
        {loadError && !items.length && (
          <div className="empty-state" role="alert">
            <h2>Could not load this conversation</h2>
            <p>{loadError}</p>
            <button type="button" className="btn" onClick={() => void controller.loadTranscript(sessionKey)}>
              Try again
            </button>
          </div>
        )}
        {loaded && !items.length && !loadError && (
          <div className="empty-state">
            <h2>Start a conversation</h2>
            <p>Ask anything. Tool calls, approvals and the run status show up inline; the Inspector shows every event.</p>
          </div>
        )}
        {!loaded && !items.length && !loadError && <div className="empty-state muted">Loading…</div>}
        <div
          ref={(node) => {
            listRef.current = node
            virtualizer.containerRef(node)
          }}
          role="log"
          aria-label="Conversation"
          aria-relevant="additions"
          aria-busy={(streaming && !detached) || undefined}
          data-items={items.length}
          data-detached={detached || undefined}
          className="conversation-list"
        >
          {virtualItems.map((v) => {
            const { key, item, group } = rows[v.index] ?? {}
            if (!key) return null
            return (
              <div
                key={v.key}
                data-index={v.index}
                data-msg=""
                data-kind={item?.kind ?? 'tool-group'}
                data-key={key}
                ref={virtualizer.measureElement}
                className={`row${key === foundKey || key === reveal?.key ? ' row-found' : ''}${item && group ? ' row-in-group' : ''}`}
                data-found={key === foundKey || undefined}
                // a click or a key inside a card (or group) find opened makes it the user's: it stays open
                onPointerDown={() => controller.keepOpened(key, group?.key)}
                onKeyDown={() => controller.keepOpened(key, group?.key)}
              >
                {item ? (
                  <ItemView item={item} sessionKey={sessionKey} found={key === foundKey ? (focus?.query ?? '') : undefined} />
                ) : (
                  <LazyBoundary name="tool calls">
                    <ToolGroupView group={group!} open={!!expanded[key]} sessionKey={sessionKey} />
                  </LazyBoundary>
                )}
              </div>
            )
          })}
        </div>
      </div>
      {hasMore && virtualItems[0]?.index === 0 && (
        <div className="load-older" role="status">
          {loading ? 'Loading earlier messages…' : 'Scroll up for earlier messages'}
        </div>
      )}
      {detached && last === rows.length - 1 && (
        <div className="load-newer" role="status">
          {loading ? 'Loading newer messages…' : 'Scroll down for newer messages'}
        </div>
      )}
      {(detached || !atEnd) && items.length > 0 && (
        <button type="button" className="btn jump-latest" onClick={jump}>
          <IconDown /> Jump to latest
        </button>
      )}
    </div>
  )
}
