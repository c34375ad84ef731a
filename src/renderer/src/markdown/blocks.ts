// Splits streamed markdown into top-level blocks so finished blocks can be memoized and only the
// growing tail is re-lexed per frame (a full re-parse per delta is O(L²) over a long reply).
// A boundary is a blank line outside a code fence followed by an unindented line, or the end of a
// closing fence. Resuming always starts at the last boundary, where we are outside any fence.

/** Above this many chars an unfinished tail is cut at a line end, so one frame never re-lexes a huge block. */
export const MAX_TAIL_CHARS = 16_000
/** A fenced code block is cut into pieces of about this size (a line end past it): one streaming into a
 * 30,000-line block re-lexed, re-rendered and re-laid out the whole block every frame (seconds per frame).
 * Blocks this long are not highlighted anyway (`MAX_HIGHLIGHT_CHARS`). */
export const MAX_FENCE_PIECE_CHARS = 50_000
/** A line longer than this is cut (a megabyte without a line end was one block, re-lexed every frame). */
export const MAX_LINE_CHARS = 32_000

/**
 * Where a cut block left off, for the block after the cut: rendered after `prefix` (the code fence's opening
 * line, a table's header and delimiter rows), so a cut code block or table stays one in its pieces.
 */
interface Carry {
  /** the open fence's marker (``` or ~~~, its length) */
  fence: string | null
  /** the open fence's opening line, with its line end */
  opener: string
  /** the table's header + delimiter rows, with their line ends, while a table goes on */
  table: string
  /** what the block starting here continues ('' for a block of its own) */
  prefix: string
  /** the block starts in the middle of a line (a long line's cut) */
  midLine: boolean
}

const NO_CARRY: Carry = { fence: null, opener: '', table: '', prefix: '', midLine: false }

/** Characters `splitBlocks` has looked at so far (its line-end searches): how the sealing test shows its work is linear. */
export const splitWork = { chars: 0 }

export interface SplitState {
  /** the text this state was computed for */
  text: string
  /** finished blocks (raw markdown, trailing blank lines stripped) */
  blocks: string[]
  /** offsets where each finished block starts (parallel to blocks) */
  offsets: number[]
  /** what each finished block continues ('' or a Carry's prefix; parallel to blocks) */
  prefixes: string[]
  /** where the unfinished tail starts */
  stableEnd: number
  /** the scanner's state at stableEnd */
  carry: Carry
  /** the last block start that continues nothing (no fence or table open there): where a row may be cut */
  cleanEnd: number
}

const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/
/** A GFM table's delimiter row (`|---|:--:|`), loosely: what follows a first line with a `|` in it. */
const TABLE_DELIM_RE = /^[\s|:]*-[\s|:-]*$/

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
 * previous text, only the tail is scanned again. Every cut depends only on the text before it, so
 * a streamed text and the same text whole are split alike.
 */
