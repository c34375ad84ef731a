// The composer: Enter sends, Shift+Enter is a newline, ↑ at the start recalls earlier messages.
// While a run is active: Stop (or Escape; then "Stopping…" until the run ends), Steer into the running
// reply, or Queue a follow-up; the queue shows what happened to each message. A run that only waits (for a free
// slot, or its session's earlier run) has no turn to steer into: the runtime would queue a steer as a follow-up,
// so only Queue is offered until it starts. Follow-ups waiting when
// the run was stopped are held: they stay listed, to send or remove. Drafts persist per session. A "/"
// offers the chat commands (SlashMenu). The lock makes the session read-only (the agent reads and searches
// but cannot change files or run commands) from its next run on.
// Files are attached with the paperclip, by pasting or by dropping them (see FileDrop); they go with the
// next message — also a steered or queued one — and a message may be just attachments.
import { useEffect, useMemo, useRef, useState } from 'react'
import type { QueueItem } from '../../../shared/events'
import { MAX_MESSAGE_CHARS, messageLength } from '../../../shared/message-limit'
import { isBlankMessage } from '../../../shared/hidden-chars'
import { useAppStore, useController } from '../app-context'
import { activeRun } from '../state/run-reducer'
import type { PendingAttachment } from '../state/attachments'
import type { QueueEntry } from '../state/stores'
import type { Item } from '../state/types'
import { tooLongText } from '../state/send-error'
import { offlineReason } from '../state/offline-reason'
import { MAX_SAVED_DRAFT_CHARS } from '../state/saved-drafts'
import { messageBox, useRefocus } from '../lib/refocus'
import { AttachmentChips } from './AttachmentChips'
import { SLASH_MENU_ID, SlashMenu, slashOptionId, useSlashMenu } from './SlashMenu'
import { IconArrowDown, IconArrowUp, IconLock, IconPaperclip, IconSend, IconStop, IconX } from './icons'

const OUTCOME: Record<QueueItem['status'], string> = {
  queued: 'Queued',
  steered: 'Steered into the running reply',
  started: 'Started as the next run',
  collected: 'Sent with the next run',
  dropped: 'Dropped (queue full)',
  removed: 'Removed',
  failed: 'Failed',
}

const moveId = (id: string, by: -1 | 1) => `queue-move-${by < 0 ? 'up' : 'down'}-${id}`

function QueueList({ sessionKey, items, connected }: { sessionKey: string; items: QueueEntry[]; connected: boolean }) {
  const controller = useController()
  const list = useRef<HTMLElement>(null)
  // a removed message's Remove (or "Clear finished") goes away: focus moves to the message after it, else
  // the one before, else the message box — not to <body>
  const removedAt = useRef(0)
  const refocus = useRefocus(items, () => {
    const removes = [...(list.current?.querySelectorAll<HTMLElement>('[data-queue-remove]') ?? [])]
    return [removes[removedAt.current] ?? removes.at(-1), messageBox()]
  })
  if (!items.length) return null
  const finished = items.some((q) => q.status !== 'queued')
  // the waiting ones, in the order the runtime will take them: what Move up / Move down reorder
  const waiting = items.filter((q) => q.status === 'queued').map((q) => q.id)
  const move = async (id: string, by: -1 | 1) => {
    await controller.moveQueued(sessionKey, id, by)
    // keyboard users stay on the message they moved: the same button, or the other one at the list's end
    const same = document.getElementById(moveId(id, by)) as HTMLButtonElement | null
    ;(same && !same.disabled ? same : document.getElementById(moveId(id, by < 0 ? 1 : -1)))?.focus()
  }
  return (
    <section className="queue" aria-label="Queued messages" ref={list}>
      <ul>
        {items.map((q) => (
          <li key={q.id} className={`queue-item q-${q.status}`}>
            <span className={`badge badge-q-${q.status}${held(q) ? ' badge-q-held' : ''}`}>
              {held(q) ? 'Paused' : q.status === 'queued' ? (q.mode === 'steer' ? 'Steer' : 'Queued') : OUTCOME[q.status]}
            </span>
            <span className="queue-text" title={q.text}>
              {q.text}
            </span>
            {held(q) ? <span className="queue-detail">Not sent: the reply was stopped</span> : q.detail && <span className="queue-detail">{q.detail}</span>}
            {held(q) && (
              <button
                type="button"
                className="btn btn-sm"
                aria-label={`Send queued message: ${q.text.slice(0, 40)}`}
                disabled={!connected}
                onClick={() => void controller.releaseQueued(sessionKey, q.id)}
              >
                Send
              </button>
            )}
            {q.status === 'queued' && waiting.length > 1 && (
              <>
                <button
                  type="button"
                  id={moveId(q.id, -1)}
                  className="btn btn-ghost btn-icon"
                  aria-label={`Move up: ${q.text.slice(0, 40)}`}
                  title={connected ? 'Move up (sent earlier)' : 'Not connected: the queue refreshes when the connection is back'}
                  disabled={!connected || waiting.indexOf(q.id) === 0}
                  onClick={() => void move(q.id, -1)}
                >
                  <IconArrowUp />
                </button>
                <button
                  type="button"
                  id={moveId(q.id, 1)}
                  className="btn btn-ghost btn-icon"
                  aria-label={`Move down: ${q.text.slice(0, 40)}`}
                  title={connected ? 'Move down (sent later)' : 'Not connected: the queue refreshes when the connection is back'}
                  disabled={!connected || waiting.indexOf(q.id) === waiting.length - 1}
                  onClick={() => void move(q.id, 1)}
                >
                  <IconArrowDown />
                </button>
              </>
            )}
            {q.status === 'queued' && (
              <button
                type="button"
                className="btn btn-ghost btn-icon"
                aria-label={`Remove queued message: ${q.text.slice(0, 40)}`}
                disabled={!connected}
                title={connected ? undefined : 'Not connected: the queue refreshes when the connection is back'}
                data-queue-remove
                onClick={() => {
                  removedAt.current = waiting.indexOf(q.id)
                  refocus()
                  void controller.removeQueued(sessionKey, q.id)
                }}
              >
                <IconX />
              </button>
            )}
          </li>
        ))}
      </ul>
      {finished && (
        <button type="button" className="btn btn-link btn-xs" onClick={() => {
            removedAt.current = 0
            refocus()
            controller.dismissQueueOutcomes(sessionKey)
          }}
        >
          Clear finished
        </button>
      )}
    </section>
  )
}

