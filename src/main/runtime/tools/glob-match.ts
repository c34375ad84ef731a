// Minimal glob matcher: `**` (any depth), `*`, `?`, `[...]`, `{a,b}` (nestable), `\` escapes.
// Matching is on '/'-separated relative paths; `*` and `?` never cross a '/'.

function closingBracket(p: string, i: number): number {
  let j = i + 1
  if (p[j] === '!' || p[j] === '^') j++
  if (p[j] === ']') j++ // a leading ']' is literal
  for (; j < p.length; j++) if (p[j] === ']') return j
  return -1
}

function closingBrace(p: string, i: number): number {
  let depth = 0
  for (let j = i; j < p.length; j++) {
    if (p[j] === '\\') j++
    else if (p[j] === '{') depth++
    else if (p[j] === '}' && --depth === 0) return j
  }
  return -1
}

/** Longest glob pattern accepted, and most alternatives its {…} groups may spell out. */
export const GLOB_MAX_PATTERN_CHARS = 1_000
export const GLOB_MAX_ALTERNATIVES = 256

/** One element of a pattern once its braces are spelled out. */
type Elem =
  | { t: 'char'; test: (c: string) => boolean }
  | { t: 'star' } // any run of characters within a segment
  | { t: 'globstar' } // `**` as a whole segment: any number of segments
  | { t: 'slash' }

/** A pattern as scanned: elements and brace groups (each alternative a sequence). */
type Node = Elem | { t: 'alt'; alts: Node[][] }

const literal = (ch: string): Elem => ({ t: 'char', test: (c) => c === ch })
const ANY: Elem = { t: 'char', test: () => true }

/** Scans the pattern with the rules the regex compiler had (escapes, classes, nestable braces, `**` segments). */
function parse(pattern: string): Node[] {
  const p = pattern.replace(/^(\.\/)+/, '')
  const root: Node[] = []
  // open brace groups: their alternatives so far, the '}' index closing them, and the sequence being filled
  const groups: Array<{ alts: Node[][]; end: number }> = []
  const current = (): Node[] => (groups.length ? groups[groups.length - 1].alts[groups[groups.length - 1].alts.length - 1] : root)
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]
    if (ch === '\\' && i + 1 < p.length) {
      current().push(literal(p[++i]))
    } else if (ch === '*') {
      let j = i
      while (p[j] === '*') j++
      const whole = j - i > 1 && (i === 0 || p[i - 1] === '/') && (j === p.length || p[j] === '/')
      current().push(whole ? { t: 'globstar' } : { t: 'star' })
      i = j - 1
    } else if (ch === '?') {
      current().push(ANY)
    } else if (ch === '[') {
      const end = closingBracket(p, i)
      if (end === -1) {
        current().push(literal('['))
        continue
      }
      let body = p.slice(i + 1, end)
      let neg = false
      if (body[0] === '!' || body[0] === '^') {
        neg = true
        body = body.slice(1)
      }
      body = body.replace(/[\\\]^]/g, (m) => '\\' + m)
      let re: RegExp
      try {
        re = new RegExp(`^[${neg ? '^' : ''}${body}]$`) // one character at a time: no backtracking to speak of
      } catch {
        throw new Error(`invalid character class [${p.slice(i + 1, end)}] in the glob pattern`)
      }
      current().push({ t: 'char', test: (c) => re.test(c) })
      i = end
    } else if (ch === '{') {
      const end = closingBrace(p, i)
      if (end === -1) {
        current().push(literal('{'))
        continue
      }
      const g = { alts: [[]] as Node[][], end }
      current().push({ t: 'alt', alts: g.alts })
      groups.push(g)
    } else if (ch === ',' && groups.length) {
      groups[groups.length - 1].alts.push([])
    } else if (ch === '}' && groups.length && groups[groups.length - 1].end === i) {
      groups.pop()
    } else if (ch === '/') {
      current().push({ t: 'slash' })
    } else {
      current().push(literal(ch))
    }
  }
  return root
}

