// Sessions sidebar: live status, last activity, search by label and content, create / rename / pin /
// archive / reset / delete (destructive actions confirm first). Pinned sessions come first; archived
// ones are hidden behind "Show archived".
import { memo, useEffect, useMemo, useRef, useState } from 'react'
import type { SessionRow } from '../../../shared/methods'
import { sessionActivityAt } from '../../../shared/sidebar-order'
import { visibleSessions } from './session-order'
import { useAppStore, useController } from '../app-context'
import { approvalsOf, isWaiting } from '../state/stores'
import { LazyBoundary } from '../lib/lazy-view'
import { SessionMenuView } from '../lazy-views'
import { relativeTime } from '../../../shared/relative-time'
import { plainPreview } from '../markdown/plain-preview'
import { ConfirmDialog } from './Dialog'
import { sessionTitle } from '../../../shared/session-title'
import { IconArchive, IconLock, IconMore, IconPin, IconPlus, IconSearch } from './icons'
import { ariaKeys, keyLabel } from '../shortcuts'

export type SessionState = 'idle' | 'waiting' | 'running' | 'approval' | 'error' | 'unknown'

/**
 * `approvals`: how many exec approvals of the session wait for an answer (the run waits on them); `waiting`: a run
 * of it was accepted but waits for a slot (nothing of it runs yet); `offline`: the gateway connection is down, so
 * whether a run that was going still goes is not known (it may have ended, or the gateway may have died with it).
 */
export function sessionState(row: SessionRow, approvals = 0, waiting = false, offline = false): SessionState {
  if (offline && (approvals > 0 || waiting || row.status === 'running')) return 'unknown'
  if (approvals > 0) return 'approval'
  if (row.status === 'running') return 'running'
  if (waiting) return 'waiting'
  // an interrupted run (the app stopped mid-run) is reported as failed (+ interrupted), like a failure
  if (row.status === 'failed' || row.status === 'timeout') return 'error'
  return 'idle'
}

export const STATE_LABEL: Record<SessionState, string> = {
  idle: 'Idle',
  waiting: 'Waiting for a slot',
  running: 'Running',
  approval: 'Needs approval',
  error: 'Error',
  unknown: 'Connection lost',
}

