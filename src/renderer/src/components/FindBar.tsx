// Find in the conversation (Ctrl/Cmd+F). The list is virtualized, so the browser's find cannot reach rows
// that are not rendered, nor pages not loaded: the runtime searches the whole transcript
// (loopdesk.chat.find) and the bar steps through its matches, each loaded and scrolled to by
// controller.revealMessage. It counts and steps through occurrences of the query, each message's in turn
// (`state/find-steps.ts`); the current one is marked apart from the others in its row.
import { useCallback, useEffect, useRef, useState } from 'react'
import { useAppStore, useController } from '../app-context'
import type { ChatFindMatch } from '../../../shared/methods'
import { SEARCH_CHARS_PER_MESSAGE } from '../../../shared/search-text'
import { cursorPosition, lastCursor, stepCursor, type FindCursor } from '../state/find-steps'
import { IconArrowDown, IconArrowUp, IconX } from './icons'

/** typing pauses this long before the runtime is asked */
const FIND_DEBOUNCE_MS = 200

export interface FindBarProps {
  sessionKey: string
  /** bumps when Ctrl/Cmd+F is pressed again while the bar is open: focus and select the field */
  focusSignal: number
  onClose: () => void
}

interface Found {
  query: string
  matches: ChatFindMatch[]
  total: number
  /** occurrences over the whole transcript (a runtime without counts: one per message) */
  occurrences?: number
  partial: boolean
}

export function FindBar({ sessionKey, focusSignal, onClose }: FindBarProps) {
  const controller = useController()
  const inputRef = useRef<HTMLInputElement>(null)
  // where focus was when the bar opened: Escape gives it back
  const returnTo = useRef<Element | null>(typeof document !== 'undefined' ? document.activeElement : null)
  const [query, setQuery] = useState('')
  const [found, setFound] = useState<Found>()
  const [at, setAt] = useState<FindCursor>()
  const [error, setError] = useState<string>()
  const seq = useRef(0)
  // find reads a message's first SEARCH_CHARS_PER_MESSAGE characters: with a longer one on screen (a 5,000-line
  // file), "No matches" for a line the user can see reads as broken, so the status says where it looked
  const longMessage = useAppStore('runs', (s) =>
    (s.transcripts[sessionKey]?.items ?? []).some((it) => (it.kind === 'assistant' || it.kind === 'user') && it.text.length > SEARCH_CHARS_PER_MESSAGE),
  )

  useEffect(() => {
    inputRef.current?.focus()
    inputRef.current?.select()
  }, [focusSignal])

  // the highlight belongs to the bar: it goes when the bar does
  useEffect(() => () => controller.clearFocus(), [controller])

  const go = useCallback(
    (f: Found, c: FindCursor | undefined) => {
      setAt(c)
      const m = c ? f.matches[c.match] : undefined
      if (m && c) void controller.revealMessage(sessionKey, m.messageId, { persist: true, query: f.query, occurrence: c.occurrence })
    },
    [controller, sessionKey],
  )

  useEffect(() => {
    const q = query.trim()
    const mine = ++seq.current
    if (!q) return // (cleared in onChange)
    const timer = setTimeout(async () => {
      try {
        const r = await controller.findInChat(sessionKey, q)
        if (mine !== seq.current) return // a newer query won
        const f = { query: q, ...r }
        setFound(f)
        setError(undefined)
        // the newest occurrence first: the conversation is read from its end
        if (f.matches.length) go(f, lastCursor(f.matches))
        else {
          setAt(undefined)
          controller.clearFocus()
        }
      } catch (err) {
        if (mine === seq.current) setError(err instanceof Error ? err.message : String(err))
      }
    }, FIND_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [query, sessionKey, controller, go])

  const step = useCallback(
    (by: 1 | -1) => {
      if (!found?.matches.length) return
      go(found, stepCursor(found.matches, at, by))
    },
    [found, at, go],
  )

  const close = useCallback(() => {
    onClose()
    const back = returnTo.current
    if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus()
    else document.querySelector<HTMLElement>('.composer textarea')?.focus()
  }, [onClose])

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return
    e.preventDefault()
    step(e.shiftKey ? -1 : 1)
  }
  // Escape anywhere in the bar (the field or its buttons); the window's Escape (an overlay) does not see it
  const onBarKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'Escape' || e.defaultPrevented) return
    e.preventDefault()
    e.stopPropagation()
    close()
  }

  const searching = query.trim() !== '' && found?.query !== query.trim() && !error
  const status = error
    ? `Find failed: ${error}`
    : !query.trim() || searching
      ? ''
      : !found?.total
        ? longMessage
          ? `No matches in the first ${SEARCH_CHARS_PER_MESSAGE.toLocaleString('en-US')} characters of each message`
          : 'No matches'
        : `${at ? cursorPosition(found.matches, found.occurrences ?? found.total, at) : 0} of ${found.occurrences ?? found.total}${found.partial ? '+' : ''}`
  const none = !found?.matches.length

  return (
    <div className="find-bar" role="search" aria-label="Find in conversation" onKeyDown={onBarKeyDown}>
      <input
        ref={inputRef}
        type="search"
        className="find-input"
        aria-label="Find in conversation"
        placeholder="Find in conversation"
        value={query}
        maxLength={200}
        onChange={(e) => {
          setQuery(e.target.value)
          if (e.target.value.trim()) return
          setFound(undefined)
          setAt(undefined)
          setError(undefined)
          controller.clearFocus()
        }}
        onKeyDown={onKeyDown}
        aria-describedby="find-status"
      />
      <span id="find-status" className="find-status" role="status" aria-live="polite">
        {status}
      </span>
      <button type="button" className="btn btn-ghost btn-icon" aria-label="Previous match" title="Previous match (Shift+Enter)" disabled={none} onClick={() => step(-1)}>
        <IconArrowUp width={14} height={14} />
      </button>
      <button type="button" className="btn btn-ghost btn-icon" aria-label="Next match" title="Next match (Enter)" disabled={none} onClick={() => step(1)}>
        <IconArrowDown width={14} height={14} />
      </button>
      <button type="button" className="btn btn-ghost btn-icon" aria-label="Close find" title="Close (Escape)" onClick={close}>
        <IconX width={14} height={14} />
      </button>
    </div>
  )
}
