// Whether a model server has begun its reply's content: the first content block, not only the envelope or a
// keep-alive. The silence watch (model-silence.ts) applies the idle timeout from then on — a server that began a
// block (a tool call whose arguments never come, an empty text block) and then sends nothing for
// `idleTimeoutSeconds` is stuck, even before a token of text. Both streaming APIs are read alike:
//  - Anthropic: a content block (`content_block_start`/`_delta`) begins it; `message_start`, `ping` and `error`
//    do not — Anthropic sends `message_start` as soon as it takes the request, before the model's first output.
//  - OpenAI chat completions: a choice carrying content, reasoning, a tool call or a finish reason begins it;
//    the role-only `{"role":"assistant","content":""}` chunk does not (servers send it before a reasoning model's
//    silent thinking), nor a chunk without a choice (Azure's prompt-filter results, usage), a comment or `[DONE]`.
// Before that only the notice applies: a server may queue the request, or a model think silently, that long.
import type { SseDialect } from './sse-merge-fetch'

const ANTHROPIC_OPENER = /(?:^|\n)event: ?(?:content_block_start|content_block_delta)\b|(?:^|\n)data: ?\{"type": ?"(?:content_block_start|content_block_delta)"/

/** `events`: the text of one or more SSE events as read (complete or not). */
export function opensReply(events: string, dialect: SseDialect): boolean {
  if (dialect === 'anthropic') return ANTHROPIC_OPENER.test(events)
  if (dialect !== 'openai' || !events.includes('"choices"')) return false
  for (const line of events.split('\n')) {
    if (!line.startsWith('data:') || !line.includes('"choices"')) continue
    try {
      const chunk: unknown = JSON.parse(line.slice(5))
      const choices = (chunk as { choices?: unknown } | null)?.choices
      if (Array.isArray(choices) && choices.some(beginsContent)) return true
    } catch {
      // a chunk cut across reads, or not JSON: the next read decides
    }
  }
  return false
}

function beginsContent(choice: unknown): boolean {
  if (!choice || typeof choice !== 'object') return false
  const c = choice as { delta?: Record<string, unknown>; finish_reason?: unknown }
  if (c.finish_reason) return true
  const d = c.delta
  if (!d || typeof d !== 'object') return false
  const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0
  return nonEmpty(d.content) || nonEmpty(d.reasoning_content) || nonEmpty(d.reasoning) || (Array.isArray(d.tool_calls) && d.tool_calls.length > 0)
}
