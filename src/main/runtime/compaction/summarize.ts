// Summarizing the older part of a conversation with the session's own model. The conversation is
// rendered as plain text (tool results truncated) and wrapped in instructions that ask for a compact
// checkpoint another model can continue from.
import type { AnyMessage } from './estimate'
import { SUMMARY_PREFIX } from './plan'

/** One request to the model: prompt in, text out (the runner binds it to the session's model). */
export type CompleteFn = (prompt: string, opts: { systemPrompt: string; signal?: AbortSignal }) => Promise<string>

export const SUMMARY_SYSTEM_PROMPT =
  'You write checkpoint summaries of conversations between a user and an AI assistant. ' +
  'Never continue the conversation or answer its questions; output only the summary.'

const TOOL_RESULT_MAX = 2000
const DEFAULT_MAX_PROMPT_CHARS = 400_000

function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return (content as Array<Record<string, unknown>>)
    .map((b) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : b?.type === 'image' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n')
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}\n[… ${s.length - max} more characters]`
}

/** Plain-text transcript of the messages (system messages are not part of what gets summarized). */
export function renderConversation(messages: readonly AnyMessage[]): string {
  const out: string[] = []
  for (const m of messages) {
    if (m.role === 'user') {
      const t = text(m.content)
      if (!t) continue
      out.push(t.startsWith(SUMMARY_PREFIX) ? `[Earlier summary]:\n${t.slice(SUMMARY_PREFIX.length).trim()}` : `[User]: ${t}`)
    } else if (m.role === 'assistant' && Array.isArray(m.content)) {
      const said: string[] = []
      const calls: string[] = []
      for (const b of m.content as Array<Record<string, unknown>>) {
        if (b?.type === 'text' && typeof b.text === 'string' && b.text.trim()) said.push(b.text)
        else if (b?.type === 'toolCall') {
          let args: string
          try {
            args = JSON.stringify(b.arguments ?? {})
          } catch {
            args = '{…}'
          }
          calls.push(`${String(b.name)}(${clip(args, 500)})`)
        }
      }
      if (said.length) out.push(`[Assistant]: ${said.join('\n')}`)
      if (calls.length) out.push(`[Assistant called tools]: ${calls.join('; ')}`)
      if (m.stopReason === 'error' && typeof m.errorMessage === 'string') out.push(`[Assistant error]: ${m.errorMessage}`)
    } else if (m.role === 'toolResult') {
      const t = text(m.content)
      const name = typeof m.toolName === 'string' ? m.toolName : 'tool'
      out.push(`[${m.isError ? 'Tool error' : 'Tool result'} ${name}]: ${clip(t, TOOL_RESULT_MAX)}`)
    }
  }
  return out.join('\n\n')
}

/** Keeps the start and (mostly) the end of an over-long conversation text. */
function fit(s: string, max: number): string {
  if (s.length <= max) return s
  const marker = `\n\n[… ${s.length - max} characters of the middle omitted …]\n\n`
  const head = Math.floor((max - marker.length) * 0.3)
  const tail = max - marker.length - head
  return s.slice(0, head) + marker + s.slice(s.length - tail)
}

export function buildSummaryPrompt(
  messages: readonly AnyMessage[],
  opts: { instructions?: string; previousSummary?: string; maxChars?: number } = {},
): string {
  const parts: string[] = []
  if (opts.previousSummary?.trim()) {
    parts.push(`<previous-summary>\n${opts.previousSummary.trim()}\n</previous-summary>`)
  }
  parts.push(`<conversation>\n${fit(renderConversation(messages), opts.maxChars ?? DEFAULT_MAX_PROMPT_CHARS)}\n</conversation>`)
  parts.push(
    [
      opts.previousSummary?.trim()
        ? 'Write an updated summary that merges the previous summary with the conversation above.'
        : 'Summarize the conversation above.',
      'It replaces these messages in the context of an assistant that will continue the work, so keep',
      'everything needed to carry on and drop chit-chat. Use short sections:',
      '- Goal: what the user wants',
      '- Constraints and preferences stated by the user',
      '- Done so far (with exact file paths, commands, identifiers and error messages)',
      '- Open questions / in progress',
      '- Next steps',
    ].join('\n'),
  )
  if (opts.instructions?.trim()) parts.push(`Additional instructions: ${opts.instructions.trim()}`)
  return parts.join('\n\n')
}

export async function summarize(
  toSummarize: readonly AnyMessage[],
  opts: { complete: CompleteFn; instructions?: string; previousSummary?: string; maxChars?: number; signal?: AbortSignal },
): Promise<string> {
  const prompt = buildSummaryPrompt(toSummarize, opts)
  const out = (await opts.complete(prompt, { systemPrompt: SUMMARY_SYSTEM_PROMPT, signal: opts.signal })).trim()
  if (!out) throw new Error('the model returned an empty summary')
  return out
}

/**
 * A CompleteFn over a pi stream function (the model registry's `streamFn`, i.e. Models.streamSimple):
 * one non-tool request with the given model; a model error becomes a thrown Error.
 */
export function createStreamCompleter(
  streamFn: (model: any, context: any, options?: any) => any,
  model: { maxTokens?: number },
  opts: { getApiKey?: (provider: string) => string | undefined; maxTokens?: number } = {},
): CompleteFn {
  return async (prompt, { systemPrompt, signal }) => {
    const provider = (model as { provider?: string }).provider ?? ''
    const stream = await streamFn(
      model,
      { systemPrompt, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }], timestamp: Date.now() }] },
      { apiKey: opts.getApiKey?.(provider), signal, maxTokens: opts.maxTokens ?? Math.min(model.maxTokens ?? 4096, 8192) },
    )
    const msg = (await stream.result()) as { stopReason: string; errorMessage?: string; content: Array<{ type: string; text?: string }> }
    if (msg.stopReason === 'error' || msg.stopReason === 'aborted') {
      throw new Error(msg.errorMessage || `summary request ${msg.stopReason}`)
    }
    return msg.content.map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('')
  }
}
