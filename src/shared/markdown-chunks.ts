// A reply's markdown cut into pieces that render, one by one, to the blocks the whole renders to — so find can
// render only the pieces that may hold its query (rendered-find.ts): lexing a long reply whole costs ~0.2 ms per
// 1,000 characters, and a first query over hundreds of long replies rendered them all.
// A cut is made only at a blank line followed by a line that starts at its first column, is no list item (a loose
// list goes on past a blank line) and lies outside a fenced code block: there every block of the top level has
// ended (a paragraph, table, quote or list item ends at a blank line, an indented line would continue one). Text
// whose rendering reaches across blank lines is not cut: a link reference definition (it changes how `[x]` renders
// anywhere in the message), an HTML block (some run to an end marker past blank lines), and a fence opened
// indented (inside a list item, where the item's end may close it before its closing line).

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/
const LIST_ITEM = /^(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/
const HTML_START = /^ {0,3}<[a-zA-Z/!?]/
// a footnote definition (markdown-footnotes.ts), which defines no link
const FOOTNOTE_DEF = /^\[\^[^\]\s[]{1,40}\]:/

const indentOf = (line: string) => line.length - line.trimStart().length

/** The pieces of `markdown` in order (joined they are the text, carriage returns read as marked reads them), or undefined when it is not cut. */
export function markdownChunks(markdown: string): string[] | undefined {
  // marked reads \r\n and \r as \n before anything else
  const src = markdown.includes('\r') ? markdown.replace(/\r\n|\r/g, '\n') : markdown
  const chunks: string[] = []
  let start = 0
  let fence: { run: string; indent: number } | undefined
  let blankBefore = false
  for (let at = 0; at < src.length; ) {
    const nl = src.indexOf('\n', at)
    const end = nl < 0 ? src.length : nl
    const line = src.slice(at, end)
    const blank = line.trim() === ''
    if (fence) {
      const indent = indentOf(line)
      // a fence in a list item ends with the item: where that is, only marked knows
      if (fence.indent > 0 && blankBefore && !blank && indent < fence.indent) return undefined
      if (indent <= 3 && line.slice(indent).startsWith(fence.run) && /^[~`]* *$/.test(line.slice(indent + fence.run.length))) fence = undefined
    } else if (!blank) {
      if (HTML_START.test(line)) return undefined
      if (line.includes(']:') && !FOOTNOTE_DEF.test(line)) return undefined
      if (blankBefore && line[0] !== ' ' && line[0] !== '\t' && !LIST_ITEM.test(line) && at > start) {
        chunks.push(src.slice(start, at))
        start = at
      }
      const open = FENCE_OPEN.exec(line)
      // a backtick fence's info string has no backtick (else it is inline code)
      if (open && !(open[2][0] === '`' && open[3].includes('`'))) fence = { run: open[2], indent: open[1].length }
    }
    blankBefore = blank
    at = end + 1
  }
  chunks.push(src.slice(start))
  return chunks
}