/** Every brace-free spelling of a scanned pattern (at most GLOB_MAX_ALTERNATIVES). */
function expand(seq: Node[]): Elem[][] {
  let out: Elem[][] = [[]]
  for (const n of seq) {
    if (n.t !== 'alt') {
      for (const o of out) o.push(n)
      continue
    }
    const tails = n.alts.flatMap(expand)
    if (out.length * tails.length > GLOB_MAX_ALTERNATIVES) {
      throw new Error(`glob pattern spells out more than ${GLOB_MAX_ALTERNATIVES} alternatives with its {…} groups; use fewer`)
    }
    out = out.flatMap((o) => tails.map((t) => [...o, ...t]))
  }
  return out
}

/**
 * Wildcard matching without backtracking beyond the last star: `items` against `pat`, where a star matches
 * any run of items and every other element exactly one. Time O(|items| × |pat|) at worst; a regex with several
 * `[^/]*` in a row is exponential in their number (`*a*a*a*a*a*a*b` took seconds on a 60-character name, a
 * few more stars hours, with the main thread blocked throughout).
 */
function wildMatch<P, S>(pat: readonly P[], items: readonly S[], isStar: (p: P) => boolean, one: (p: P, s: S) => boolean): boolean {
  let pi = 0
  let si = 0
  let starP = -1
  let starS = 0
  while (si < items.length) {
    if (pi < pat.length && isStar(pat[pi])) {
      starP = pi++
      starS = si
    } else if (pi < pat.length && one(pat[pi], items[si])) {
      pi++
      si++
    } else if (starP >= 0) {
      pi = starP + 1
      si = ++starS
    } else {
      return false
    }
  }
  while (pi < pat.length && isStar(pat[pi])) pi++
  return pi === pat.length
}

type Segment = { globstar: true } | { globstar: false; elems: Elem[] }

function segmentsOf(elems: Elem[]): Segment[] {
  const segs: Segment[] = []
  let cur: Elem[] = []
  const flush = () => {
    // a `**` that is a segment of its own spans segments; anywhere else it is a plain star
    if (cur.length === 1 && cur[0].t === 'globstar') segs.push({ globstar: true })
    else segs.push({ globstar: false, elems: cur.map((e) => (e.t === 'globstar' ? { t: 'star' } : e)) })
    cur = []
  }
  for (const e of elems) {
    if (e.t === 'slash') flush()
    else cur.push(e)
  }
  flush()
  // a trailing `**` ("src/**") stands for one segment or more, as the regex `src/.*` did
  if (segs.length && segs[segs.length - 1].globstar) segs.splice(segs.length - 1, 0, { globstar: false, elems: [{ t: 'star' }] })
  return segs
}

const matchSegment = (seg: Segment, name: string): boolean =>
  !seg.globstar && wildMatch(seg.elems, [...name], (e) => e.t === 'star', (e, c) => e.t === 'char' && e.test(c))

export interface GlobMatcher {
  /** whether a '/'-separated relative path matches the whole pattern */
  test(path: string): boolean
}

/**
 * Compiles a glob (`**` any depth, `*`, `?`, `[...]`, `{a,b}` nestable, `\` escapes) into a matcher for
 * '/'-separated relative paths; `*` and `?` never cross a '/'. Matching takes time proportional to the path
 * times the pattern, whatever either holds: the pattern comes from the model and runs on the main thread.
 */
export function compileGlob(pattern: string): GlobMatcher {
  if (pattern.length > GLOB_MAX_PATTERN_CHARS) {
    throw new Error(`glob pattern too long (${pattern.length} characters; at most ${GLOB_MAX_PATTERN_CHARS})`)
  }
  const variants = expand(parse(pattern)).map(segmentsOf)
  return {
    test(p: string): boolean {
      const names = p.split('/')
      return variants.some((segs) => wildMatch(segs, names, (s) => s.globstar, matchSegment))
    },
  }
}

export function hasMagic(segment: string): boolean {
  return /[*?[{\\]/.test(segment)
}

/** Leading directory segments without glob syntax: where a walk for this pattern can start. */
export function literalPrefix(pattern: string): { prefix: string; rest: string } {
  const segs = pattern.replace(/^(\.\/)+/, '').split('/')
  const lit: string[] = []
  while (segs.length > 1 && !hasMagic(segs[0]) && segs[0] !== '..') lit.push(segs.shift()!)
  return { prefix: lit.join('/'), rest: segs.join('/') }
}
