// `sessions.changed` as OpenClaw sends it: the session row's fields at the top level of the payload (next to
// the nested `session` snapshot, which is what Loopdesk's own window reads), and a run's lifecycle as `phase`
// (start / end / error) — OpenClaw's lifecycle notices carry `phase`, its mutation notices `reason`. The
// runtime's event keeps its one shape (`reason` always, the row only under `session`); this is the wire view.
import type { SessionsChangedEvent } from '../../shared/events'

const LIFECYCLE = new Set<SessionsChangedEvent['reason']>(['start', 'end', 'error'])

export function sessionsChangedPayload(ev: SessionsChangedEvent): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (ev.session) {
    const { key: _key, ...fields } = ev.session
    Object.assign(out, fields)
  }
  // the notice's own fields win over the row's (sessionKey, reason, runId, ts, session)
  Object.assign(out, ev)
  if (LIFECYCLE.has(ev.reason)) out.phase = ev.reason
  return out
}
