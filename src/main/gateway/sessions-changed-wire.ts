// `sessions.changed` as OpenClaw sends it: the session row's fields at the top level of the payload (next to
// the nested `session` snapshot, which is what Loopdesk's own window reads), and a run's lifecycle as `phase`
// (start / end / error) — OpenClaw's lifecycle notices carry `phase`, its mutation notices `reason`. The
// runtime's event keeps its one shape (`reason` always, the row only under `session`); this is the wire view.
import type { SessionMessageEvent } from '../api/host'
import type { SessionsChangedEvent } from '../../shared/events'
import type { SessionRow } from '../../shared/methods'

const LIFECYCLE = new Set<SessionsChangedEvent['reason']>(['start', 'end', 'error'])

/** the row's fields as OpenClaw spreads them into a session event (its `key` is the event's `sessionKey`) */
export function rowFieldsOf(row: SessionRow | undefined): Record<string, unknown> {
  if (!row) return {}
  const { key: _key, ...fields } = row
  return fields
}

export function sessionsChangedPayload(ev: SessionsChangedEvent): Record<string, unknown> {
  // the notice's own fields win over the row's (sessionKey, reason, runId, ts, session)
  const out: Record<string, unknown> = { ...rowFieldsOf(ev.session), ...ev }
  if (LIFECYCLE.has(ev.reason)) out.phase = ev.reason
  return out
}

/**
 * The `sessions.changed` OpenClaw sends sessions.subscribe subscribers after each transcript append: `phase:
 * "message"` (no `reason`), the message's id and position, the row as it is after the append (spread and nested).
 */
export function messageChangedPayload(ev: SessionMessageEvent): Record<string, unknown> {
  return {
    ...rowFieldsOf(ev.session),
    sessionKey: ev.sessionKey,
    phase: 'message',
    ts: ev.ts,
    messageId: ev.messageId,
    messageSeq: ev.messageSeq,
    ...(ev.session ? { session: ev.session } : {}),
  }
}
