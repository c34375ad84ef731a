// How a content search matches one message: its visible text (a string, or its text parts; tool calls and
// images are not text) contains the query case-insensitively. The runtime's transcript search and the
// renderer's fake bridge share it, so the window's tests search as the app does.

// little before the match: the sidebar shows about 30 characters of it
const SNIPPET_BEFORE = 20
const SNIPPET_AFTER = 80

/** Visible text of a message's content: string content, or its text parts joined by newlines. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const c of content) {
    if (c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string') {
      parts.push((c as { text: string }).text)
    }
  }
  return parts.join('\n')
}

/** One line of the text around the first match of `query` (… where cut), or undefined without a match. */
export function matchSnippet(content: unknown, query: string): string | undefined {
  const needle = query.toLowerCase()
  if (!needle) return undefined
  const text = messageText(content)
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
