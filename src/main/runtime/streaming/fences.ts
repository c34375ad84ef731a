// Markdown code fences (``` or ~~~, up to 3 spaces of indent) in a text, so a block chunker can tell
// whether a split position falls inside one.

export interface FenceSpan {
  /** index of the first char of the opening line */
  start: number
  /** index just past the closing fence line's text (its '\n' or the end); Infinity when still open */
  end: number
  /** the opening line without its newline, e.g. "```ts" */
  openLine: string
  /** the fence marker to close with, e.g. "```" or "~~~~" */
  marker: string
}

const OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/

export function findFences(text: string): FenceSpan[] {
  const spans: FenceSpan[] = []
  let open: { start: number; openLine: string; marker: string } | undefined
  let pos = 0
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos)
    const lineEnd = nl < 0 ? text.length : nl
    const line = text.slice(pos, lineEnd)
    const m = OPEN.exec(line)
    if (!open) {
      // A backtick fence's info string may not contain backticks.
      if (m && !(m[1][0] === '`' && m[2].includes('`'))) open = { start: pos, openLine: line.trimStart(), marker: m[1] }
    } else if (m && m[1][0] === open.marker[0] && m[1].length >= open.marker.length && m[2].trim() === '') {
      spans.push({ start: open.start, end: lineEnd, openLine: open.openLine, marker: open.marker })
      open = undefined
    }
    if (nl < 0) break
    pos = nl + 1
  }
  if (open) spans.push({ start: open.start, end: Infinity, openLine: open.openLine, marker: open.marker })
  return spans
}

/** The fence a split at `index` (text[0:index] | text[index:]) would cut through, if any. */
export function fenceAt(spans: readonly FenceSpan[], index: number): FenceSpan | undefined {
  return spans.find((s) => index > s.start && index < s.end)
}
