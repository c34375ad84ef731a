// Views of transcript items. Each is memoized on its item object: the reducer replaces an item only
// when it changes, so during streaming only the growing message (and its tail block) re-renders.
import { memo, useEffect, useRef, useState } from 'react'
import { useApp, useAppStore, useController } from '../app-context'
import { retryableRun } from '../state/run-reducer'
import { entryIdOf, regenerableRun } from '../state/fork-point'
import { formatCost, formatDuration, formatTokens } from '../lib/format'
import { messageBox } from '../lib/refocus'
import { LazyBoundary } from '../lib/lazy-view'
import { EditMessageView } from '../lazy-views'
import { Markdown } from '../markdown/Markdown'
import type { AssistantItem, CompactionItem, Item, RunItem, UserItem } from '../state/types'
import { stoppedText } from '../state/stopped-text'
import { laneWaitText } from '../../../shared/lane-wait-text'
import { silenceText } from '../../../shared/silence-text'
import { ApprovalCard } from './ApprovalCard'
import { CopyButton } from './CopyButton'
import { ToolCard } from './ToolCard'

/** the link buttons' class, one string for all of them (first paint's budget: test/renderer-bundle.test.ts) */
const LINK = 'btn btn-link btn-xs'

export const UserMessage = memo(function UserMessage({ item, sessionKey }: { item: UserItem; sessionKey: string }) {
  const controller = useController()
  const sending = useAppStore('composer', (s) => s.sending)
  // a message read back from the transcript can be edited (a steered or batched one is part of another turn)
  const entryId = useAppStore('runs', (s) => (item.via || item.pending || item.error ? undefined : entryIdOf(s.transcripts[sessionKey], item.key)))
  const [editing, setEditing] = useState(false)
  // an edit given up (Escape, Cancel) gives the focus back to Edit: the editor going away dropped it to <body>
  const editRef = useRef<HTMLButtonElement>(null)
  const cancelled = useRef(false)
  useEffect(() => {
    if (editing || !cancelled.current) return
    cancelled.current = false
    editRef.current?.focus()
  }, [editing])
  if (editing && entryId) {
    return (
      // a chunk of its own (EditMessage.tsx), preloaded while idle: what first paint loads stays under 500 kB
      <LazyBoundary name="the editor" className="msg msg-user">
        <EditMessageView
          text={item.text}
          onCancel={() => {
            cancelled.current = true
            setEditing(false)
          }}
          onSend={(text) => {
            setEditing(false)
            messageBox()?.focus()
            void controller.sendInFork(sessionKey, entryId, { text })
          }}
        />
      </LazyBoundary>
    )
  }
  return (
    <div className={`msg msg-user ${item.error ? 'msg-failed' : ''}`}>
      <div className="bubble">
        {item.via === 'steer' && <span className="tag">Steer</span>}
        {item.via === 'collect' && (
          <span className="tag" title="Queued while the agent was busy, then sent together with the other queued messages in one run">
            Queued · sent together
          </span>
        )}
        <div className="user-text">{item.text}</div>
      </div>
      {entryId && (
        <div className="msg-user-tools">
          <button ref={editRef} type="button" className={LINK} title="Edit this message and send it in a new session; this one is kept" onClick={() => setEditing(true)}>
            Edit
          </button>
        </div>
      )}
      {item.pending && <div className="msg-note">Sending…</div>}
      {item.error && (
        <div className="msg-note error-text" role="alert">
          Not sent: {item.error}{' '}
          {item.files
            ? // the bytes are not in the row: the composer kept the attachments (and the text) to send again
              'The message and its attachments are still in the composer.'
            : item.failed?.restored
              ? 'The message is back in the composer.'
              : item.failed && 'Press ↑ in the composer to get the message back.'}
          {/* only when sending it again could work: not for a message the gateway refused as it is */}
          {!item.files && item.failed?.retryable && (
            <>
              {' '}
              <button type="button" className={LINK} disabled={sending} onClick={() => void controller.resend(sessionKey, item)}>
                Retry
              </button>
            </>
          )}
        </div>
      )}
    </div>
  )
})

