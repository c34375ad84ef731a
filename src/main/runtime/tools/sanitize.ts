// Size limits for tool results: a light copy for events/logs (8,000 chars per text block, image bytes
// dropped) and a heavier cap for what is persisted in the transcript (40,000 chars of text in total). Both
// keep the start and the end of a text and cut its middle, with one marker that states the output's real size
// (`output-cut.ts`: an earlier cut's marker, e.g. exec's own, is read, not cut away with its numbers).
import { cutMiddle, joinAroundMarker, markerReserve, planCut } from './output-cut'

export const EVENT_TEXT_MAX_CHARS = 8000
export const PERSIST_TEXT_MAX_CHARS = 40_000
/** At least this much of the head survives the persistence cap. */
export const PERSIST_MIN_KEEP_CHARS = 2000

type Block = Record<string, unknown> & { type?: unknown }

/** Share of a cut text kept from its start; the rest comes from its end, where a command's errors and exit are. */
const HEAD_SHARE = 0.3

function cutText(text: string): string {
  return cutMiddle(text, EVENT_TEXT_MAX_CHARS, HEAD_SHARE)
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

/**
 * Caps the total text of a toolResult message at PERSIST_TEXT_MAX_CHARS: its start and its end are kept (the end
 * holds most: a command's errors and exit status come last), with a marker where the middle was cut. Text blocks
 * wholly inside the cut are dropped; images are kept as they are. Returns the input itself when nothing needs
 * cutting; never mutates it.
 */
export function capToolResultForPersist<T>(msg: T): T {
  const m = msg as unknown as { content?: unknown }
  if (!m || typeof m !== 'object' || !Array.isArray(m.content)) return msg
  const blocks = m.content as unknown[]
  const isText = (b: unknown): b is Block & { text: string } => !!b && (b as Block).type === 'text' && typeof (b as Block).text === 'string'
  let total = 0
  for (const b of blocks) if (isText(b)) total += b.text.length
  if (total <= PERSIST_TEXT_MAX_CHARS) return msg

  // planned on the blocks' text as one: the marker's longest form is reserved, so kept text + marker stays
  // within the cap
  const all = blocks.filter(isText).map((b) => b.text).join('')
  const budget = Math.max(PERSIST_MIN_KEEP_CHARS, PERSIST_TEXT_MAX_CHARS - markerReserve(all))
  const { headEnd, tailStart, marker } = planCut(all, budget, HEAD_SHARE)!
  const out: unknown[] = []
  let at = 0 // offset of the current block in the concatenated text
  let noted = false
  for (const b of blocks) {
    if (!isText(b)) {
      out.push(b)
      continue
    }
    const start = at
    const end = at + b.text.length
    at = end
    const head = start < headEnd ? b.text.slice(0, Math.min(end, headEnd) - start) : ''
    const tail = end > tailStart ? b.text.slice(Math.max(start, tailStart) - start) : ''
    // the cut falls in or right after this block: the notice goes there, once
    const cutHere = !noted && end > headEnd
    if (!head && !tail && !cutHere) continue
    if (cutHere) noted = true
    const text = cutHere ? joinAroundMarker(head, marker, tail) : head + tail
    out.push({ ...b, text })
  }
  return { ...(msg as object), content: out } as T
}
