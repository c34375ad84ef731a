// Decodes the HTML character references that markdown text (and hljs output) may contain, so they
// render as characters in React text nodes (React escapes on output).
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', hellip: '…',
  mdash: '—', ndash: '–', laquo: '«', raquo: '»', ldquo: '“', rdquo: '”', lsquo: '‘', rsquo: '’', times: '×',
}

const ENTITY_RE = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g

export function decodeEntities(s: string): string {
  if (s.indexOf('&') === -1) return s
  return s.replace(ENTITY_RE, (whole, body: string) => {
    if (body[0] === '#') {
      const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      if (!Number.isFinite(cp) || cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd'
      return String.fromCodePoint(cp)
    }
    return NAMED[body] ?? whole
  })
}
