// Client side of the `loopdesk.assistant-delta` gateway capability (see src/main/gateway/assistant-delta.ts):
// a client that declares the cap receives assistant events without the cumulative `text` when it is the
// previous text plus `delta` ({delta, textLength} instead), and rebuilds `text` here, so subscribers still
// see standard AgentEvents. Used by the browser WebSocket bridge and the Node gateway client.
import type { AgentEvent } from './events'

export const ASSISTANT_DELTA_CAP = 'loopdesk.assistant-delta'

/**
 * Client side: rebuilds `data.text` of compact assistant events (mutates and returns the payload).
 * `texts` is the client's per-run text memory for this connection.
 */
export function expandAssistantPayload(texts: Map<string, string>, ev: AgentEvent): AgentEvent {
  const data = ev.data as { text?: unknown; delta?: unknown; textLength?: unknown; phase?: unknown }
  if (ev.stream === 'lifecycle' && (data.phase === 'end' || data.phase === 'error')) {
    texts.delete(ev.runId)
    return ev
  }
  if (ev.stream !== 'assistant') return ev
  if (typeof data.text === 'string') {
    texts.set(ev.runId, data.text)
    return ev
  }
  if (typeof data.delta === 'string' && typeof data.textLength === 'number') {
    const text = (texts.get(ev.runId) ?? '') + data.delta
    texts.set(ev.runId, text)
    const out: Record<string, unknown> = {}
    for (const k in data) if (k !== 'textLength') out[k] = (data as Record<string, unknown>)[k]
    out.text = text
    ev.data = out
  }
  return ev
}
