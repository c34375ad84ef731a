// The `chat` event as each protocol version defines it. The runtime emits one shape; v3 clients do not
// know deltaText/replace/errorDetail (their ChatEvent schema is closed), v4's `aborted` shape has no usage, and
// v4 events name the session's agent (agent-id-wire.ts).
import type { ChatEvent } from '../../shared/events'
import { withAgentId } from './agent-id-wire'

export function chatPayloadFor(ev: ChatEvent, protocol: number): ChatEvent {
  if (protocol >= 4) {
    if (ev.state !== 'aborted' || ev.usage === undefined) return withAgentId(ev, protocol)
    const { usage: _usage, ...rest } = ev
    return withAgentId(rest, protocol)
  }
  if (ev.deltaText === undefined && ev.replace === undefined && ev.errorDetail === undefined) return ev
  const { deltaText: _deltaText, replace: _replace, errorDetail: _detail, ...rest } = ev
  return rest
}