const held = (q: QueueEntry) => q.status === 'queued' && !!q.held

const EMPTY_QUEUE: QueueEntry[] = []
/** the count shows from here on: well before the limit, so a long paste is not a surprise */
const COUNT_FROM = Math.floor(MAX_MESSAGE_CHARS * 0.9)
const BLOCKED_ID = 'composer-blocked'
const INVISIBLE_ONLY_TEXT = 'Nothing to send: the message has only invisible characters.'
const OPENING_TEXT = 'Opening the new session…'

const NO_ATTACHMENTS: PendingAttachment[] = []

/** The session's own user messages, oldest first, repeats next to each other folded (what ↑ offers without local history). */
function sessionUserTexts(items: readonly Item[] | undefined): string[] {
  const out: string[] = []
  for (const it of items ?? []) {
    if (it.kind !== 'user' || !it.text.trim() || it.via === 'collect') continue
    if (out[out.length - 1] !== it.text) out.push(it.text)
  }
  return out.slice(-100)
}

export function Composer({ sessionKey }: { sessionKey: string }) {
  const controller = useController()
  const draft = useAppStore('composer', (s) => s.drafts[sessionKey] ?? '')
  const history = useAppStore('composer', (s) => s.history)
  const queue = useAppStore('composer', (s) => s.queues[sessionKey] ?? EMPTY_QUEUE)
  const run = useAppStore('runs', (s) => {
    const t = s.transcripts[sessionKey]
    return t ? activeRun(t) : undefined
  })
  const connection = useAppStore('settings', (s) => s.connection)
  const connected = connection === 'ready'
  const offline = offlineReason(connection)
  const draftsUnsaved = useAppStore('composer', (s) => !!s.draftsUnsaved)
  const attachments = useAppStore('composer', (s) => s.attachments[sessionKey] ?? NO_ATTACHMENTS)
  const encoding = useAppStore('composer', (s) => !!s.encoding[sessionKey])
  const readOnly = useAppStore('sessions', (s) => s.rows.find((r) => r.key === sessionKey)?.permissionMode === 'read-only')
  const ref = useRef<HTMLTextAreaElement>(null)
  const picker = useRef<HTMLInputElement>(null)
  // Position in the input history while browsing with ↑/↓ (-1 = editing the draft).
  const [histPos, setHistPos] = useState(-1)
  const savedDraft = useRef('')
  // what ↑/↓ browse: this window's sent messages, else (a new browser, another machine) the session's own
  // user messages — read when browsing starts, not subscribed (that would re-render on every delta)
  const recall = useRef<string[]>([])
  const running = !!run
  const stopping = !!run?.stopping
  // accepted but not started (the `lane` wait), and no earlier reply of the session running: nothing to steer into
  const othersRunning = useAppStore('runs', (s) => !!s.transcripts[sessionKey]?.items.some((i) => i.kind === 'run' && i.status === 'running' && !i.waiting))
  const waiting = !!run?.waiting && !othersRunning
  // the message's length as the gateway counts it, only near the limit (UTF-16 length bounds it from above)
  const length = useMemo(() => (draft.length >= COUNT_FROM ? messageLength(draft.trim()) : undefined), [draft])
  const over = length !== undefined && length > MAX_MESSAGE_CHARS ? length - MAX_MESSAGE_CHARS : 0
  // typed but shows nothing (a lone U+200B, bidi controls): the runtime refuses it like an empty message
  const invisibleOnly = !!draft.trim() && !attachments.length && isBlankMessage(draft)
  // a new session is on its way to being opened: what is typed now belongs to it, not to this one
  const opening = useAppStore('ui', (s) => !!s.openingSession)
  const blocked = offline ?? (opening ? OPENING_TEXT : over ? tooLongText(over) : invisibleOnly ? INVISIBLE_ONLY_TEXT : undefined)
  const canSend = connected && !opening && !over && !encoding && (!isBlankMessage(draft) || attachments.length > 0)
  const steerTitle = attachments.some((a) => a.image)
    ? 'Inject into the running reply (images reach it as a saved file path; Queue sends them as images)'
    : 'Inject into the running reply'

  // Mounted per session (keyed by the session in App): focus the box when a session opens.
  useEffect(() => {
    ref.current?.focus()
  }, [])

  // Grow with the content up to a limit.
  useEffect(() => {
    const el = ref.current
    if (!el) return
    el.style.height = 'auto'
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`
  }, [draft])

  const submit = (mode?: 'steer' | 'followup') => {
    if (!canSend) return
    setHistPos(-1)
    void controller.send(draft, mode ?? (running ? 'followup' : undefined), attachments)
    // Send, Queue and Steer go disabled or away once the box is empty: the box keeps the keyboard focus
    ref.current?.focus()
  }

  const slash = useSlashMenu(draft, (text) => controller.setDraft(sessionKey, text), () => submit())

  // Escape stops the streaming reply, like Stop — from the box or from anywhere else that gives Escape no
  // meaning of its own (a dialog, a menu, another field).
  useEffect(() => {
    if (!running || stopping) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return
      const target = e.target as HTMLElement | null
      const field = target?.closest?.('input, textarea, select, [contenteditable="true"]')
      if (field && field !== ref.current) return
      if (document.querySelector('[role="dialog"], [role="alertdialog"], [aria-modal="true"], [role="menu"]')) return
      if (slash.open) return // Escape closes the command menu first
      e.preventDefault()
      void controller.stop()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [running, stopping, slash.open, controller])

  // Files in the clipboard (a screenshot, a copied image or file) are attached instead of pasted as text.
  const onPaste = (e: React.ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(e.clipboardData?.files ?? [])
    if (!files.length) return
    e.preventDefault()
    void controller.addAttachments(sessionKey, files)
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLTextAreaElement>) => {
    const el = e.currentTarget
    if (slash.onKeyDown(e)) return
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      submit()
      return
    }
    if (e.key === 'ArrowUp' && el.selectionStart === 0 && el.selectionEnd === 0) {
      if (histPos < 0) recall.current = history.length ? history : sessionUserTexts(controller.stores.runs.getState().transcripts[sessionKey]?.items)
      const list = recall.current
      if (!list.length) return
      e.preventDefault()
      const next = histPos < 0 ? list.length - 1 : Math.max(0, histPos - 1)
      if (histPos < 0) savedDraft.current = draft
      setHistPos(next)
      controller.setDraft(sessionKey, list[next])
      return
    }
    if (e.key === 'ArrowDown' && histPos >= 0 && el.selectionStart === el.value.length) {
      e.preventDefault()
      const list = recall.current
      const next = histPos + 1
      if (next >= list.length) {
        setHistPos(-1)
        controller.setDraft(sessionKey, savedDraft.current)
      } else {
        setHistPos(next)
        controller.setDraft(sessionKey, list[next])
      }
    }
  }

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}
    >
      <QueueList sessionKey={sessionKey} items={queue} connected={connected} />
      <div className={`composer-box ${running ? 'is-running' : ''}`}>
        <SlashMenu
          menu={slash}
          onPick={(c) => {
            slash.complete(c)
            ref.current?.focus()
          }}
        />
        <textarea
          ref={ref}
          aria-label="Message"
          aria-autocomplete="list"
          // no aria-expanded: a textarea is a textbox, which does not take it (axe aria-allowed-attr);
          // aria-controls + aria-activedescendant say the command list is there
          aria-controls={slash.open ? SLASH_MENU_ID : undefined}
          aria-activedescendant={slash.active ? slashOptionId(slash.active.name) : undefined}
          rows={1}
          readOnly={opening}
          placeholder={waiting ? 'Queue a follow-up (the reply has not started yet)…' : running ? 'Steer the running reply or queue a follow-up…' : 'Message Loopdesk…'}
          value={draft}
          onChange={(e) => {
            setHistPos(-1)
            controller.setDraft(sessionKey, e.target.value)
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <AttachmentChips sessionKey={sessionKey} />
        <div className="composer-actions">
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            aria-label="Choose files to attach"
            onChange={(e) => {
              const files = Array.from(e.currentTarget.files ?? [])
              e.currentTarget.value = '' // picking the same file again is a change too
              void controller.addAttachments(sessionKey, files)
            }}
          />
          <button type="button" className="btn btn-ghost btn-icon composer-attach" aria-label="Attach files" title="Attach files (or paste, or drop them here)" onClick={() => picker.current?.click()}>
            <IconPaperclip />
          </button>
          {/* A switch whose visible text is the mode in force (a button labelled with the mode it would switch to
              read as a status while the agent was writing files). Its name holds that text (WCAG 2.5.3 Label in
              Name: "click Changes allowed" works by voice) and, off, says which switch it is. */}
          <button
            type="button"
            role="switch"
            aria-checked={readOnly}
            aria-label={readOnly ? undefined : 'Changes allowed (read-only off)'}
            className={`btn btn-ghost btn-sm composer-readonly ${readOnly ? 'is-on' : ''}`}
            disabled={!connected}
            title={
              readOnly
                ? 'Read-only: the agent can read and search files but not change them or run commands. Click to allow changes (from the next reply on).'
                : 'Make this session read-only: the agent can read and search files but not change them or run commands (from the next reply on).'
            }
            onClick={() => void controller.setReadOnly(sessionKey, !readOnly)}
          >
            <span className="composer-readonly-track" aria-hidden="true" />
            {readOnly ? (
              <>
                <IconLock /> Read-only
              </>
            ) : (
              'Changes allowed'
            )}
          </button>
          {running ? (
            <>
              {!waiting && (
                <button
                  type="button"
                  className="btn btn-sm"
                  disabled={!canSend}
                  onClick={() => submit('steer')}
                  title={blocked ?? steerTitle}
                  aria-describedby={blocked ? BLOCKED_ID : undefined}
                >
                  Steer
                </button>
              )}
              <button
                type="button"
                className="btn btn-sm"
                disabled={!canSend}
                onClick={() => submit('followup')}
                title={blocked ?? (waiting ? 'Run after the waiting reply (Enter)' : 'Run after the current reply (Enter)')}
                aria-describedby={blocked ? BLOCKED_ID : undefined}
              >
                Queue
              </button>
              <button
                type="button"
                className="btn btn-sm btn-stop"
                disabled={stopping || !connected}
                title={offline}
                aria-describedby={offline ? BLOCKED_ID : undefined}
                onClick={() => {
                  ref.current?.focus() // Stop turns into Stopping… (disabled), then Send: focus would drop to the page
                  void controller.stop()
                }}
              >
                <IconStop /> {stopping ? 'Stopping…' : 'Stop'}
              </button>
            </>
          ) : (
            <button type="submit" className="btn btn-primary btn-sm" disabled={!canSend} title={blocked} aria-describedby={blocked ? BLOCKED_ID : undefined}>
              <IconSend /> {encoding ? 'Sending…' : 'Send'}
            </button>
          )}
        </div>
      </div>
      <div className="composer-hint">
        {readOnly && <span className="composer-mode">Read-only: no file changes or commands · </span>}
        {blocked ? (
          // what keeps Send (Steer, Queue, Stop) disabled; the text stays in the box
          <span id={BLOCKED_ID} className="composer-blocked">
            {blocked}
          </span>
        ) : waiting ? (
          'Enter queues a follow-up · the reply has not started yet, so there is nothing to steer'
        ) : running ? (
          'Enter queues a follow-up · Steer injects into the running reply'
        ) : (
          'Enter to send · Shift+Enter for a new line · ↑ for earlier messages'
        )}
        {length !== undefined && (
          <span className={`composer-count ${over ? 'is-over' : ''}`} aria-label={`${length.toLocaleString('en-US')} of ${MAX_MESSAGE_CHARS.toLocaleString('en-US')} characters`}>
            {length.toLocaleString('en-US')} / {MAX_MESSAGE_CHARS.toLocaleString('en-US')}
          </span>
        )}
        {draftsUnsaved ? (
          <span className="composer-unsaved" aria-live="polite">
            Drafts cannot be saved (the browser's storage is full or off): this text is kept only until the window reloads or closes.
          </span>
        ) : (
          // saved-drafts.ts: a draft this long is not written to storage (a few filled its quota)
          draft.length > MAX_SAVED_DRAFT_CHARS && (
            <span className="composer-unsaved" aria-live="polite">
              This draft is too long to be saved: it is kept only until the window reloads or closes.
            </span>
          )
        )}
      </div>
    </form>
  )
}