export function splitBlocks(text: string, prev?: SplitState): SplitState {
  let blocks: string[]
  let offsets: number[]
  let prefixes: string[]
  let blockStart: number
  let carry: Carry
  let cleanEnd: number
  if (prev && text.length >= prev.stableEnd && sharesPrefix(text, prev.text, prev.stableEnd)) {
    blocks = prev.blocks.slice()
    offsets = prev.offsets.slice()
    prefixes = prev.prefixes.slice()
    blockStart = prev.stableEnd
    carry = prev.carry
    cleanEnd = prev.cleanEnd
  } else {
    blocks = []
    offsets = []
    prefixes = []
    blockStart = 0
    carry = NO_CARRY
    cleanEnd = 0
  }
  let { fence, opener, table, prefix, midLine } = carry
  /** a new block starts at `at`: what it continues, and the scanner's state there */
  const startAt = (at: number, next: string) => {
    blockStart = at
    prefix = next
    if (!next) cleanEnd = at
    carry = { fence, opener, table, prefix, midLine }
  }
  /** ends the block at `end` (its trailing line ends dropped unless `whole`: a line's cut keeps every character) */
  const finish = (end: number, next: number, continues = '', whole = false) => {
    let e = end
    while (!whole && e > blockStart && (text[e - 1] === '\n' || text[e - 1] === '\r')) e--
    if (e > blockStart) {
      blocks.push(text.slice(blockStart, e))
      offsets.push(blockStart)
      prefixes.push(prefix)
    }
    startAt(next, continues)
  }

  let pos = blockStart
  let blankAt = -1 // start of the first blank line after content, while pending
  let sawContent = false
  let lines = 0 // content lines of this block so far (a table is told by its second)
  // the last line end found: a huge line is cut many times, and searching again to its end each time was quadratic
  let found = -2
  while (pos < text.length) {
    if (found !== -1 && found < pos) {
      found = text.indexOf('\n', pos)
      splitWork.chars += (found === -1 ? text.length : found + 1) - pos
    }
    const nl = found
    const end = nl === -1 ? text.length : nl
    if (end - pos > MAX_LINE_CHARS) {
      // A huge line: cut it (not inside a surrogate pair); the rest goes on in a block continuing this one.
      if (!midLine && fence === null && blankAt >= 0 && text[pos] !== ' ' && text[pos] !== '\t') {
        table = ''
        finish(blankAt, pos)
      }
      let cut = pos + MAX_LINE_CHARS
      if ((text.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut-- // a high surrogate
      blankAt = -1
      midLine = true
      finish(cut, cut, fence !== null ? opener : table, true)
      sawContent = true
      pos = cut
      continue
    }
    if (midLine) {
      // the rest of a cut line: content, never a fence, a blank line or a new block
      if (nl === -1) break
      midLine = false
      sawContent = true
      lines++
      pos = nl + 1
      continue
    }
    if (nl === -1) {
      // Incomplete last line: it belongs to the tail, but its first char already tells whether the
      // pending blank line ends the block.
      if (fence === null && blankAt >= 0 && pos < text.length && text[pos] !== ' ' && text[pos] !== '\t') {
        table = ''
        finish(blankAt, pos)
      }
      break
    }
    const line = text.slice(pos, nl)
    const next = nl + 1
    if (fence !== null) {
      if (closesFence(line, fence)) {
        fence = null
        opener = ''
        finish(next, next)
        sawContent = false
        lines = 0
      } else if (next - blockStart > MAX_FENCE_PIECE_CHARS) {
        finish(next, next, opener)
      }
      pos = next
      continue
    }
    if (isBlank(line)) {
      if (!sawContent) {
        // skip leading blank lines (a blank line ends a table a cut left open)
        table = ''
        startAt(next, '')
      } else if (blankAt < 0) blankAt = pos
      pos = next
      continue
    }
    const indented = line[0] === ' ' || line[0] === '\t'
    if (blankAt >= 0 && !indented) {
      table = ''
      finish(blankAt, pos)
      lines = 0
    }
    blankAt = -1
    const m = FENCE_RE.exec(line)
    if (m) {
      fence = m[1]
      opener = text.slice(pos, next)
    } else if (lines === 1 && !prefix && !table && TABLE_DELIM_RE.test(line) && text.slice(blockStart, pos).includes('|')) {
      table = text.slice(blockStart, next)
    }
    sawContent = true
    lines++
    pos = next
    // Huge unfinished block (one endless paragraph or table): cut at this line end to bound per-frame work.
    // (a table sooner, at 4,000: its unfinished piece is rebuilt, rows × cells of elements, every frame)
    if (fence === null && next - blockStart > (table ? 4_000 : MAX_TAIL_CHARS)) {
      finish(next, next, table)
      sawContent = false
      lines = 0
    }
  }
  return { text, blocks, offsets, prefixes, stableEnd: blockStart, carry, cleanEnd }
}

/** `s` without its trailing CR/LF characters. A loop, not /[\r\n]+$/: that regex retries from every position of
 * a long run of them that is not at the end (quadratic: 8 s of the window for 80,000 CRs in a reply). */
function trimLineEnds(s: string): string {
  let e = s.length
  while (e > 0 && (s[e - 1] === '\n' || s[e - 1] === '\r')) e--
  return e === s.length ? s : s.slice(0, e)
}

/** All blocks including the unfinished tail (the tail is last, flagged by `done: false`). */
export function blocksWithTail(state: SplitState): Array<{ src: string; offset: number; done: boolean; prefix: string }> {
  const out = state.blocks.map((src, i) => ({ src, offset: state.offsets[i], done: true, prefix: state.prefixes[i] }))
  const raw = state.text.slice(state.stableEnd)
  const prefix = state.carry.prefix
  // (blank lines inside a cut code block are its own)
  const tail = prefix && state.carry.fence !== null ? raw : raw.replace(/^(?:[ \t\r]*\n)+/, '')
  const offset = state.text.length - tail.length
  if (tail.trim().length > 0) out.push({ src: trimLineEnds(tail), offset, done: false, prefix })
  return out
}

/** A streamed segment longer than this is continued in a new display item (a new virtual row). */
export const SEAL_CHARS = 12_000

/**
 * Where a long segment is cut into a continuation: the last block boundary before k·SEAL_CHARS for
 * the smallest k that has one (0 = no cut yet). It depends only on text[0, k·SEAL_CHARS), so the
 * live stream (checked whenever the text crosses a multiple) and a reload (the whole text) cut at
 * the same offsets and produce the same items.
 * Each step resumes the split of the step before (`scan.state` carries it from call to call while no cut
 * is found): splitting text[0, k·SEAL_CHARS) afresh for every k was quadratic — a 1.4 MB code block,
 * which has no boundary until it ends, froze the window for ~0.4 s when its reply was rebuilt from history.
 */
export function sealPoint(text: string, fromK = 1, scan: { state?: SplitState } = {}): number {
  let state = scan.state
  for (let k = fromK; k * SEAL_CHARS <= text.length; k++) {
    state = splitBlocks(text.slice(0, k * SEAL_CHARS), state)
    // a block continuing a cut code block or table is never a row's first: its fence or header would be lost
    if (state.cleanEnd > 0) {
      scan.state = undefined
      return state.cleanEnd
    }
  }
  scan.state = state
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
