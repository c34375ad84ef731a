// Start-up recovery: a session left "running" by a process that died (kill -9, crash, power loss) is
// marked `interrupted`, gets a `run` interrupted entry, and any tool call left without a result is closed,
// so the session is usable again. A session whose transcript lock is held by a LIVE process (another
// Loopdesk process on the same state dir) is really running and is left alone.
// Messages the dead process had acknowledged but not yet written to the transcript (queued behind another
// run, or killed before the run started — see accepted-journal.ts) are appended to their session as user
// messages, and that session is marked interrupted too: nothing acknowledged is lost.
// The run that was cut off gets an assistant message closing it (stopReason `error`, `interrupted: true`)
// holding the reply as far as it had streamed (partial-reply.ts), so the window and chat.history show what
// the user saw, and that the run did not finish, even when earlier messages of it (tool turns) were complete.
// A run whose transcript write failed with a storage error (a full disk: its record was kept open, naming the
// error) is closed the same way, with that error instead of "Interrupted" — after its message, written here too
// when the disk refused that as well.
import type { TranscriptEntry } from '../contracts'
import { acquireWriteLock, sessionHeader, Transcript, type SessionStore } from '../sessions'
import type { AcceptedRecord } from './accepted-journal'
import { interruptedToolResult, tailOrphans } from './history'
import { readPartialReply } from './partial-reply'

/** the error of a run a crash cut off: with part of its reply written, or with none */
export const INTERRUPTED_PARTIAL = 'Interrupted: Loopdesk stopped while this reply was being written.'
export const INTERRUPTED_RUN = 'Interrupted: Loopdesk stopped before this run finished.'
/** the reply's saved copy lost some of its text (a seq gap, or the event log's trim took its start) */
export const INTERRUPTED_INCOMPLETE = 'Interrupted: Loopdesk stopped while this reply was being written, and part of its text was not saved.'
export const INTERRUPTED_UNANSWERED = 'Interrupted: Loopdesk stopped before this message was answered.'

export interface RecoveredRun {
  sessionKey: string
  sessionId: string
  runId?: string
}

export interface RecoveryOptions {
  lockTimeoutMs?: number
  /** acknowledged messages of this agent a dead process left unsettled (oldest first) */
  accepted?: AcceptedRecord[]
  /** `cwd` of a transcript header written for a session that had none yet */
  workspaceDir?: string
  /** the Inspector's event log of a session (events/event-log.ts): where a cut-off reply's streamed text is */
  eventsFile?(sessionId: string): string
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c) => (c && typeof c === 'object' && (c as { type?: string }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : '')).join('')
      : ''

/** The message reached the transcript: a user message written after it was accepted contains its text. */
function delivered(entries: readonly TranscriptEntry[], r: AcceptedRecord): boolean {
  const want = r.text.trim()
  return entries.some((e) => e.type === 'message' && e.message.role === 'user' && e.timestamp >= r.at && textOf(e.message.content).includes(want))
}

/**
 * The assistant message closing the run `runId` that a crash cut off, or undefined when it needs none: its
 * reply was complete (its last message is the assistant's final one), or it has no message at all. Timed by the event log where it has the run: `timestamp` when the partial text
 * started, the entry's when the run was last seen alive — never the restart's time.
 */
function interruptedReply(
  entries: readonly TranscriptEntry[],
  runId: string,
  row: { sessionId: string; model?: string; modelProvider?: string },
  opts: RecoveryOptions,
  /** the error its run ended with (a storage error that kept its record open), when it was not a crash */
  ended?: string,
): Extract<TranscriptEntry, { type: 'message' }> | undefined {
  const mine = entries.filter((e): e is Extract<TranscriptEntry, { type: 'message' }> => e.type === 'message' && e.runId === runId)
  const last = mine.at(-1)
  // a turn that called tools is not the reply: its tools (or the next turn) were cut off
  if (!last || (last.message.role === 'assistant' && last.message.stopReason !== 'toolUse')) return undefined
  const lastAssistant = mine.findLast((e) => e.message.role === 'assistant')?.message as { api?: unknown; provider?: unknown; model?: unknown; content?: unknown } | undefined
  const partial = opts.eventsFile ? readPartialReply(opts.eventsFile(row.sessionId), runId, lastAssistant ? textOf(lastAssistant.content) : '') : undefined
  const text = partial?.text.trim() ? partial.text : ''
  const error = ended ?? partial?.error
  const endedAt = Math.max(partial?.lastAt ?? 0, last.timestamp)
  return {
    type: 'message',
    id: crypto.randomUUID(),
    timestamp: endedAt,
    runId,
    message: {
      role: 'assistant',
      content: text ? [{ type: 'text', text }] : [],
      api: lastAssistant?.api ?? 'unknown',
      provider: lastAssistant?.provider ?? row.modelProvider ?? 'unknown',
      model: lastAssistant?.model ?? row.model ?? 'unknown',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: 'error',
      // the run ended on its error (the window shows it with Retry); only a crash is "Interrupted"
      ...(error ? { errorMessage: error } : { errorMessage: partial?.incomplete ? INTERRUPTED_INCOMPLETE : text ? INTERRUPTED_PARTIAL : lastAssistant ? INTERRUPTED_RUN : INTERRUPTED_UNANSWERED, interrupted: true }),
      timestamp: text && partial?.textStartedAt !== undefined ? partial.textStartedAt : endedAt,
    },
  }
}

