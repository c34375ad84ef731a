// Where Regenerate and Edit fork a conversation (sessions.fork): at a user message, by its transcript entry id.
// The saved conversation is never rewritten: the message is sent again (as it was, or edited) in a new session
// holding everything before it, and the original session stays as it is.
import { activeRun } from './run-reducer'
import type { Transcript } from './types'

/** The transcript entry id (chat.history `__openclaw.id`) an item was built from, if it has been read back yet. */
export function entryIdOf(t: Transcript | undefined, itemKey: string): string | undefined {
  if (!t) return undefined
  const own = t.items.find((it) => it.key === itemKey)?.msg
  if (own) return own
  // a live item that a refetch kept (same key) keeps no row id of its own: the refetch recorded it beside it
  for (const [id, key] of t.msgKeys ?? []) if (key === itemKey) return id
  return undefined
}

/**
 * The session's last finished turn that Regenerate can send again: a run that ended (done or stopped — a failed
 * one has Retry) while nothing runs, with its user message read back from the transcript.
 */
export function regenerableRun(t: Transcript | undefined): { runId: string; entryId: string } | undefined {
  if (!t || activeRun(t)) return undefined
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i]
    if (it.kind === 'user' && it.runId === undefined) return undefined // a later message that was not sent
    if (it.kind !== 'run') continue
    if (it.status !== 'done' && it.status !== 'stopped') return undefined
    const user = t.items.find((u) => u.kind === 'user' && u.runId === it.runId && !u.via)
    const entryId = user && entryIdOf(t, user.key)
    return entryId ? { runId: it.runId, entryId } : undefined
  }
  return undefined
}