export function Sidebar() {
  const controller = useController()
  const rows = useAppStore('sessions', (s) => s.rows)
  const selectedKey = useAppStore('sessions', (s) => s.selectedKey)
  const search = useAppStore('sessions', (s) => s.search)
  const contentMatches = useAppStore('sessions', (s) => s.contentMatches)
  const contentSnippets = useAppStore('sessions', (s) => s.contentSnippets)
  const contentHits = useAppStore('sessions', (s) => s.contentHits)
  const error = useAppStore('sessions', (s) => s.error)
  const showArchived = useAppStore('sessions', (s) => s.showArchived)
  const [confirm, setConfirm] = useState<{ kind: 'delete' | 'reset'; row: SessionRow } | null>(null)
  // what a delete or reset also stops, as the session is now (a reply may start or end while the dialog is open)
  const confirmRunning = useAppStore('sessions', (s) => !!confirm && !!s.rows.find((r) => r.key === confirm.row.key)?.activeRunId)
  const confirmWaiting = useAppStore('composer', (s) => (confirm ? (s.queues[confirm.row.key] ?? []).filter((q) => q.status === 'queued').length : 0))
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(t)
  }, [])

  const archivedCount = useMemo(() => rows.filter((r) => r.archived).length, [rows])
  const visible = useMemo(() => visibleSessions(rows, { search, showArchived, contentMatches }), [rows, search, contentMatches, showArchived])
  // The list is one Tab stop (roving tabindex): the row last focused while it is listed, else the open session,
  // else the first. Arrow keys, Home and End move between rows; a row's "…" is → (or Shift+F10 / the menu key).
  // (the row focused counts only while the same session is open: one opened since — a click, Alt+↓/↑, a new
  // one — takes the Tab stop with it)
  const [focused, setFocused] = useState<{ key: string; open?: string }>()
  const focusKey = focused && focused.open === selectedKey ? focused.key : undefined
  const tabStop = visible.find((r) => r.key === focusKey)?.key ?? visible.find((r) => r.key === selectedKey)?.key ?? visible[0]?.key

  // A row that had the focus and left the list (archived, deleted — here or elsewhere) hands the focus to the
  // row now in its place, instead of letting it fall to the page. Focus that moved on elsewhere is left alone.
  const listRef = useRef<HTMLUListElement>(null)
  const lastFocused = useRef<{ key: string; index: number } | null>(null)
  useEffect(() => {
    const f = lastFocused.current
    if (!f || visible.some((r) => r.key === f.key)) return
    lastFocused.current = null
    const active = document.activeElement
    if (active && active !== document.body && active.isConnected) return
    const entries = listRef.current?.querySelectorAll<HTMLElement>('li[data-key] .session-main')
    const next = entries?.[Math.min(f.index, entries.length - 1)]
    if (next) next.focus()
    else document.querySelector<HTMLElement>('.sidebar .btn-primary')?.focus()
  }, [visible])

  return (
    <nav aria-label="Sessions" className="sidebar">
      <div className="sidebar-head">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Loopdesk</span>
        </div>
        <button
          type="button"
          className="btn btn-primary btn-sm"
          title={`New session (${keyLabel('newSession')})`}
          aria-keyshortcuts={ariaKeys('newSession')}
          onClick={() => void controller.createSession()}
        >
          <IconPlus /> New session
        </button>
      </div>
      <div className="search">
        <IconSearch />
        <input
          type="search"
          aria-label="Search sessions"
          placeholder="Search sessions and messages"
          value={search}
          onChange={(e) => controller.setSearch(e.target.value)}
        />
      </div>
      {error && <p className="sidebar-error" role="alert">Could not load sessions: {error}</p>}
      <ul
        ref={listRef}
        className="session-list"
        onFocus={(e) => {
          const key = (e.target as HTMLElement).closest<HTMLElement>('li[data-key]')?.dataset.key
          if (key) lastFocused.current = { key, index: visible.findIndex((r) => r.key === key) }
          if (key) setFocused({ key, open: selectedKey })
        }}
        onKeyDown={(e) => {
          // between rows: from a row or its "…" (not from an open menu or the rename field, which have their own keys)
          const target = e.target as HTMLElement
          if (e.altKey || e.ctrlKey || e.metaKey || target.closest('[role="menu"]') || target.tagName === 'INPUT') return
          const rowsHere = [...(listRef.current?.querySelectorAll<HTMLElement>('li[data-key] .session-main') ?? [])]
          const li = target.closest<HTMLElement>('li[data-key]')
          const i = rowsHere.findIndex((b) => b.closest('li') === li)
          let next: HTMLElement | undefined
          if (e.key === 'ArrowDown') next = rowsHere[Math.min(i + 1, rowsHere.length - 1)]
          else if (e.key === 'ArrowUp') next = rowsHere[Math.max(i - 1, 0)]
          else if (e.key === 'Home') next = rowsHere[0]
          else if (e.key === 'End') next = rowsHere[rowsHere.length - 1]
          else if (e.key === 'ArrowLeft' && !target.classList.contains('session-main')) next = rowsHere[i]
          else return
          e.preventDefault()
          next?.focus()
        }}
      >
        {visible.map((row) => (
          <SessionEntry
            key={row.key}
            row={row}
            selected={row.key === selectedKey}
            tabStop={row.key === tabStop}
            now={now}
            snippet={search.trim() ? contentSnippets?.[row.key] : undefined}
            hit={search.trim() ? contentHits?.[row.key] : undefined}
            query={search.trim() && contentHits?.[row.key] ? search.trim() : undefined}
            onConfirm={(kind) => setConfirm({ kind, row })}
          />
        ))}
        {visible.length === 0 && <li className="session-empty">{search ? 'No sessions match.' : archivedCount > 0 ? 'No active sessions.' : 'No sessions yet.'}</li>}
      </ul>
      {(archivedCount > 0 || showArchived) && (
        <button
          type="button"
          className="btn btn-ghost btn-sm archived-toggle"
          aria-pressed={showArchived}
          onClick={() => controller.setShowArchived(!showArchived)}
        >
          <IconArchive /> {showArchived ? 'Hide archived' : `Show archived (${archivedCount})`}
        </button>
      )}
      {confirm && (
        <ConfirmDialog
          title={confirm.kind === 'delete' ? 'Delete session?' : 'Reset session?'}
          message={
            (confirm.kind === 'delete'
              ? `“${sessionTitle(confirm.row)}” and its transcript will be deleted. This cannot be undone.`
              : `The conversation in “${sessionTitle(confirm.row)}” will be cleared and a fresh session started.`) +
            alsoStops(confirmRunning, confirmWaiting)
          }
          confirmLabel={confirm.kind === 'delete' ? 'Delete' : 'Reset'}
          danger
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            const { kind, row } = confirm
            setConfirm(null)
            void (kind === 'delete' ? controller.deleteSession(row.key) : controller.resetSession(row.key))
          }}
        />
      )}
    </nav>
  )
}