/** The whole message an assistant item belongs to (long replies are split over several items). */
export function fullMessageText(items: Item[], key: string): string {
  let i = items.findIndex((it) => it.key === key)
  if (i < 0) return ''
  while (i > 0 && items[i].kind === 'assistant' && (items[i] as AssistantItem).cont) i--
  let text = ''
  for (let j = i; j < items.length; j++) {
    const it = items[j]
    if (it.kind !== 'assistant' || (j > i && !it.cont)) break
    text += it.text
  }
  return text
}

export const AssistantMessage = memo(function AssistantMessage({ item, sessionKey }: { item: AssistantItem; sessionKey: string }) {
  const { stores } = useApp()
  // no caret "typing" while the gateway is away: nothing is known to be streaming then
  const offline = useAppStore('settings', (s) => s.connection !== 'ready')
  const copyText = () => fullMessageText(stores.runs.getState().transcripts[sessionKey]?.items ?? [], item.key) || item.text
  return (
    <div className={`msg msg-assistant ${item.streaming ? 'streaming' : ''} ${item.cont ? 'msg-cont' : ''}`}>
      {item.reasoning && (
        <details className="reasoning">
          <summary>{item.streaming && !item.text ? 'Thinking…' : 'Reasoning'}</summary>
          <div className="reasoning-text">{item.reasoning}</div>
        </details>
      )}
      {item.text && <Markdown text={item.text} cacheKey={item.key} offset={item.offset} final={!item.streaming} />}
      {item.streaming && !offline && <span className="caret" aria-hidden="true" />}
      {!item.streaming && item.text && (
        <div className="msg-copy">
          <CopyButton text={copyText} label="Copy message" />
        </div>
      )}
    </div>
  )
})

function useTicker(active: boolean) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    const t = setInterval(() => setNow(Date.now()), 500)
    return () => clearInterval(t)
  }, [active])
  return now
}

/**
 * The run footer's text. `offline`: the gateway connection is down, so nothing about a live run is known —
 * no timer counting as if it ran on; a reconnect rebuilds the turn from history.
 */
export function runStatusText(item: RunItem, now = Date.now(), offline = false): string {
  const live = item.status === 'pending' || item.status === 'running' || item.status === 'compacting'
  if (live && offline) return 'Connection lost — waiting for the gateway'
  const duration =
    item.startedAt !== undefined ? formatDuration((item.endedAt ?? (live ? now : item.startedAt)) - item.startedAt) : ''
  const parts: string[] = []
  if (item.stopping && live) parts.push('Stopping…')
  else if ((item.status === 'pending' || item.status === 'running') && item.retry) {
    const secs = item.retry.until !== undefined ? Math.max(0, Math.ceil((item.retry.until - now) / 1000)) : undefined
    const busy = item.retry.status === 429 ? 'Rate limited by the model server' : `The model server failed${item.retry.status ? ` (HTTP ${item.retry.status})` : ''}`
    parts.push(`${busy} — retrying${secs ? ` in ${secs} s` : '…'}`)
  } else if ((item.status === 'pending' || item.status === 'running') && item.silent) {
    // the model server went quiet (runtime model-silence.ts): not "Running…" as if all were well
    parts.push(footerSilenceText(item.silent, now))
  } else if ((item.status === 'pending' || item.status === 'running') && item.thinkingSince !== undefined) {
    // a reasoning model can think for minutes before its first word: say so, and for how long
    const secs = Math.max(0, Math.floor((now - item.thinkingSince) / 1000))
    parts.push(secs > 0 ? `Thinking… ${secs} s` : 'Thinking…')
  } else if (item.status === 'pending' && item.waiting) parts.push(laneWaitText(item.waiting))
  else if (item.status === 'pending' || item.status === 'running') parts.push('Running…')
  else if (item.status === 'compacting') parts.push('Compacting…')
  else if (item.status === 'done') {
    parts.push('Done')
    if (item.notice === 'length') parts.push('Cut off at the model’s output limit')
    else if (item.notice === 'empty') parts.push('The model sent an empty reply')
    else if (item.notice === 'silent') parts.push('No reply')
  }
  else if (item.status === 'stopped') parts.push(stoppedText(item))
  else if (item.status === 'error' && item.interrupted) parts.push(item.error ?? 'Interrupted')
  else if (item.status === 'error') parts.push(`Error: ${item.error ?? 'the run failed'}`)
  if (duration) parts.push(duration)
  if (!live) {
    const tokens = formatTokens(item.usage?.totalTokens)
    const cost = formatCost(item.usage?.costUsd)
    if (tokens) parts.push(tokens)
    if (cost) parts.push(cost)
  }
  return parts.join(' · ')
}

