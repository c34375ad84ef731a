// How a content search matches one message: its text, a tool call's name and arguments, or a tool's
// output contains the query case-insensitively. The runtime's transcript search and the renderer's fake
// bridge share it, so the window's tests search as the app does.

import { countInReply, firstPieceShowing, queryShape, renderedLengthBound } from './rendered-find'
import { renderedMarkdownText } from './rendered-text'
import { occurrencesIn, SEARCH_CHARS_PER_MESSAGE, toolCallSearchText } from './search-text'

// the window's own part of the search, apart (see search-text.ts)
export { occurrencesIn, SEARCH_CHARS_PER_MESSAGE, toolCallSearchText }

// little before the match: the sidebar shows about 30 characters of it
const SNIPPET_BEFORE = 20
const SNIPPET_AFTER = 80

export type SearchRole = 'user' | 'assistant' | 'toolResult'

/**
 * What a content search reads of a message, part by part: user and assistant text, each tool call of the
 * assistant as "name: argument values", a tool result's text; at most SEARCH_CHARS_PER_MESSAGE characters.
 */
export function searchableParts(message: { role?: unknown; content?: unknown }, opts: { rendered?: boolean } = {}): string[] {
  const max = SEARCH_CHARS_PER_MESSAGE
  const { role, content } = message
  if (role !== 'user' && role !== 'assistant' && role !== 'toolResult') return []
  // find reads a reply as the window shows it (markdown rendered: no URLs, no syntax); the sidebar's search the source
  const text = (s: string) => (opts.rendered && role === 'assistant' ? renderedMarkdownText(s.slice(0, max)) : s)
  if (typeof content === 'string') return [text(content).slice(0, max)]
  if (!Array.isArray(content)) return []
  const parts: string[] = []
  let size = 0
  for (const c of content) {
    if (size >= max) break
    if (!c || typeof c !== 'object') continue
    const part = c as { type?: unknown; text?: unknown; name?: unknown; arguments?: unknown }
    let s: string | undefined
    if (part.type === 'text' && typeof part.text === 'string') s = text(part.text)
    else if (part.type === 'toolCall' && role === 'assistant') {
      s = toolCallSearchText(typeof part.name === 'string' ? part.name : 'tool', part.arguments, max - size)
    }
    if (!s) continue
    s = s.slice(0, max - size)
    parts.push(s)
    size += s.length
  }
  return parts
}

/** One line of `text` around the first match of `needle` (lowercase; … where cut), or undefined without a match. */
function snippetAt(text: string, needle: string): string | undefined {
  if (!needle) return undefined
  const at = text.toLowerCase().indexOf(needle)
  if (at < 0) return undefined
  let start = Math.max(0, at - SNIPPET_BEFORE)
  // begin at a word, not inside one
  if (start > 0 && !/\s/.test(text[start - 1])) {
    const space = text.slice(start, at).search(/\s/)
    if (space >= 0) start += space + 1
  }
  const end = Math.min(text.length, at + needle.length + SNIPPET_AFTER)
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim()
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`
}

/**
 * How many times `query` occurs (case-insensitively, not overlapping) in what find reads of the message, part by
 * part — the find bar steps through these: a reply's text as rendered (`rendered-text.ts`), so an occurrence only in
 * a link's URL or in markdown syntax is none, as the window marks none there. Bounded by what is read:
 * SEARCH_CHARS_PER_MESSAGE / the query's length.
 */
export function countOccurrences(message: { role?: unknown; content?: unknown }, query: string): number {
  const needle = query.toLowerCase()
  if (!needle) return 0
  if (message.role === 'assistant') {
    const n = countInReplyParts(message.content, needle)
    if (n !== undefined) return n
  }
  let n = 0
  for (const part of searchableParts(message, { rendered: true })) n += occurrencesIn(part.toLowerCase(), needle)
  return n
}

/**
 * countOccurrences of a reply rendering only the pieces of its text that may show the query (rendered-find.ts),
 * when that counts the same: nothing of it cut at SEARCH_CHARS_PER_MESSAGE (its rendered text can be no longer
 * than `renderedLengthBound`). Undefined otherwise: the caller renders it whole.
 */
function countInReplyParts(content: unknown, needle: string): number | undefined {
  const shape = queryShape(needle)
  if (shape.any) return undefined
  const max = SEARCH_CHARS_PER_MESSAGE
  const parts = typeof content === 'string' ? [content] : Array.isArray(content) ? content : []
  let bound = 0
  let n = 0
  for (const c of parts) {
    const part = typeof c === 'string' ? { type: 'text', text: c } : (c as { type?: unknown; text?: unknown; name?: unknown; arguments?: unknown } | null)
    if (!part || typeof part !== 'object') continue
    if (part.type === 'text' && typeof part.text === 'string') {
      const source = part.text.slice(0, max)
      bound += renderedLengthBound(source)
      if (bound > max) return undefined
      n += countInReply(source, shape)
    } else if (part.type === 'toolCall') {
      const s = toolCallSearchText(typeof part.name === 'string' ? part.name : 'tool', part.arguments, max - bound)
      bound += s.length
      if (bound > max) return undefined
      n += occurrencesIn(s.toLowerCase(), needle)
    }
  }
  return n
}

/**
 * One line around the first match of `query` in what a search reads of the message (… where cut), or undefined.
 * A reply whose source lacks the query but whose rendered text shows it (`AT&amp;T` for "AT&T") matches too, with
 * a snippet of that text: the sidebar's search finds what find finds.
 */
export function matchMessageSnippet(message: { role?: unknown; content?: unknown }, query: string): string | undefined {
  const needle = query.toLowerCase()
  for (const part of searchableParts(message)) {
    const snippet = snippetAt(part, needle)
    if (snippet !== undefined) return snippet
  }
  if (message.role !== 'assistant' || !needle) return undefined
  // the pieces of its text that show the query (rendering no more than that), within what a search reads of it
  const shape = queryShape(needle)
  const { content } = message
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.flatMap((c) => (c && c.type === 'text' && typeof c.text === 'string' ? [c.text as string] : [])) : []
  let bound = 0
  for (const t of texts) {
    const source = t.slice(0, SEARCH_CHARS_PER_MESSAGE)
    bound += renderedLengthBound(source)
    // past the bound, what is read of the reply is its rendered text cut there: render it whole
    if (bound > SEARCH_CHARS_PER_MESSAGE) break
    const shown = firstPieceShowing(source, shape)
    if (shown !== undefined) return snippetAt(shown, needle)
  }
  if (bound <= SEARCH_CHARS_PER_MESSAGE) return undefined
  for (const part of searchableParts(message, { rendered: true })) {
    const snippet = snippetAt(part, needle)
    if (snippet !== undefined) return snippet
  }
  return undefined
}
