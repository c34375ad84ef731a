// The FakeBridge's sessions.patch organisation fields, archive rules and lifecycle preconditions: the
// runtime's rules (shared/session-organisation.ts) and its error messages, on the fake's rows.
import type { ParamsOf, SessionRow } from '../../../shared/methods'
import { isProtectedSessionKey } from '../../../shared/session-key'
import { applyOrganisationPatch, organisationOf, organisationRowFields, type SessionOrganisation } from '../../../shared/session-organisation'

const ROW_KEYS = ['archived', 'archivedAt', 'pinned', 'pinnedAt', 'unread', 'lastReadAt', 'markedUnreadAt', 'icon', 'color', 'category', 'agentStatus'] as const

/** The row with its organisation fields projected from `org` (fields org lacks are removed). */
export function withOrganisation(row: SessionRow, org: SessionOrganisation, now = Date.now()): SessionRow {
  const next = { ...row }
  for (const k of ROW_KEYS) delete next[k]
  return { ...next, ...organisationRowFields(org, row.endedAt, now) }
}

const UNREAD_ACK_KEYS = new Set(['key', 'agentId', 'expectedSessionId', 'expectedLifecycleRevision', 'expectedMarkedUnreadAt', 'unread'])

/** sessions.patch on a fake row: the new row (the same object when nothing changed), or the runtime's refusal message. */
export function patchOrganisation(row: SessionRow, p: ParamsOf<'sessions.patch'>, busy: boolean, now = Date.now()): SessionRow | string {
  if (
    (p.expectedSessionId !== undefined && p.expectedSessionId !== row.sessionId) ||
    (p.expectedLifecycleRevision !== undefined && p.expectedLifecycleRevision !== row.lifecycleRevision)
  ) {
    return `Session ${row.key} changed before patch. Retry.`
  }
  if (p.expectedMarkedUnreadAt !== undefined) {
    const others = Object.entries(p).some(([k, v]) => v !== undefined && !UNREAD_ACK_KEYS.has(k))
    if (p.unread !== false || others) return 'expectedMarkedUnreadAt requires unread=false as the only mutation.'
    if ((row.markedUnreadAt ?? null) !== p.expectedMarkedUnreadAt) return row // stale: the newer mark stands
  }
  if (p.archived === true) {
    if (isProtectedSessionKey(row.key)) return "Cannot archive an agent's main session."
    if (busy) return 'Cannot archive a session with an active run.'
  }
  const org = organisationOf(row)
  const refused = applyOrganisationPatch(org, p, now)
  return refused ?? withOrganisation(row, org, now)
}

/** Rows kept by a reset: where the session is filed and how it looks. */
export function keptOnReset(row: SessionRow): SessionOrganisation {
  const { archivedAt, pinnedAt, icon, color, category } = organisationOf(row)
  return { archivedAt, pinnedAt, icon, color, category }
}

export const archivedWorkRefusal = (key: string) => `Session "${key}" is archived. Restore it before starting new work.`

/** sessions.delete preconditions on a fake row (undefined: none failed). */
export function deleteRefusal(key: string, row: SessionRow | undefined, p: ParamsOf<'sessions.delete'>): string | undefined {
  if (isProtectedSessionKey(key)) return `Cannot delete the main session (${key}). Reset it to start over.`
  if (p.archivedOnly && !row?.archived) return `Session ${key} is not archived. Archive it first, then delete it.`
  if (
    (p.expectedSessionId !== undefined && row?.sessionId !== p.expectedSessionId) ||
    (p.expectedLifecycleRevision !== undefined && row?.lifecycleRevision !== p.expectedLifecycleRevision) ||
    (p.expectedSessionUpdatedAt !== undefined && row?.updatedAt !== p.expectedSessionUpdatedAt)
  ) {
    return `Session ${key} changed before deletion. Retry.`
  }
  return undefined
}
