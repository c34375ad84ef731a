// Compact assistant events (Loopdesk protocol extension, client cap `loopdesk.assistant-delta`),
// server side. Clients rebuild the text with src/shared/assistant-delta.ts.
//
// Every `assistant` agent event carries the cumulative `text` of the message (OpenClaw wire format), and so does
// every `thinking` event (streamed reasoning: the block so far), so a reply or a reasoning block of n deltas costs
// O(n²) bytes on the wire: a 20,000-delta reply is ~800 MB of JSON per client, and R1/QwQ-style reasoning often
// runs longer than the reply. A client that declares the cap instead receives `data: {delta, textLength, ...}`
// without `text` whenever the text is exactly the previous text of that run and stream plus `delta`; it rebuilds
// `text` itself. The full text is still sent for the first event of a run's stream on a connection and whenever
// the text does not extend the previous one (a new message or reasoning block). Clients without the cap get the
// standard payload.
import { ASSISTANT_DELTA_CAP } from '../../shared/assistant-delta'
import type { AgentEvent } from '../../shared/events'

export { ASSISTANT_DELTA_CAP }

/** the memory key of a run's stream: assistant under the runId, thinking beside it (as the client keys its texts) */
const keyOf = (runId: string, stream: string) => (stream === 'assistant' ? runId : `${runId}\u0000${stream}`)

/** Per-connection memory: the text length last sent for each live run's assistant and thinking streams. */
export class AssistantTextTracker {
  private lengths = new Map<string, number>()

  /**
   * True when this event can go out compact on this connection. Uses lengths only (O(1)): `text` is a
   * cumulative string and touching its contents would flatten it for every event.
   */
  compactable(ev: AgentEvent): boolean {
    const text = (ev.data as { text?: unknown }).text
    const delta = (ev.data as { delta?: unknown }).delta
    if (typeof text !== 'string' || typeof delta !== 'string') return false
    const key = keyOf(ev.runId, ev.stream)
    const prev = this.lengths.get(key)
    this.lengths.set(key, text.length)
    return prev !== undefined && text.length === prev + delta.length
  }

  forget(runId: string) {
    this.lengths.delete(runId)
    this.lengths.delete(keyOf(runId, 'thinking'))
  }

  get size() {
    return this.lengths.size
  }
}

/** the streams that carry a cumulative text: the reply and streamed reasoning */
export const isTextStream = (ev: AgentEvent) => ev.stream === 'assistant' || ev.stream === 'thinking'

/** The compact form of an assistant event's payload (built field by field: this runs once per delta). */
export function compactAssistantPayload(ev: AgentEvent): AgentEvent {
  const src = ev.data as Record<string, unknown>
  const data: Record<string, unknown> = {}
  for (const k in src) if (k !== 'text') data[k] = src[k]
  data.textLength = (src.text as string).length
  const out: AgentEvent = { runId: ev.runId, seq: ev.seq, stream: ev.stream, ts: ev.ts, data }
  if (ev.sessionKey !== undefined) out.sessionKey = ev.sessionKey
  return out
}

/**
 * A list of events (the answer of `loopdesk.events.recent`) in the compact form, for a client that rebuilds
 * the texts (`expandEventList`): an assistant or thinking event whose text extends the previous one of its
 * run and stream carries only `{delta, textLength}`, so the answer grows with the reply, not with its square
 * (a 200,000-character reply streamed in 2,000 events was ~200 MB whole). The events are not changed: the
 * ring's are shared.
 */
export function compactEventList(events: AgentEvent[]): AgentEvent[] {
  const texts = new AssistantTextTracker()
  return events.map((ev) => {
    if (ev.stream === 'lifecycle') {
      const phase = (ev.data as { phase?: unknown }).phase
      // as the client forgets a run's texts at its end: what follows it goes whole
      if (phase === 'end' || phase === 'error') texts.forget(ev.runId)
      return ev
    }
    return isTextStream(ev) && texts.compactable(ev) ? compactAssistantPayload(ev) : ev
  })
}
