// Find reads a reply as the window renders it (rendered-text.ts), but rendering is the costly part of a find: a
// first query over hundreds of long replies rendered them all. So find renders only what may show the query:
// `mayShow` is a cheap test on source text (a transcript's raw JSON line, a reply, a piece of one) that passes
// whenever its rendering can hold the query — also when the source does not: `AT&amp;T` shows "AT&T", `a \* b`
// shows "a * b", `the **quick** fox` "the quick fox" — and `countInReply` renders, piece by piece
// (markdown-chunks.ts), only the pieces that pass, keeping their rendered text (by content) for the next query.
import { decodeEntities } from './html-entities'
import { idleDrop } from './idle-drop'
import { markdownChunks } from './markdown-chunks'
import { plainBlocks } from './plain-blocks'
import { renderedMarkdownBlocks, renderedMarkdownText } from './rendered-text'
import { occurrencesIn } from './search-text'

export interface QueryShape {
  /** the query, lowercase */
  needle: string
  /** its runs of letters and digits: a rendering shows each only where its source has it (or an entity decodes to it) */
  words: string[]
  /** its other characters but blanks */
  marks: string[]
  /** no source test is sound for it (a line break or control character: rendering makes them between blocks) */
  any: boolean
  /** some character of it may come from a named entity (`&amp;` → "&") */
  entityChar: boolean
  /** the query's characters in order with markup allowed between (phraseMayShow), made on first use */
  phrase?: RegExp
}

// what the named entities decodeEntities knows decode to (html-entities.ts)
const ENTITY_CHARS = new Set(decodeEntities('&amp;&lt;&gt;&quot;&apos;&nbsp;&copy;&reg;&hellip;&mdash;&ndash;&laquo;&raquo;&ldquo;&rdquo;&lsquo;&rsquo;&times;'))
// an image shows as "🖼 alt", "🖼 image" when it has none (rendered-text.ts)
const IMAGE_MARK = '🖼'

let lastShape: QueryShape | undefined

/** What `mayShow` looks for of `needle` (lowercase). */
export function queryShape(needle: string): QueryShape {
  if (lastShape?.needle === needle) return lastShape
  const words = needle.match(/[\p{L}\p{N}]+/gu) ?? []
  const marks = [...new Set([...needle.replace(/[\p{L}\p{N}\s]+/gu, '')])]
  const any = /[\u0000-\u001f]/.test(needle)
  const entityChar = marks.some((c) => ENTITY_CHARS.has(c))
  return (lastShape = { needle, words, marks, any, entityChar })
}

function holds(hay: string, shape: QueryShape): boolean {
  for (const w of shape.words) if (!hay.includes(w) && !('image'.includes(w) && hay.includes('!['))) return false
  for (const c of shape.marks) if (!hay.includes(c) && !(IMAGE_MARK.includes(c) && hay.includes('!['))) return false
  return true
}

/**
 * Whether the rendering of source text whose lowercase is `lower` may show the query — never false when it does
 * (whatever markup lies between its words, entities and escapes decoded), true more often (each word and mark
 * anywhere). The one miss: a word cut inside by markup (`Ulaan**baatar**`). Also sound on a transcript's raw
 * JSON line: JSON escapes only quotes, backslashes and control characters.
 */
export function mayShow(lower: string, shape: QueryShape): boolean {
  if (shape.any) return true
  if (holds(lower, shape)) return true
  // an entity may make a mark (named ones) or anything at all (numeric ones): test the decoded text too
  if ((shape.entityChar && lower.includes('&')) || lower.includes('&#')) return holds(decodeEntities(lower).toLowerCase(), shape)
  return false
}

