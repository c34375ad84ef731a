// Whether a model server has opened its reply: the first event of the model's message, not a keep-alive. The
// silence watch (model-silence.ts) applies the idle timeout from then on — a server that opened its message and
// then sends nothing for `idleTimeoutSeconds` is stuck, even before a token of text. Both streaming APIs are read
// the same way:
//  - Anthropic: `message_start` (or a content block) opens it; `ping` and `error` events do not.
//  - OpenAI chat completions: a chunk with a choice opens it (the role-only `{"role":"assistant","content":""}`
//    chunk OpenAI sends first); a chunk without one (Azure's prompt-filter results, a usage chunk), a comment
//    or `[DONE]` does not.
// Before that only the notice applies: a server may queue the request, or a model think, before it opens.
import type { SseDialect } from './sse-merge-fetch'

const ANTHROPIC_OPENER = /(?:^|\n)event: ?(?:message_start|content_block_start|content_block_delta)\b|(?:^|\n)data: ?\{"type": ?"(?:message_start|content_block_start|content_block_delta)"/

/** `events`: the text of one or more SSE events as read (complete or not). */
export function opensReply(events: string, dialect: SseDialect): boolean {
  if (dialect === 'anthropic') return ANTHROPIC_OPENER.test(events)
  if (dialect !== 'openai' || !events.includes('"choices"')) return false
  for (const line of events.split('\n')) {
    if (!line.startsWith('data:') || !line.includes('"choices"')) continue
    try {
      const chunk: unknown = JSON.parse(line.slice(5))
      const choices = (chunk as { choices?: unknown } | null)?.choices
      if (Array.isArray(choices) && choices.length > 0) return true
    } catch {
      // a chunk cut across reads, or not JSON: the next read decides
    }
  }
  return false
}