/** What deleting or resetting a session also does to its reply in progress and its waiting messages. */
function alsoStops(running: boolean, waiting: number): string {
  const dropped = waiting === 1 ? 'the message waiting to be sent is dropped' : `the ${waiting} messages waiting to be sent are dropped`
  if (running) return waiting > 0 ? ` The reply being written is stopped and ${dropped}.` : ' The reply being written is stopped.'
  return waiting > 0 ? ` ${dropped[0].toUpperCase()}${dropped.slice(1)}.` : ''
}

interface EntryProps {
  row: SessionRow
  selected: boolean
  /** the list's one Tab stop (the others are reached with the arrow keys) */
  tabStop: boolean
  now: number
  /** while searching: the matching message of a session found by its messages */
  snippet?: string
  /** the matching message (its history row id): the row opens the session there */
  hit?: string
  /** with a hit: the search text, marked in the message the session opens at */
  query?: string
  onConfirm: (kind: 'delete' | 'reset') => void
}

const SessionEntry = memo(function SessionEntry({ row, selected, tabStop, now, snippet, hit, query, onConfirm }: EntryProps) {
  const controller = useController()
  const [menu, setMenu] = useState(false)
  const [editing, setEditing] = useState(false)
  const menuRef = useRef<HTMLDivElement>(null)
  const moreRef = useRef<HTMLButtonElement>(null)
  const mainRef = useRef<HTMLButtonElement>(null)
  // a rename ended from the keyboard (Enter, Escape) gives focus back to the row it replaced
  const refocusRow = useRef(false)
  useEffect(() => {
    if (editing || !refocusRow.current) return
    refocusRow.current = false
    mainRef.current?.focus()
  }, [editing])
  // an action that leaves the row where it is: focus goes back to "…" (its menu item unmounts; focus would fall to <body>)
  const closeMenuToButton = () => {
    setMenu(false)
    moreRef.current?.focus()
  }
  const title = sessionTitle(row)
  const approvals = useAppStore('sessions', (s) => approvalsOf(s, row.key))
  const waiting = useAppStore('sessions', (s) => isWaiting(s, row.key))
  const offline = useAppStore('settings', (s) => s.connection !== 'ready')
  const state = sessionState(row, approvals, waiting, offline)

  useEffect(() => {
    if (!menu) return
    const close = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenu(false)
    }
    document.addEventListener('mousedown', close)
    return () => document.removeEventListener('mousedown', close)
  }, [menu])

  return (
    <li
      data-key={row.key}
      className={`session ${selected ? 'selected' : ''} ${row.archived ? 'archived' : ''}`}
      data-state={state}
      data-pinned={row.pinned ? 'true' : undefined}
      data-archived={row.archived ? 'true' : undefined}
    >
      {editing ? (
        <RenameField
          initial={title}
          onDone={async (label, byKey) => {
            refocusRow.current = byKey
            setEditing(false)
            if (label !== null && label !== title) await controller.renameSession(row.key, label)
          }}
        />
      ) : (
        <button
          ref={mainRef}
          type="button"
          className="session-main"
          aria-current={selected ? 'true' : undefined}
          aria-keyshortcuts="Shift+F10 ArrowRight"
          tabIndex={tabStop ? 0 : -1}
          onKeyDown={(e) => {
            // the row's actions without a second Tab stop: → or the context-menu keys open its "…" menu
            if (e.altKey || e.ctrlKey || e.metaKey) return
            if (e.key === 'ArrowRight' || e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
              e.preventDefault()
              setMenu(true)
            }
          }}
          // the query too: the hit's row marks it, and a tool card holding it opens
          onClick={() => void (hit ? controller.revealMessage(row.key, hit, { query }) : controller.selectSession(row.key))}
          onDoubleClick={() => setEditing(true)}
        >
          <span className={`status-dot ${state}`} aria-hidden="true" />
          <span className="session-text">
            {/* the full name where the row cuts it off */}
            <span className="session-title" title={title}>
              {row.pinned && (
                <span className="session-flag" role="img" aria-label="Pinned" title="Pinned">
                  <IconPin width={12} height={12} />
                </span>
              )}
              {row.permissionMode === 'read-only' && (
                <span className="session-flag" role="img" aria-label="Read-only" title="Read-only: the agent cannot change files or run commands here">
                  <IconLock width={12} height={12} />
                </span>
              )}
              {/* isolated: a bidi override in a name (a label) stays inside it, never reorders the row */}
              <SessionName title={title} />
            </span>
            <span className="session-meta">
              {row.archived && (
                <>
                  <span className="session-archived">Archived</span>
                  <span aria-hidden="true"> · </span>
                </>
              )}
              <span className={`session-state ${state}`}>{STATE_LABEL[state]}</span>
              <span aria-hidden="true"> · </span>
              {/* the time the list is ordered by: a rename is no activity */}
              <span>{relativeTime(sessionActivityAt(row), now)}</span>
            </span>
            {snippet ? (
              <span className="session-preview session-snippet" title={snippet}>
                {snippet}
              </span>
            ) : row.lastError && state === 'error' ? (
              <span className="session-preview error-text">{row.lastError}</span>
            ) : (
              row.lastMessagePreview && <span className="session-preview">{plainPreview(row.lastMessagePreview)}</span>
            )}
          </span>
        </button>
      )}
      <div className="session-actions" ref={menuRef}>
        <button
          ref={moreRef}
          type="button"
          className="btn btn-ghost btn-icon"
          aria-label={`Actions for ${title}`}
          aria-haspopup="menu"
          aria-expanded={menu}
          tabIndex={-1}
          onClick={() => setMenu((m) => !m)}
        >
          <IconMore />
        </button>
        {menu && (
          // a chunk of its own (SessionMenu.tsx), preloaded while idle: what first paint loads stays under 500 kB
          <LazyBoundary name="actions" className="menu">
            <SessionMenuView
              row={row}
              title={title}
              onClose={() => setMenu(false)}
              onCloseToButton={closeMenuToButton}
              onRename={() => (setMenu(false), setEditing(true))}
              onConfirm={onConfirm}
            />
          </LazyBoundary>
        )}
      </div>
    </li>
  )
})

