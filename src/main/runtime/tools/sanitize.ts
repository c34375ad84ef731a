// Size limits for tool results: a light copy for events/logs (8,000 chars per text block, image bytes
// dropped) and a heavier cap for what is persisted in the transcript (40,000 chars of text in total).
export const EVENT_TEXT_MAX_CHARS = 8000
export const PERSIST_TEXT_MAX_CHARS = 40_000
/** At least this much of the head survives the persistence cap. */
export const PERSIST_MIN_KEEP_CHARS = 2000

type Block = Record<string, unknown> & { type?: unknown }

function cutText(text: string): string {
  if (text.length <= EVENT_TEXT_MAX_CHARS) return text
  return `${text.slice(0, EVENT_TEXT_MAX_CHARS)}\n…(truncated ${text.length - EVENT_TEXT_MAX_CHARS} chars)…`
}

function sanitizeBlock(b: unknown): unknown {
  if (!b || typeof b !== 'object' || Array.isArray(b)) return b
  const block = b as Block
  if (block.type === 'text' && typeof block.text === 'string' && block.text.length > EVENT_TEXT_MAX_CHARS) {
    return { ...block, text: cutText(block.text) }
  }
  if (block.type === 'image' && typeof block.data === 'string') {
    const { data, ...rest } = block
    return { ...rest, bytes: (data as string).length, omitted: true }
  }
  return block
}

/** Copy of a tool result (or partial result) safe to put in an event. Never mutates its input. */
export function sanitizeToolResultForEvent(result: unknown): unknown {
  if (typeof result === 'string') return cutText(result)
  if (Array.isArray(result)) return result.map(sanitizeBlock)
  if (!result || typeof result !== 'object') return result
  const r = result as Record<string, unknown>
  if (!Array.isArray(r.content)) return result
  return { ...r, content: r.content.map(sanitizeBlock) }
}

function notice(omitted: number, total: number): string {
  return `\n\n[… truncated: ${omitted} of ${total} characters omitted (tool output exceeded ${PERSIST_TEXT_MAX_CHARS} characters)]`
}

/**
 * Caps the total text of a toolResult message at PERSIST_TEXT_MAX_CHARS (head kept + a notice).
 * Images are kept as they are. Returns the input itself when nothing needs cutting; never mutates it.
 */
export function capToolResultForPersist<T>(msg: T): T {
  const m = msg as unknown as { content?: unknown }
  if (!m || typeof m !== 'object' || !Array.isArray(m.content)) return msg
  const blocks = m.content as unknown[]
  let total = 0
  for (const b of blocks) {
    const blk = b as Block
    if (blk && blk.type === 'text' && typeof blk.text === 'string') total += blk.text.length
  }
  if (total <= PERSIST_TEXT_MAX_CHARS) return msg

  // notice(total, total) is the longest notice possible, so kept text + the real notice stays within the cap.
  let budget = Math.max(PERSIST_MIN_KEEP_CHARS, PERSIST_TEXT_MAX_CHARS - notice(total, total).length)
  let kept = 0
  const out: unknown[] = []
  let lastText = -1
  for (const b of blocks) {
    const blk = b as Block
    if (blk && blk.type === 'text' && typeof blk.text === 'string') {
      if (budget <= 0) continue // text blocks past the budget are dropped
      const text = blk.text.length > budget ? blk.text.slice(0, budget) : blk.text
      budget -= text.length
      kept += text.length
      lastText = out.length
      out.push({ ...blk, text })
    } else {
      out.push(b)
    }
  }
  const note = notice(total - kept, total)
  if (lastText >= 0) {
    const blk = out[lastText] as Block
    out[lastText] = { ...blk, text: (blk.text as string) + note }
  } else {
    out.push({ type: 'text', text: note.trim() })
  }
  return { ...(msg as object), content: out } as T
}
