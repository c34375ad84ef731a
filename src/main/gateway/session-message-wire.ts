// `session.message` as OpenClaw sends it: `{sessionKey, message, messageId, messageSeq, ...row}` — the session's
// list row spread at the top level, as `sessions.changed` carries it (same fields, same builder), and nested as
// `session` too, as OpenClaw's transcript-update broadcast includes it. OpenClaw clients read the session's
// identity (sessionId, lifecycleRevision, agentId) from there to tell a new incarnation's messages apart.
import type { SessionMessageEvent } from '../api/host'
import { rowFieldsOf } from './sessions-changed-wire'

export function sessionMessagePayload(ev: SessionMessageEvent): Record<string, unknown> {
  // the message's own fields win over the row's (sessionKey, runId, ts, …)
  return { ...rowFieldsOf(ev.session), ...ev }
}