// What rendering drops between two characters it shows side by side, inside one block: emphasis, code and strike
// delimiters, escapes' backslashes, a link's brackets and its destination (`[quick](https://u) fox`), an autolink's
// angle brackets. It adds nothing there but for the cases phraseMayShow leaves to rendering (images, footnote labels),
// an entity shows one character (any: a query's character may be one, html-entities.ts's forms), and a blank shown
// is one written (a code span's line break reads as a space, a tab as spaces: any run).
const GAP = '(?:[*_~`\\\\<>[\\]]|\\]\\([^()]*\\))*'
const ENTITY = '&(?:#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});'
// text where rendering adds some, or a link's destination may hold parentheses or a title, or a reference link
// (`[text][ref]`, a `[ref]:` definition: a reply cut in no pieces) drops its label: not tested
const PHRASE_UNSURE = /!\[|\[\^|\]\(\s*<|\]\([^)]*["'(]|\]\[|\]:/

/**
 * A second, stricter test on a piece that passed mayShow: its source holds the query's characters in order with only
 * markup between them. mayShow passes a reply holding each word anywhere — a phrase whose words every reply has but
 * none shows together had every candidate piece rendered (the sidebar's search took ~0.7 s instead of ~45 ms).
 * Never false when the piece's (or a whole reply's) rendering shows the query; true without a test where rendering
 * may add text.
 */
export function phraseMayShow(lower: string, shape: QueryShape): boolean {
  if (shape.any || PHRASE_UNSURE.test(lower)) return true
  shape.phrase ??= new RegExp(
    [...shape.needle.replace(/\s+/g, ' ')]
      .map((c) => `(?:${c === ' ' ? '\\s' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|${ENTITY})${c === ' ' ? '+' : ''}`)
      .join(GAP),
    'u',
  )
  return shape.phrase.test(lower)
}

/** How long a reply's rendered text can be at most: shorter than its source but for images without text and tabs. */
export function renderedLengthBound(markdown: string): number {
  let n = markdown.length
  for (let at = markdown.indexOf('!['); at >= 0; at = markdown.indexOf('![', at + 2)) n += 8
  for (let at = markdown.indexOf('\t'); at >= 0; at = markdown.indexOf('\t', at + 1)) n += 3
  return n
}

// The rendered text of pieces rendered before, by their content (length and two 32-bit hashes: the source is not
// kept), most recently used last, up to CACHE_CHARS characters of rendered text. A changed message is other content,
// so nothing is stale; a transcript rewritten (compaction, an edit) leaves entries nobody asks for, dropped in turn.
const CACHE_CHARS = 12_000_000
const cache = new Map<string, { text: string; empty: boolean }>()
let cachedChars = 0
// kept while find is in use: dropped once no piece was asked for in 5 minutes (up to 24 MB as UTF-16 otherwise held
// for the app's life after one find)
const idle = idleDrop(5 * 60_000, () => clearRenderedPieces())

function contentKey(s: string): string {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15)
  }
  return `${s.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`
}

/** One piece's rendered text (its blocks one per line; `empty`: it has none), through the cache. */
function renderPiece(piece: string): { text: string; empty: boolean } {
  // a plain paragraph or a code block is its own text: nothing to lex, nothing to keep
  const plain = plainBlocks(piece)
  if (plain) return { text: plain.join('\n'), empty: false }
  const key = contentKey(piece)
  idle.touch()
  const hit = cache.get(key)
  if (hit) {
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  const blocks = renderedMarkdownBlocks(piece)
  const r = { text: blocks.join('\n'), empty: blocks.length === 0 }
  cache.set(key, r)
  cachedChars += r.text.length + key.length
  for (const [k, v] of cache) {
    if (cachedChars <= CACHE_CHARS) break
    cache.delete(k)
    cachedChars -= v.text.length + k.length
  }
  return r
}

/** How often `shape`'s query occurs in the rendered text of `markdown` (whole: the caller bounds what is read). */
export function countInReply(markdown: string, shape: QueryShape): number {
  // a reply without the phrase anywhere has it in no piece: not even cut
  if (!shape.any && !phraseMayShow(markdown.toLowerCase(), shape)) return 0
  const pieces = shape.any ? undefined : markdownChunks(markdown)
  if (!pieces) return occurrencesIn(renderedMarkdownText(markdown).toLowerCase(), shape.needle)
  // an occurrence never spans two blocks (the query has no line break), so none spans two pieces
  let n = 0
  for (const piece of pieces) {
    const lower = piece.toLowerCase()
    if (mayShow(lower, shape) && phraseMayShow(lower, shape)) n += occurrencesIn(renderPiece(piece).text.toLowerCase(), shape.needle)
  }
  return n
}

/**
 * The rendered text of the first piece of `markdown` that shows the query, or undefined: where a search's snippet
 * comes from for a reply whose source lacks the query (rendering only the pieces that may show it). A reply that is
 * not cut is rendered whole.
 */
export function firstPieceShowing(markdown: string, shape: QueryShape): string | undefined {
  if (!shape.any && !phraseMayShow(markdown.toLowerCase(), shape)) return undefined
  const pieces = shape.any ? undefined : markdownChunks(markdown)
  if (!pieces) {
    const text = renderedMarkdownText(markdown)
    return text.toLowerCase().includes(shape.needle) ? text : undefined
  }
  for (const piece of pieces) {
    const lower = piece.toLowerCase()
    if (!mayShow(lower, shape) || !phraseMayShow(lower, shape)) continue
    const { text } = renderPiece(piece)
    if (text.toLowerCase().includes(shape.needle)) return text
  }
  return undefined
}

/** The rendered text of `markdown` assembled from its pieces' (through the cache): what renderedMarkdownText gives. */
export function renderedByPieces(markdown: string): string {
  const pieces = markdownChunks(markdown)
  if (!pieces) return renderedMarkdownText(markdown)
  return pieces
    .map(renderPiece)
    .filter((r) => !r.empty)
    .map((r) => r.text)
    .join('\n')
}

/** How many rendered pieces are kept (tests). */
export function renderedPiecesKept(): number {
  return cache.size
}

/** Forget every rendered piece (idle, and tests: the same answers uncached). */
export function clearRenderedPieces(): void {
  idle.cancel()
  cache.clear()
  cachedChars = 0
}
