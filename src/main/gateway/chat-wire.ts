// The `chat` event as each protocol version defines it. The runtime emits one shape; v3 clients do not
// know deltaText/replace (their ChatEvent schema is closed), and v4's `aborted` shape has no usage.
import type { ChatEvent } from '../../shared/events'

export function chatPayloadFor(ev: ChatEvent, protocol: number): ChatEvent {
  if (protocol >= 4) {
    if (ev.state !== 'aborted' || ev.usage === undefined) return ev
    const { usage: _usage, ...rest } = ev
    return rest
  }
  if (ev.deltaText === undefined && ev.replace === undefined) return ev
  const { deltaText: _deltaText, replace: _replace, ...rest } = ev
  return rest
}