/**
 * What closes a run that ended on a storage error (its record kept open, `error` set), for a transcript that
 * holds `entries`: its message when the transcript lacks it, then its closing error turn with the reply as far as
 * the event log has it. Recovery writes these at the next start; the runner, when the session's next run starts
 * in the same process (the disk has room again), so they land before that run's turn, not after it.
 */
export function storageClosing(
  entries: readonly TranscriptEntry[],
  r: AcceptedRecord & { error: string },
  row: { sessionId: string; model?: string; modelProvider?: string },
  opts: Pick<RecoveryOptions, 'eventsFile'>,
  now = Date.now(),
): Extract<TranscriptEntry, { type: 'message' }>[] {
  if (delivered(entries, r)) {
    const c = interruptedReply(entries, r.runId, row, opts, r.error)
    return c ? [c] : []
  }
  const user: Extract<TranscriptEntry, { type: 'message' }> = {
    type: 'message',
    id: crypto.randomUUID(),
    timestamp: now,
    runId: r.runId,
    message: { role: 'user', content: [{ type: 'text', text: r.text }], timestamp: r.at },
  }
  const c = interruptedReply([user], r.runId, row, opts, r.error)
  return c ? [user, c] : [user]
}

export async function recoverInterruptedRuns(store: SessionStore, opts: RecoveryOptions = {}): Promise<RecoveredRun[]> {
  const out: RecoveredRun[] = []
  const pendingBy = new Map<string, AcceptedRecord[]>()
  for (const r of opts.accepted ?? []) {
    const list = pendingBy.get(r.sessionKey) ?? []
    list.push(r)
    pendingBy.set(r.sessionKey, list)
  }
  for (const [key, entry] of store.list()) {
    const pending = pendingBy.get(key) ?? []
    if (entry.status !== 'running' && pending.length === 0) continue
    const transcript = new Transcript(store.transcriptPath(entry.sessionId))
    let release: (() => Promise<void>) | undefined
    try {
      // a dead holder's lock is reclaimed at once; a live holder keeps it past this short wait
      release = await acquireWriteLock(transcript.file, { timeoutMs: opts.lockTimeoutMs ?? 300 })
    } catch {
      continue
    }
    try {
      const now = Date.now()
      const runId = entry.activeRunId ?? pending.at(-1)?.runId
      const { entries } = await transcript.readAll()
      // the runs cut off: the active one, and any whose message it had started on before its "running" status
      // reached sessions.json (an open journal record whose user message is in the transcript)
      const cutOff = new Set<string>()
      if (entry.status === 'running' && entry.activeRunId) cutOff.add(entry.activeRunId)
      for (const r of pending) if (delivered(entries, r)) cutOff.add(r.runId)
      const endedWith = new Map(pending.filter((r) => r.error).map((r) => [r.runId, r.error!]))
      const closings = new Map<string, Extract<TranscriptEntry, { type: 'message' }>>()
      for (const id of cutOff) {
        const c = interruptedReply(entries, id, entry, opts, endedWith.get(id))
        if (c) closings.set(id, c)
      }
      // a dangling call ended when its run was last seen, not at the restart (the window times tool cards by it)
      const repairs: TranscriptEntry[] = tailOrphans(entries).map((c) => {
        const at = (c.runId && closings.get(c.runId)?.timestamp) || now
        return { type: 'message', id: crypto.randomUUID(), timestamp: at, runId: c.runId, message: interruptedToolResult(c, at) }
      })
      repairs.push(...closings.values())
      const restored = pending.filter((r) => !delivered(entries, r))
      for (const r of restored) {
        if (r.error) {
          // its run ended on a storage error: closed by it (and what it streamed), not left as a message the crash cut off
          const written = storageClosing(entries, { ...r, error: r.error }, entry, opts, now)
          repairs.push(...written)
          if (written.length > 1) closings.set(r.runId, written[1])
          continue
        }
        repairs.push({
          type: 'message',
          id: crypto.randomUUID(),
          timestamp: now,
          runId: r.runId,
          message: { role: 'user', content: [{ type: 'text', text: r.text }], timestamp: r.at },
        })
      }
      if (entries.length > 0 || runId) {
        if (restored.length > 0) {
          await transcript.ensureHeader(sessionHeader(entry.sessionId, opts.workspaceDir ?? '', key, now))
        }
        repairs.push({ type: 'run', id: crypto.randomUUID(), timestamp: now, runId: runId ?? 'unknown', phase: 'interrupted', status: 'interrupted' })
        await transcript.appendMany(repairs)
      }
      const storageError = [...closings.keys()].map((id) => endedWith.get(id)).find((e) => e !== undefined)
      const lastError = storageError ??
        (restored.length > 0
          ? `the run was interrupted (Loopdesk stopped before answering ${restored.length === 1 ? 'a message' : `${restored.length} messages`})`
          : 'the run was interrupted (Loopdesk stopped while it was running)')
      await store.update(key, (cur) =>
        cur && (cur.status === 'running' || pending.length > 0) && cur.sessionId === entry.sessionId
          ? { ...cur, status: storageError ? 'failed' : 'interrupted', activeRunId: undefined, endedAt: now, updatedAt: now, lastError }
          : undefined,
      )
      out.push({ sessionKey: key, sessionId: entry.sessionId, runId })
    } finally {
      await release().catch(() => undefined)
    }
  }
  return out
}
