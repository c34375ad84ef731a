// Ollama's OpenAI-compatible endpoint fits a prompt longer than the model's loaded context (`num_ctx`, a few
// thousand tokens unless raised) by dropping part of it, and says nothing: the model then answers a
// conversation cut short, and the run looks normal. Only the response tells: its `usage.prompt_tokens` counts
// what the model read. So for a provider that is Ollama, each model call's prompt tokens are compared with
// our own chars/4 estimate of what was sent (compaction/estimate.ts, as too-large.ts uses it), and a count far
// below it becomes an agent `error` event {reason:"context_truncated", …} the run footer shows, naming the fix.
//
// False positives are kept out: chars/4 is off by a quarter either way for ordinary text (code and JSON
// tokenize denser, long whitespace runs sparser), so only a prompt counted at under 60% of the estimate and at
// least 1024 tokens short counts, images (whose token cost varies by model) and earlier reasoning (which chat
// templates often drop) are left out of the estimate,
// a prompt estimated under 2048 tokens (Ollama's smallest default window) is never looked at, and a response
// without usage (0 tokens) says nothing.
import { estimateContextTokens, IMAGE_CHARS, CHARS_PER_TOKEN, type AnyMessage } from '../compaction/estimate'

export interface TruncationNotice {
  reason: 'context_truncated'
  provider: string
  model: string
  /** what the server says the model read */
  promptTokens: number
  /** what Loopdesk estimates it sent */
  estimatedTokens: number
  /** the model's context window in Loopdesk's settings */
  contextWindow?: number
  /** the error line shown to the user */
  message: string
}

const MIN_ESTIMATE = 2048
const MAX_RATIO = 0.6
const MIN_SHORTFALL = 1024

interface Target {
  provider: string
  id: string
  baseUrl?: string
  contextWindow?: number
}

/** an Ollama server: its default port, or a provider id or base URL that says so */
export function isOllama(model: Pick<Target, 'provider' | 'baseUrl'>): boolean {
  if (/ollama/i.test(model.provider) || /ollama/i.test(model.baseUrl ?? '')) return true
  try {
    return new URL(model.baseUrl ?? '').port === '11434'
  } catch {
    return false
  }
}

/**
 * estimated tokens of a request's context (system prompt and tool declarations included), without images and
 * earlier reasoning: a chat template may leave old thinking out, and an image's cost varies by model
 */
export function estimateSent(context: { systemPrompt?: string; messages: readonly unknown[] }): number {
  const messages = context.messages as readonly AnyMessage[]
  let uncounted = 0
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue
    for (const b of m.content as Array<{ type?: unknown; thinking?: unknown }>) {
      if (b?.type === 'image') uncounted += IMAGE_CHARS
      else if (b?.type === 'thinking' && typeof b.thinking === 'string') uncounted += b.thinking.length
    }
  }
  const system = Math.ceil((context.systemPrompt?.length ?? 0) / CHARS_PER_TOKEN)
  return Math.max(0, estimateContextTokens(messages) + system - Math.floor(uncounted / CHARS_PER_TOKEN))
}

/** the notice for a response whose prompt count says the server cut what was sent, else undefined */
export function truncationNotice(model: Target, estimatedTokens: number, promptTokens: number): TruncationNotice | undefined {
  if (!isOllama(model)) return undefined
  if (!(promptTokens > 0) || estimatedTokens < MIN_ESTIMATE) return undefined
  if (promptTokens > estimatedTokens * MAX_RATIO || estimatedTokens - promptTokens < MIN_SHORTFALL) return undefined
  const window = model.contextWindow
  const message =
    `Ollama read only ${promptTokens} of the ~${estimatedTokens} tokens sent to ${model.provider}/${model.id}: ` +
    'its context is smaller than the conversation, so it dropped part of it and the reply may miss what was cut. ' +
    `Raise Ollama's context (OLLAMA_CONTEXT_LENGTH=${suggestedContext(estimatedTokens)} for \`ollama serve\`, or PARAMETER num_ctx in a Modelfile) ` +
    `and set this model's context window in Loopdesk (Settings → Models${window ? `, now ${window}` : ''}) to match.`
  return {
    reason: 'context_truncated',
    provider: model.provider,
    model: model.id,
    promptTokens,
    estimatedTokens,
    ...(window ? { contextWindow: window } : {}),
    message,
  }
}

/** the next power of two above the estimate with room for a reply, at least 8192: a value Ollama users set */
function suggestedContext(estimated: number): number {
  let n = 8192
  while (n < estimated * 1.25) n *= 2
  return n
}
