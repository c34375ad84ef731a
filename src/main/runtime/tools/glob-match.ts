// Minimal glob → RegExp compiler: `**` (any depth), `*`, `?`, `[...]`, `{a,b}` (nestable), `\` escapes.
// Matching is on '/'-separated relative paths; `*` and `?` never cross a '/'.

const REGEX_SPECIAL = /[.+^$()|[\]{}\\/*?]/

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

export function globToRegExpSource(pattern: string): string {
  const p = pattern.replace(/^(\.\/)+/, '')
  let out = ''
  const braceEnds: number[] = [] // indexes of the '}' closing each open brace group
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]
    if (ch === '\\' && i + 1 < p.length) {
      i++
      out += REGEX_SPECIAL.test(p[i]) ? '\\' + p[i] : p[i]
    } else if (ch === '*') {
      if (p[i + 1] === '*') {
        const atStart = i === 0 || p[i - 1] === '/'
        let j = i
        while (p[j] === '*') j++
        const atEnd = j === p.length || p[j] === '/'
        if (atStart && atEnd) {
          if (p[j] === '/') {
            out += '(?:[^/]*/)*' // zero or more whole directories
            i = j
          } else {
            out += '.*'
            i = j - 1
          }
          continue
        }
        i = j - 1
      }
      out += '[^/]*'
    } else if (ch === '?') {
      out += '[^/]'
    } else if (ch === '[') {
      const end = closingBracket(p, i)
      if (end === -1) {
        out += '\\['
        continue
      }
      let body = p.slice(i + 1, end)
      let neg = false
      if (body[0] === '!' || body[0] === '^') {
        neg = true
        body = body.slice(1)
      }
      body = body.replace(/[\\\]^]/g, (m) => '\\' + m)
      out += `(?!/)[${neg ? '^' : ''}${body}]`
      i = end
    } else if (ch === '{') {
      const end = closingBrace(p, i)
      if (end === -1) {
        out += '\\{'
        continue
      }
      braceEnds.push(end)
      out += '(?:'
    } else if (ch === ',' && braceEnds.length) {
      out += '|'
    } else if (ch === '}' && braceEnds.length && braceEnds[braceEnds.length - 1] === i) {
      braceEnds.pop()
      out += ')'
    } else {
      out += REGEX_SPECIAL.test(ch) ? '\\' + ch : ch
    }
  }
  return out
}

export function globToRegExp(pattern: string, ignoreCase = false): RegExp {
  return new RegExp(`^${globToRegExpSource(pattern)}$`, ignoreCase ? 'i' : '')
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
