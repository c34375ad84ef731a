// A long plain code block's lines in groups, each a box the browser may skip while it is off-screen
// (`content-visibility: auto`, `.code-lines`): a finished reply's 120 kB block was laid out whole, ~3,000 lines,
// whenever its row scrolled into view (250–330 ms tasks). The text stays whole in the DOM — a group ends with its
// line end, so the code element's text is the code (find marks, selection, the screen reader read it as before).

/** Blocks shorter than this are one text node, as before (a group's box costs more than it saves). */
export const GROUP_FROM_CHARS = 4_000
/** Lines per group: a few screenfuls (smaller groups meant more of them to lay out one by one while scrolling). */
export const LINES_PER_GROUP = 200

/** `code` cut after every LINES_PER_GROUP-th line end (joined, the groups are `code`); short code is one group. */
export function codeLineGroups(code: string, linesPer = LINES_PER_GROUP): string[] {
  if (code.length < GROUP_FROM_CHARS) return [code]
  const out: string[] = []
  let start = 0
  let lines = 0
  for (let at = code.indexOf('\n'); at >= 0; at = code.indexOf('\n', at + 1)) {
    if (++lines < linesPer) continue
    out.push(code.slice(start, at + 1))
    start = at + 1
    lines = 0
  }
  if (start < code.length || !out.length) out.push(code.slice(start))
  return out
}

/** How many lines a group shows (its height while skipped: lines × the line height). */
export function groupLines(group: string): number {
  let n = 1
  for (let at = group.indexOf('\n'); at >= 0 && at < group.length - 1; at = group.indexOf('\n', at + 1)) n++
  return n
}
