// Client side of the `loopdesk.assistant-delta` gateway capability (see src/main/gateway/assistant-delta.ts):
// a client that declares the cap receives assistant events without the cumulative `text` when it is the
// previous text plus `delta` ({delta, textLength} instead), and rebuilds `text` here, so subscribers still
// see standard AgentEvents. Used by the browser WebSocket bridge and the Node gateway client. The answer of
// `loopdesk.events.recent` comes in the same form (thinking events too): `expandEventList`.
import type { AgentEvent } from './events'

export const ASSISTANT_DELTA_CAP = 'loopdesk.assistant-delta'

/** The per-run memory key of a stream's text: assistant under the runId (as before), thinking beside it. */
const textKey = (runId: string, stream: string) => (stream === 'assistant' ? runId : `${runId}\u0000${stream}`)

/**
 * Client side: rebuilds `data.text` of compact assistant (and thinking) events (mutates and returns the
 * payload). `texts` is the client's per-run text memory for this connection.
 */
export function expandAssistantPayload(texts: Map<string, string>, ev: AgentEvent): AgentEvent {
  const data = ev.data as { text?: unknown; delta?: unknown; textLength?: unknown; phase?: unknown }
  if (ev.stream === 'lifecycle' && (data.phase === 'end' || data.phase === 'error')) {
    texts.delete(ev.runId)
    texts.delete(textKey(ev.runId, 'thinking'))
    return ev
  }
  if (ev.stream !== 'assistant' && ev.stream !== 'thinking') return ev
  const key = textKey(ev.runId, ev.stream)
  if (typeof data.text === 'string') {
    texts.set(key, data.text)
    return ev
  }
  if (typeof data.delta === 'string' && typeof data.textLength === 'number') {
    const text = (texts.get(key) ?? '') + data.delta
    texts.set(key, text)
    const out: Record<string, unknown> = {}
    for (const k in data) if (k !== 'textLength') out[k] = (data as Record<string, unknown>)[k]
    out.text = text
    ev.data = out
  }
  return ev
}

/**
 * Rebuilds the texts of a compact event list (`loopdesk.events.recent`: each answer compacted on its own,
 * the first event of a run's message whole), in place. The texts are built by concatenation, which V8 keeps
 * as ropes sharing their prefix: a long reply's events hold about its length, not one copy each.
 */
export function expandEventList(events: AgentEvent[]): AgentEvent[] {
  const texts = new Map<string, string>()
  for (const ev of events) if (ev && typeof ev === 'object' && ev.data && typeof ev.data === 'object') expandAssistantPayload(texts, ev)
  return events
}
