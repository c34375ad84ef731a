// A line diff of an edit's old → new text for the tool cards: no dependency, bounded work. The common lines
// at both ends are kept as context; the middle is an LCS table while it is small, else shown as all removed
// then all added (still true, only less precise) so a huge edit never blocks the window.

export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string }

/** Cells of the LCS table past which the middle is shown as a whole replacement. */
export const MAX_DIFF_CELLS = 1_000_000

/** Lines of a text; a final newline ends the last line rather than starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split(/\r?\n/)
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

export function lineDiff(oldText: string, newText: string, maxCells = MAX_DIFF_CELLS): DiffLine[] {
  const a = splitLines(oldText)
  const b = splitLines(newText)
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const out: DiffLine[] = a.slice(0, start).map((text) => ({ kind: 'same', text }))
  const midA = a.slice(start, endA)
  const midB = b.slice(start, endB)
  const n = midA.length
  const m = midB.length
  if ((n + 1) * (m + 1) > maxCells) {
    for (const text of midA) out.push({ kind: 'removed', text })
    for (const text of midB) out.push({ kind: 'added', text })
  } else {
    // lcs[i*(m+1)+j]: length of the LCS of midA[i..] and midB[j..]
    const w = m + 1
    const lcs = new Uint32Array((n + 1) * w)
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i * w + j] =
          midA[i] === midB[j]
            ? lcs[(i + 1) * w + j + 1] + 1
            : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1])
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ kind: 'same', text: midA[i++] })
        j++
      } else if (j === m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        // removed before added when both keep the LCS: a change reads old, then new
        out.push({ kind: 'removed', text: midA[i++] })
      } else {
        out.push({ kind: 'added', text: midB[j++] })
      }
    }
  }
  for (const text of a.slice(endA)) out.push({ kind: 'same', text })
  return out
}

/** The diff as plain text ("-"/"+"/" " prefixes), for copying. */
export function diffText(lines: DiffLine[]): string {
  return lines.map((l) => (l.kind === 'removed' ? '-' : l.kind === 'added' ? '+' : ' ') + l.text).join('\n')
}
