// Splits streamed markdown into top-level blocks so finished blocks can be memoized and only the
// growing tail is re-lexed per frame (a full re-parse per delta is O(L²) over a long reply).
// A boundary is a blank line outside a code fence followed by an unindented line, or the end of a
// closing fence. Resuming always starts at the last boundary, where we are outside any fence.

/** Above this many chars an unfinished tail is cut at a line end, so one frame never re-lexes a huge block. */
export const MAX_TAIL_CHARS = 16_000

export interface SplitState {
  /** the text this state was computed for */
  text: string
  /** finished blocks (raw markdown, trailing blank lines stripped) */
  blocks: string[]
  /** offsets where each finished block starts (parallel to blocks) */
  offsets: number[]
  /** where the unfinished tail starts */
  stableEnd: number
}

const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13) return false
  }
  return true
}

function closesFence(line: string, fence: string): boolean {
  const m = FENCE_RE.exec(line)
  if (!m) return false
  const marker = m[1]
  return marker[0] === fence[0] && marker.length >= fence.length && isBlank(line.slice(m[0].length))
}

/** Edges compared when checking that `text` still starts with the finished part of `prev`. */
const PREFIX_PROBE = 512

/**
 * Whether text[0, end) equals prev[0, end). Streamed text only grows, so comparing the start and
 * the end of that range is enough and keeps this O(1) instead of O(length) per frame; a replaced
 * text (rare) that keeps both edges intact would reuse stale blocks until the next change.
 */
function sharesPrefix(text: string, prev: string, end: number): boolean {
  if (text === prev) return true
  const head = Math.min(end, PREFIX_PROBE)
  if (text.slice(0, head) !== prev.slice(0, head)) return false
  const from = Math.max(head, end - PREFIX_PROBE)
  return text.slice(from, end) === prev.slice(from, end)
}

/**
 * Incremental split: pass the previous state for the same message. When `text` extends the
 * previous text, only the tail is scanned again.
 */
export function splitBlocks(text: string, prev?: SplitState): SplitState {
  let blocks: string[]
  let offsets: number[]
  let blockStart: number
  if (prev && text.length >= prev.stableEnd && sharesPrefix(text, prev.text, prev.stableEnd)) {
    blocks = prev.blocks.slice()
    offsets = prev.offsets.slice()
    blockStart = prev.stableEnd
  } else {
    blocks = []
    offsets = []
    blockStart = 0
  }
  const finish = (end: number, next: number) => {
    let e = end
    while (e > blockStart && (text[e - 1] === '\n' || text[e - 1] === '\r')) e--
    if (e > blockStart) {
      blocks.push(text.slice(blockStart, e))
      offsets.push(blockStart)
    }
    blockStart = next
  }

  let pos = blockStart
  let fence: string | null = null
  let blankAt = -1 // start of the first blank line after content, while pending
  let sawContent = false
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos)
    if (nl === -1) {
      // Incomplete last line: it belongs to the tail, but its first char already tells whether the
      // pending blank line ends the block.
      if (fence === null && blankAt >= 0 && pos < text.length && text[pos] !== ' ' && text[pos] !== '\t') {
        finish(blankAt, pos)
      }
      break
    }
    const line = text.slice(pos, nl)
    const next = nl + 1
    if (fence !== null) {
      if (closesFence(line, fence)) {
        fence = null
        finish(next, next)
        sawContent = false
      }
      pos = next
      continue
    }
    if (isBlank(line)) {
      if (!sawContent) blockStart = next // skip leading blank lines
      else if (blankAt < 0) blankAt = pos
      pos = next
      continue
    }
    const indented = line[0] === ' ' || line[0] === '\t'
    if (blankAt >= 0 && !indented) {
      finish(blankAt, pos)
    }
    blankAt = -1
    const m = FENCE_RE.exec(line)
    if (m) fence = m[1]
    sawContent = true
    pos = next
    // Huge unfinished block (one endless paragraph): cut at this line end to bound per-frame work.
    if (fence === null && next - blockStart > MAX_TAIL_CHARS) {
      finish(next, next)
      sawContent = false
    }
  }
  return { text, blocks, offsets, stableEnd: blockStart }
}

/** `s` without its trailing CR/LF characters. A loop, not /[\r\n]+$/: that regex retries from every position of
 * a long run of them that is not at the end (quadratic: 8 s of the window for 80,000 CRs in a reply). */
function trimLineEnds(s: string): string {
  let e = s.length
  while (e > 0 && (s[e - 1] === '\n' || s[e - 1] === '\r')) e--
  return e === s.length ? s : s.slice(0, e)
}

/** All blocks including the unfinished tail (the tail is last, flagged by `done: false`). */
export function blocksWithTail(state: SplitState): Array<{ src: string; offset: number; done: boolean }> {
  const out = state.blocks.map((src, i) => ({ src, offset: state.offsets[i], done: true }))
  const raw = state.text.slice(state.stableEnd)
  const tail = raw.replace(/^(?:[ \t\r]*\n)+/, '')
  const offset = state.text.length - tail.length
  if (tail.trim().length > 0) out.push({ src: trimLineEnds(tail), offset, done: false })
  return out
}

/** A streamed segment longer than this is continued in a new display item (a new virtual row). */
export const SEAL_CHARS = 12_000

/**
 * Where a long segment is cut into a continuation: the last block boundary before k·SEAL_CHARS for
 * the smallest k that has one (0 = no cut yet). It depends only on text[0, k·SEAL_CHARS), so the
 * live stream (checked whenever the text crosses a multiple) and a reload (the whole text) cut at
 * the same offsets and produce the same items.
 */
export function sealPoint(text: string, fromK = 1): number {
  for (let k = fromK; k * SEAL_CHARS <= text.length; k++) {
    const b = splitBlocks(text.slice(0, k * SEAL_CHARS)).stableEnd
    if (b > 0) return b
  }
  return 0
}

/** Cuts a complete segment text into display parts (what streaming would have produced). */
export function sealParts(text: string): string[] {
  const out: string[] = []
  let rest = text
  for (let cut = sealPoint(rest); cut > 0; cut = sealPoint(rest)) {
    out.push(rest.slice(0, cut))
    rest = rest.slice(cut)
  }
  out.push(rest)
  return out
}
