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

export function extractTitle(html: string): string | undefined {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)
  const t = m ? decodeEntities(m[1]).replace(/\s+/g, ' ').trim() : ''
  return t || undefined
}

export function htmlToText(html: string): string {
  let s = html.replace(/<!--[\s\S]*?-->/g, ' ')
  for (const tag of DROP_ELEMENTS) {
    s = s.replace(new RegExp(`<${tag}\\b[^>]*>[\\s\\S]*?<\\/${tag}\\s*>`, 'gi'), ' ')
    s = s.replace(new RegExp(`<${tag}\\b[^>]*\\/?>`, 'gi'), ' ') // unclosed leftovers
  }
  // <pre> keeps its line breaks: park its text while the rest has its source whitespace collapsed.
  const pres: string[] = []
  s = s.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_m, body: string) => {
    pres.push(decodeEntities(body.replace(/<[^>]*>/g, '')))
    return `<pre>\u0000${pres.length - 1}\u0000</pre>`
  })
  s = s.replace(/[ \t\r\n\f]+/g, ' ') // in HTML, source line breaks are just spaces
  s = s.replace(/<li\b[^>]*>/gi, '\n• ')
  s = s.replace(/<(\/?)([a-z][a-z0-9]*)\b[^>]*>/gi, (_m, _close: string, name: string) => {
    if (PARAGRAPH.test(name)) return '\n\n'
    if (LINE.test(name)) return '\n'
    if (/^(?:td|th)$/i.test(name)) return ' '
    return ''
  })
  s = s.replace(/<[^>]*>/g, '') // anything tag-like left (doctype, processing instructions)
  s = decodeEntities(s)
  s = s
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
  return s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => pres[Number(i)].replace(/^\n+|\s+$/g, ''))
}
