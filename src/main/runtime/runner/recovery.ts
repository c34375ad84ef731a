// Start-up recovery: a session left "running" by a process that died (kill -9, crash, power loss) is
// marked `interrupted`, gets a `run` interrupted entry, and any tool call left without a result is closed,
// so the session is usable again. A session whose transcript lock is held by a LIVE process (another
// Loopdesk process on the same state dir) is really running and is left alone.
// Messages the dead process had acknowledged but not yet written to the transcript (queued behind another
// run, or killed before the run started — see accepted-journal.ts) are appended to their session as user
// messages, and that session is marked interrupted too: nothing acknowledged is lost.
import type { TranscriptEntry } from '../contracts'
import { acquireWriteLock, Transcript, type SessionStore } from '../sessions'
import type { AcceptedRecord } from './accepted-journal'
import { interruptedToolResult, tailOrphans } from './history'

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
      const repairs: TranscriptEntry[] = tailOrphans(entries).map((c) => ({
        type: 'message',
        id: crypto.randomUUID(),
        timestamp: now,
        runId: c.runId,
        message: interruptedToolResult(c, now),
      }))
      const restored = pending.filter((r) => !delivered(entries, r))
      for (const r of restored) {
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
          await transcript.ensureHeader({
            type: 'session',
            version: 1,
            id: entry.sessionId,
            timestamp: new Date(now).toISOString(),
            cwd: opts.workspaceDir ?? '',
            sessionKey: key,
          })
        }
        repairs.push({ type: 'run', id: crypto.randomUUID(), timestamp: now, runId: runId ?? 'unknown', phase: 'interrupted', status: 'interrupted' })
        await transcript.appendMany(repairs)
      }
      const lastError =
        restored.length > 0
          ? `the run was interrupted (Loopdesk stopped before answering ${restored.length === 1 ? 'a message' : `${restored.length} messages`})`
          : 'the run was interrupted (Loopdesk stopped while it was running)'
      await store.update(key, (cur) =>
        cur && (cur.status === 'running' || pending.length > 0) && cur.sessionId === entry.sessionId
          ? { ...cur, status: 'interrupted', activeRunId: undefined, endedAt: now, updatedAt: now, lastError }
          : undefined,
      )
      out.push({ sessionKey: key, sessionId: entry.sessionId, runId })
    } finally {
      await release().catch(() => undefined)
    }
  }
  return out
}
