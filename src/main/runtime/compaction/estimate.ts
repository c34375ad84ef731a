// Context size estimate used to decide when to compact. Deliberately provider-independent: ~4 chars per
// token (the heuristic pi's compaction kit uses), images counted as 4 800 chars, plus a small per-message
// overhead for role/framing tokens. Provider `usage` is NOT used: after a compaction the last assistant's
// usage still describes the old, larger context and would trigger compaction again.

export type AnyMessage = { role: string; [k: string]: unknown }

export const CHARS_PER_TOKEN = 4
export const IMAGE_CHARS = 4800
export const MESSAGE_OVERHEAD_TOKENS = 4

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return ''
  }
}

function contentChars(content: unknown): number {
  if (typeof content === 'string') return content.length
  if (!Array.isArray(content)) return 0
  let chars = 0
  for (const block of content as Array<Record<string, unknown>>) {
    if (!block || typeof block !== 'object') continue
    switch (block.type) {
      case 'text':
        chars += typeof block.text === 'string' ? block.text.length : 0
        break
      case 'thinking':
        chars += typeof block.thinking === 'string' ? block.thinking.length : 0
        break
      case 'toolCall':
        chars += String(block.name ?? '').length + safeJson(block.arguments).length
        break
      case 'image':
        chars += IMAGE_CHARS
        break
      default:
        chars += safeJson(block).length
    }
  }
  return chars
}

/**
 * JSON length of a system message's tool declarations (what safeJson(tools).length gives) without
 * re-serializing them before every request: declarations are immutable values, and the built-in tools'
 * ones are shared by every run, so each one's length is measured once.
 */
const declarationChars = new WeakMap<object, number>()
function toolsAddedChars(tools: readonly unknown[]): number {
  let chars = 2 + Math.max(0, tools.length - 1) // brackets and commas
  for (const t of tools) {
    if (!t || typeof t !== 'object') {
      chars += JSON.stringify([t]).length - 2
      continue
    }
    let n = declarationChars.get(t)
    if (n === undefined) declarationChars.set(t, (n = safeJson(t).length))
    chars += n
  }
  return chars
}

/** Estimated tokens of one message (system messages include their sections and tool declarations). */
export function estimateMessageTokens(m: AnyMessage): number {
  let chars = contentChars(m.content)
  if (m.role === 'system') {
    if (m.sections && typeof m.sections === 'object') {
      for (const v of Object.values(m.sections as Record<string, unknown>)) if (typeof v === 'string') chars += v.length
    }
    if (Array.isArray(m.toolsAdded)) chars += toolsAddedChars(m.toolsAdded)
  }
  if (typeof m.summary === 'string') chars += m.summary.length
  return Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS
}

export function estimateContextTokens(messages: readonly AnyMessage[]): number {
  let total = 0
  for (const m of messages) total += estimateMessageTokens(m)
  return total
}

/**
 * Token count above which a request must be compacted first: contextWindow − reserveTokens. The reserve is
 * capped at half the window so a small model with a large configured reserve does not compact every turn.
 */
export function compactionThreshold(contextWindow: number, reserveTokens: number): number {
  const reserve = Math.min(Math.max(0, reserveTokens), Math.floor(contextWindow / 2))
  return contextWindow - reserve
}

export function shouldCompact(opts: { messages: readonly AnyMessage[]; contextWindow: number; reserveTokens: number }): boolean {
  if (!(opts.contextWindow > 0)) return false
  return estimateContextTokens(opts.messages) > compactionThreshold(opts.contextWindow, opts.reserveTokens)
}
