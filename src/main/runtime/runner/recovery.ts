// Start-up recovery: a session left "running" by a process that died (kill -9, crash, power loss) is
// marked `interrupted`, gets a `run` interrupted entry, and any tool call left without a result is closed,
// so the session is usable again. A session whose transcript lock is held by a LIVE process (another
// Loopdesk process on the same state dir) is really running and is left alone.
import type { TranscriptEntry } from '../contracts'
import { acquireWriteLock, Transcript, type SessionStore } from '../sessions'
import { interruptedToolResult, tailOrphans } from './history'

export interface RecoveredRun {
  sessionKey: string
  sessionId: string
  runId?: string
}

export async function recoverInterruptedRuns(store: SessionStore, opts: { lockTimeoutMs?: number } = {}): Promise<RecoveredRun[]> {
  const out: RecoveredRun[] = []
  for (const [key, entry] of store.list()) {
    if (entry.status !== 'running') continue
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
      const runId = entry.activeRunId
      const { entries } = await transcript.readAll()
      const repairs: TranscriptEntry[] = tailOrphans(entries).map((c) => ({
        type: 'message',
        id: crypto.randomUUID(),
        timestamp: now,
        runId: c.runId,
        message: interruptedToolResult(c, now),
      }))
      if (entries.length > 0 || runId) {
        repairs.push({ type: 'run', id: crypto.randomUUID(), timestamp: now, runId: runId ?? 'unknown', phase: 'interrupted', status: 'interrupted' })
        await transcript.appendMany(repairs)
      }
      await store.update(key, (cur) =>
        cur && cur.status === 'running' && cur.sessionId === entry.sessionId
          ? {
              ...cur,
              status: 'interrupted',
              activeRunId: undefined,
              endedAt: now,
              updatedAt: now,
              lastError: 'the run was interrupted (Loopdesk stopped while it was running)',
            }
          : undefined,
      )
      out.push({ sessionKey: key, sessionId: entry.sessionId, runId })
    } finally {
      await release().catch(() => undefined)
    }
  }
  return out
}