/** the footer's words for a silent model server, counted from when the silence began */
export const footerSilenceText = (silent: NonNullable<RunItem['silent']>, now: number): string =>
  silenceText(silent.what, now - silent.since, silent.provider)

/**
 * Errors the user fixes in the model settings (a missing or wrong key, an unknown model, a wrong base URL, a
 * context window larger than the server's — any error whose fix the runtime names as "Settings → Models").
 */
export function isModelSetupError(error: string | undefined): boolean {
  return !!error && /\b(401|403)\b|api[ _-]?key|unauthori[sz]ed|authenticat|no (usable )?model|unknown model|model not found|check the base URL|base URL need \/v1|does not serve this model|Settings → Models/i.test(error)
}

/** A run that failed because the session's model is not configured (any more): another model fixes it, not a key. */
export function isUnknownModelError(error: string | undefined): boolean {
  return !!error && /unknown model provider "|unknown model "/i.test(error)
}

export const RunStatus = memo(function RunStatus({ item, sessionKey }: { item: RunItem; sessionKey: string }) {
  const controller = useController()
  // the provider the session's runs use (the runtime records it on the row), else the default model's:
  // Settings opens at it, where its key or endpoint is fixed
  const provider = useAppStore('sessions', (s) => s.rows.find((r) => r.key === sessionKey)?.modelProvider)
  const override = useAppStore('sessions', (s) => s.rows.find((r) => r.key === sessionKey)?.modelOverride)
  const fallback = useAppStore('settings', (s) => s.defaultModel?.split('/')[0])
  const offline = useAppStore('settings', (s) => s.connection !== 'ready')
  const live = item.status === 'pending' || item.status === 'running' || item.status === 'compacting'
  const lost = live && offline
  const now = useTicker(live && !offline)
  // only the session's failed last turn, while nothing runs or is being sent
  // — and a stopped one that "Stop and retry" gave up on (it stopped too late to be sent again)
  const retryStopped = item.status === 'stopped' && !!item.stopRetryTimedOut
  const canRetry = useAppStore('runs', (s) => (item.status === 'error' || retryStopped) && retryableRun(s.transcripts[sessionKey], retryStopped) === item.runId)
  // the last finished turn (also a stopped or cut-off one): sent again in a new session, this one kept
  const regenerate = useAppStore('runs', (s) => {
    const r = item.status === 'done' || item.status === 'stopped' ? regenerableRun(s.transcripts[sessionKey]) : undefined
    return r?.runId === item.runId ? r.entryId : undefined
  })
  const sending = useAppStore('composer', (s) => s.sending)
  return (
    <div className="run-status-row">
      {/* not spoken as it changes (it ticks every half second): RunAnnouncer says the state changes */}
      <div role="status" aria-live="off" className={`run-status run-${lost ? 'lost' : item.stopping && live ? 'stopping' : item.status}`}>
        {live && !lost && <span className="spinner" aria-hidden="true" />}
        <span>{runStatusText(item, now, offline)}</span>
      </div>
      {live && !lost && ((item.silent && !item.stopping) || item.stopRetryTimedOut) && (
        <>
          {!item.stopping && (
            <button type="button" className={LINK} title="Stop waiting for the model" onClick={() => void controller.stop()}>
              Stop
            </button>
          )}
          {/* Retry's path once the run has stopped (state/stop-and-retry.ts, a chunk of its own: first paint's budget) */}
          <button
            type="button"
            className={LINK}
            disabled={sending}
            title="Stop waiting and send the same message again"
            onClick={() => {
              // the button goes with the silence: the message box keeps the keyboard, not <body> (as Retry's does)
              messageBox()?.focus()
              // a chunk that cannot load says so (else the click did nothing); the run is left as it was
              void import('../state/stop-and-retry').then(
                (m) => m.stopAndRetry(controller, sessionKey, item.runId),
                (err: Error) => controller.toast(`Could not stop and retry: ${err.message} (reload the window if this goes on)`),
              )
            }}
          >
            Stop and retry
          </button>
        </>
      )}
      {canRetry && (
        <button
          type="button"
          className={LINK}
          disabled={sending}
          title="Send the same message again"
          onClick={() => {
            // Retry goes away once the message is sent again: the message box keeps the keyboard, not <body>
            messageBox()?.focus()
            void controller.retry(sessionKey, item.runId, retryStopped)
          }}
        >
          Retry
        </button>
      )}
      {canRetry && isUnknownModelError(item.error) && (
        // Settings cannot change a session's model: the header's picker can (and Retry then sends it again)
        <>
          <button type="button" className={LINK} onClick={() => controller.openModelPicker(sessionKey)}>
            Choose another model
          </button>
          {override && (
            <button type="button" className={LINK} onClick={() => void controller.setSessionModel(sessionKey, null)}>
              Use default model
            </button>
          )}
        </>
      )}
      {regenerate && (
        <button
          type="button"
          className={LINK}
          disabled={sending}
          title="Send the same message again in a new session; this one is kept"
          onClick={() => {
            messageBox()?.focus()
            void controller.sendInFork(sessionKey, regenerate, { runId: item.runId })
          }}
        >
          Regenerate
        </button>
      )}
      {item.status === 'error' && isModelSetupError(item.error) && (
        <button type="button" className={LINK} onClick={() => controller.openSettings('models', provider ?? fallback)}>
          Check model setup
        </button>
      )}
      {item.modelNote && (
        // quiet, and kept under the run: the reply came from another model than the session's earlier ones
        <div role="note" className="run-warning run-model-note">
          <span>{item.modelNote}</span>{' '}
          <button type="button" className={LINK} onClick={() => controller.openModelPicker(sessionKey)}>
            Choose another model
          </button>
        </div>
      )}
      {item.warning && (
        <div role="note" className="run-warning">
          <span>{item.warning}</span>{' '}
          <button type="button" className={LINK} onClick={() => controller.openSettings('models', provider ?? fallback)}>
            Open model settings
          </button>
        </div>
      )}
    </div>
  )
})

const CompactionNote = memo(function CompactionNote({ item }: { item: CompactionItem }) {
  return (
    <div className="compaction">
      <span className="compaction-line" aria-hidden="true" />
      <details>
        <summary>Earlier conversation compacted</summary>
        {item.summary && <div className="reasoning-text">{item.summary}</div>}
      </details>
      <span className="compaction-line" aria-hidden="true" />
    </div>
  )
})

/** `found`: the query of a find match or search hit landing on this item ('' without one) — a tool card opens to it. */
export const ItemView = memo(function ItemView({ item, sessionKey, found }: { item: Item; sessionKey: string; found?: string }) {
  switch (item.kind) {
    case 'user':
      return <UserMessage item={item} sessionKey={sessionKey} />
    case 'assistant':
      return <AssistantMessage item={item} sessionKey={sessionKey} />
    case 'tool':
      return <ToolCard item={item} found={found} />
    case 'approval':
      return <ApprovalCard item={item} sessionKey={sessionKey} />
    case 'run':
      return <RunStatus item={item} sessionKey={sessionKey} />
    case 'compaction':
      return <CompactionNote item={item} />
  }
})
