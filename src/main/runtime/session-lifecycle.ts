// A session's lifecycle as OpenClaw fences it: a revision minted on create and reset, preconditions that
// refuse a patch or delete aimed at an incarnation that is gone, and archived sessions that take no work.
import crypto from 'node:crypto'
import { invalid, type ApiError } from '../api/errors'
import { isProtectedSessionKey } from '../../shared/session-key'
import type { SessionEntry } from './contracts'

/** OpenClaw's stable error detail for a stale lifecycle precondition. */
export const SESSION_CHANGED_REASON = 'session-changed'

export const newLifecycleRevision = (): string => crypto.randomUUID()

/** what the fence guarded: "Session <key> changed before <action>. Retry." */
export type SessionAction = 'patch' | 'deletion' | 'send'

export interface SessionExpectations {
  sessionId?: string
  lifecycleRevision?: string
  updatedAt?: number
}

/**
 * Throws OpenClaw's "Session <key> changed before <patch|deletion|send>. Retry." (INVALID_REQUEST, details.reason
 * `session-changed`) unless the entry is the expected incarnation. A missing entry matches no expectation.
 */
export function checkSessionUnchanged(key: string, entry: SessionEntry | undefined, expected: SessionExpectations, action: SessionAction): void {
  const stale =
    (expected.sessionId !== undefined && entry?.sessionId !== expected.sessionId) ||
    (expected.lifecycleRevision !== undefined && entry?.lifecycleRevision !== expected.lifecycleRevision) ||
    (expected.updatedAt !== undefined && entry?.updatedAt !== expected.updatedAt)
  if (!stale) return
  throw sessionChangedError(key, action, {
    ...(expected.sessionId !== undefined ? { expectedSessionId: expected.sessionId, currentSessionId: entry?.sessionId ?? null } : {}),
    ...(expected.lifecycleRevision !== undefined
      ? { expectedLifecycleRevision: expected.lifecycleRevision, currentLifecycleRevision: entry?.lifecycleRevision ?? null }
      : {}),
    ...(expected.updatedAt !== undefined ? { expectedSessionUpdatedAt: expected.updatedAt, currentSessionUpdatedAt: entry?.updatedAt ?? null } : {}),
  })
}

export function sessionChangedError(key: string, action: SessionAction, details: Record<string, unknown> = {}): ApiError {
  return invalid(`Session ${key} changed before ${action}. Retry.`, { reason: SESSION_CHANGED_REASON, ...details })
}

/** Archived sessions are read-only until restored (OpenClaw): no run may start in one. */
export function rejectArchivedWork(key: string, entry: SessionEntry | undefined): void {
  if (entry?.archivedAt !== undefined) throw invalid(`Session "${key}" is archived. Restore it before starting new work.`)
}

/** An agent's main session and the global one are where work lands by default: they cannot be archived. */
export function rejectProtectedArchive(key: string): void {
  if (isProtectedSessionKey(key)) throw invalid("Cannot archive an agent's main session.")
}

/** …nor deleted (OpenClaw: "Cannot delete the main session (KEY)."); a reset clears one instead. */
export function rejectProtectedDelete(key: string): void {
  if (isProtectedSessionKey(key)) throw invalid(`Cannot delete the main session (${key}). Reset it to start over.`)
}
