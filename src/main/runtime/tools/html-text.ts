// HTML → readable text: drops script/style/etc., keeps block structure as line breaks, decodes entities,
// collapses whitespace. Deliberately simple (regex-based); good enough to feed page text to a model.

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™',
  hellip: '…', mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»',
  bull: '•', middot: '·', deg: '°', euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', para: '¶',
  times: '×', divide: '÷', plusmn: '±', frac12: '½', frac14: '¼', frac34: '¾', shy: '', zwj: '', zwnj: '',
  larr: '←', rarr: '→', uarr: '↑', darr: '↓', hearts: '♥', check: '✓', iexcl: '¡', iquest: '¿',
  auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö', Uuml: 'Ü', szlig: 'ß', eacute: 'é', egrave: 'è',
  aacute: 'á', agrave: 'à', oacute: 'ó', uacute: 'ú', iacute: 'í', ntilde: 'ñ', ccedil: 'ç', ecirc: 'ê',
}

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (m, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD'
      return String.fromCodePoint(code)
    }
    return NAMED[body] ?? NAMED[body.toLowerCase()] ?? m
  })
}

const DROP_ELEMENTS = ['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object', 'canvas']
/** Tags that separate paragraphs (blank line) and tags that just break the line. */
const PARAGRAPH = /^(?:p|h[1-6]|ul|ol|dl|table|blockquote|pre|section|article|main|header|footer|nav|aside|figure|form|fieldset|address|details|hr)$/i
const LINE = /^(?:div|br|tr|dt|dd|summary|figcaption|caption|thead|tbody|tfoot)$/i

/**
 * A tag's inside up to its `>`. `[^<>]` rather than `[^>]`: an attempt that finds no `>` stops at the next `<`, so
 * each character is looked at a bounded number of times. With `[^>]*`, a page of unclosed `<`s (or `<li`, `<svg`,
 * …) made every `<` scan to the end of the page: quadratic, minutes of the main thread for a 2 MB page a model
 * was told to fetch. A `<` inside an attribute value now ends the tag early; the text keeps a fragment of it.
 */
const TAG_REST = '[^<>]*'

/**
 * Replaces each `<name …>…</name>` (case-insensitive) in one forward pass. When an element has no closing tag,
 * no later one can have one either, so the pass ends there — where a lazy `<name>[\s\S]*?</name>` regex rescans
 * to the end of the page from every unclosed opening tag.
 */
function replaceElements(s: string, name: string, fn: (body: string) => string): string {
  const open = new RegExp(`<${name}\\b${TAG_REST}>`, 'gi')
  const close = new RegExp(`<\\/${name}\\s*>`, 'gi')
  let out = ''
  let pos = 0
  for (;;) {
    open.lastIndex = pos
    const o = open.exec(s)
    if (!o) break
    close.lastIndex = o.index + o[0].length
    const c = close.exec(s)
    if (!c) break
    out += s.slice(pos, o.index) + fn(s.slice(o.index + o[0].length, c.index))
    pos = c.index + c[0].length
  }
  return pos === 0 ? s : out + s.slice(pos)
}

/** `<!-- … -->` replaced by a space; an unclosed comment is left for the tag pass (as before). */
function dropComments(s: string): string {
  let out = ''
  let pos = 0
  for (;;) {
    const o = s.indexOf('<!--', pos)
    if (o < 0) break
    const c = s.indexOf('-->', o + 4)
    if (c < 0) break
    out += s.slice(pos, o) + ' '
    pos = c + 3
  }
  return pos === 0 ? s : out + s.slice(pos)
}

export function extractTitle(html: string): string | undefined {
  const open = new RegExp(`<title${TAG_REST}>`, 'i').exec(html)
  if (!open) return undefined
  const close = /<\/title>/gi
  close.lastIndex = open.index + open[0].length
  const c = close.exec(html)
  const t = c ? decodeEntities(html.slice(open.index + open[0].length, c.index)).replace(/\s+/g, ' ').trim() : ''
  return t || undefined
}

const ANY_TAG = new RegExp(`<${TAG_REST}>`, 'g')

export function htmlToText(html: string): string {
  let s = dropComments(html)
  for (const tag of DROP_ELEMENTS) {
    s = replaceElements(s, tag, () => ' ')
    s = s.replace(new RegExp(`<${tag}\\b${TAG_REST}>`, 'gi'), ' ') // unclosed leftovers
  }
  // <pre> keeps its line breaks: park its text while the rest has its source whitespace collapsed.
  const pres: string[] = []
  s = replaceElements(s, 'pre', (body) => {
    pres.push(decodeEntities(body.replace(ANY_TAG, '')))
    return `<pre>\u0000${pres.length - 1}\u0000</pre>`
  })
  s = s.replace(/[ \t\r\n\f]+/g, ' ') // in HTML, source line breaks are just spaces
  s = s.replace(new RegExp(`<li\\b${TAG_REST}>`, 'gi'), '\n• ')
  s = s.replace(new RegExp(`<(\\/?)([a-z][a-z0-9]*)\\b${TAG_REST}>`, 'gi'), (_m, _close: string, name: string) => {
    if (PARAGRAPH.test(name)) return '\n\n'
    if (LINE.test(name)) return '\n'
    if (/^(?:td|th)$/i.test(name)) return ' '
    return ''
  })
  s = s.replace(ANY_TAG, '') // anything tag-like left (doctype, processing instructions)
  s = decodeEntities(s)
  s = s
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
  // trimEnd, not /\s+$/: that regex retries from every position of a long whitespace run (quadratic)
  return s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => pres[Number(i)].replace(/^\n+/, '').trimEnd())
}