/** a fork's name ending (fork-name.ts): "(fork)", "(fork 2)", … */
const FORK_END = /^([\s\S]*\S)( \(fork(?: \d+)?\))$/

/**
 * A session's name in its row. A long name is cut off at the row's end, which would cut a fork's "(fork)" ending
 * too — Regenerate and Edit make "<title> (fork)" next to "<title>", and the two rows would read the same: the
 * ending stays in view and the name before it gives way.
 */
function SessionName({ title }: { title: string }) {
  const fork = FORK_END.exec(title)
  if (!fork) return <bdi className="session-name-base">{title}</bdi>
  return (
    <bdi className="session-name">
      <bdi className="session-name-base">{fork[1]}</bdi>
      <span className="session-name-end">{fork[2]}</span>
    </bdi>
  )
}

function RenameField({ initial, onDone }: { initial: string; onDone: (label: string | null, byKey: boolean) => void }) {
  const [value, setValue] = useState(initial)
  const done = useRef(false)
  const input = useRef<HTMLInputElement>(null)
  // the current name, selected: typing replaces it, an arrow key edits it
  useEffect(() => {
    input.current?.focus()
    input.current?.select()
  }, [])
  const finish = (v: string | null, byKey: boolean) => {
    if (done.current) return
    done.current = true
    onDone(v, byKey)
  }
  return (
    <input
      ref={input}
      className="rename-input"
      aria-label="Session name"
      value={value}
      maxLength={200}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        // (default prevented: the row's button gets focus back and must not take this Enter as a click)
        if (e.key === 'Enter' || e.key === 'Escape') e.preventDefault()
        if (e.key === 'Enter') finish(value, true)
        if (e.key === 'Escape') finish(null, true)
      }}
      onBlur={() => finish(value, false)}
    />
  )
}
