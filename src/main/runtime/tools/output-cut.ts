// One truncation marker for tool output, whichever layer cuts it (exec's own buffer, the transcript cap, the
// event copy). It states the real size of the output and how many of its lines are kept, and a later cut
// reads an earlier marker instead of counting the already-cut text as the whole: the audit saw a 1.2 MB
// output called "100046 characters" because the transcript cap cut away exec's own marker.

export interface OutputSize {
  lines: number
  /** bytes when the producer knows them (exec), else characters */
  amount: number
  unit: 'bytes' | 'characters'
}

const fmt = (n: number) => n.toLocaleString('en-US')
const plural = (n: number, one: string) => `${fmt(n)} ${one}${n === 1 ? '' : 's'}`

/** e.g. `[output truncated: 50,000 lines, 1,238,894 bytes; kept the first 812 and last 1,950 lines]` */
export function truncationMarker(size: OutputSize, headLines: number, tailLines: number): string {
  return `[output truncated: ${plural(size.lines, 'line')}, ${fmt(size.amount)} ${size.unit}; kept the first ${fmt(headLines)} and last ${plural(tailLines, 'line')}]`
}

const MARKER = /\[output truncated: ([\d,]+) lines?, ([\d,]+) (bytes|characters); kept the first ([\d,]+) and last ([\d,]+) lines?\]\n?/
const num = (s: string) => Number(s.replace(/,/g, ''))

interface FoundMarker {
  start: number
  end: number
  size: OutputSize
  headLines: number
  tailLines: number
}

function findMarker(text: string): FoundMarker | undefined {
  const m = MARKER.exec(text)
  if (!m) return undefined
  return {
    start: m.index,
    end: m.index + m[0].length,
    size: { lines: num(m[1]), amount: num(m[2]), unit: m[3] as OutputSize['unit'] },
    headLines: num(m[4]),
    tailLines: num(m[5]),
  }
}

function countNewlines(text: string, from = 0, to = text.length): number {
  let n = 0
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** Lines a text spans: a last line without its newline counts too. */
export function countLines(text: string, from = 0, to = text.length): number {
  if (to <= from) return 0
  return countNewlines(text, from, to) + (text[to - 1] === '\n' ? 0 : 1)
}

/** Moves a head cut back to a line's end when one is within the last half of the head. */
export function snapHeadEnd(text: string, end: number): number {
  if (end <= 0 || text[end - 1] === '\n') return end
  const nl = text.lastIndexOf('\n', end - 1)
  return nl >= 0 && nl + 1 >= end / 2 ? nl + 1 : end
}

/** Moves a tail cut forward to a line's start when one is within the first half of the tail. */
export function snapTailStart(text: string, start: number): number {
  if (start <= 0 || start >= text.length || text[start - 1] === '\n') return start
  const nl = text.indexOf('\n', start)
  return nl >= 0 && nl + 1 - start <= (text.length - start) / 2 ? nl + 1 : start
}

/** A head, the marker and a tail joined so that the marker has a line of its own. */
export function joinAroundMarker(head: string, marker: string, tail: string): string {
  return `${head}${head && !head.endsWith('\n') ? '\n' : ''}${marker}${tail ? '\n' + tail : ''}`
}

export interface CutPlan {
  /** text[0, headEnd) and text[tailStart, …) are kept */
  headEnd: number
  tailStart: number
  marker: string
}

/**
 * Where to cut `text` so that at most `budget` characters of it stay (the marker not counted: callers reserve
 * `markerReserve`), `headShare` of them from its start. Cuts fall on line boundaries where one is near. An
 * earlier marker inside the text is always cut away and its totals carried into the new one. undefined when the
 * text fits.
 */
export function planCut(text: string, budget: number, headShare: number): CutPlan | undefined {
  if (text.length <= budget) return undefined
  const inner = findMarker(text)
  // the part before an inner marker is the output's head, the part after its tail
  const aEnd = inner ? inner.start : text.length
  const bStart = inner ? inner.end : 0
  let head = Math.floor(budget * headShare)
  let tail = budget - head
  if (inner) {
    // a side shorter than its share leaves the rest to the other
    if (aEnd < head) {
      tail += head - aEnd
      head = aEnd
    }
    const bLen = text.length - bStart
    if (bLen < tail) {
      head = Math.min(aEnd, head + tail - bLen)
      tail = bLen
    }
  }
  const headEnd = head < aEnd ? snapHeadEnd(text, head) : aEnd
  let tailStart = Math.max(bStart, text.length - tail)
  tailStart = Math.max(headEnd, tailStart > bStart ? snapTailStart(text, tailStart) : tailStart)

  let size: OutputSize
  let headLines: number
  let tailLines: number
  if (inner) {
    size = inner.size
    // lines dropped from the end of the old head / the start of the old tail; a line cut mid-way still counts as kept
    const midHead = headEnd > 0 && text[headEnd - 1] !== '\n' ? 1 : 0
    headLines = Math.max(0, inner.headLines - countNewlines(text, headEnd, aEnd) + midHead)
    tailLines = Math.max(0, inner.tailLines - countNewlines(text, bStart, tailStart))
  } else {
    size = { lines: countLines(text), amount: text.length, unit: 'characters' }
    headLines = countLines(text, 0, headEnd)
    tailLines = countLines(text, tailStart)
  }
  return { headEnd, tailStart, marker: truncationMarker(size, headLines, tailLines) }
}

/** Room to leave for the marker a cut of `text` adds (+2 for the line breaks around it). */
export function markerReserve(text: string): number {
  const inner = findMarker(text)
  const size = inner?.size ?? { lines: text.length, amount: text.length, unit: 'characters' as const }
  return truncationMarker(size, size.lines, size.lines).length + 2
}

/** `text` cut to `budget` characters, marker included (the marker's room comes out of the kept text). */
export function cutMiddle(text: string, budget: number, headShare: number): string {
  if (text.length <= budget) return text
  const plan = planCut(text, Math.max(0, budget - markerReserve(text)), headShare)!
  return joinAroundMarker(text.slice(0, plan.headEnd), plan.marker, text.slice(plan.tailStart))
}
