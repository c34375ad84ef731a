// The rendered blocks of a piece of a reply (markdown-chunks.ts) that needs no lexer to tell: a fenced code block
// (its lines as written) or a paragraph / heading without any character inline markup starts with (its text as
// written). Lexing is most of a find's time, and a first query of one letter renders every piece; these are
// checked against marked's own result (rendered-find.test.ts). Undefined: lex it.

// a character some inline rule starts at or reads (emphasis, code, links, images, HTML, entities, escapes,
// tables, breaks); a tab is left to the lexer too
const INLINE_MARKUP = /[\\`*_~[\]!<>&|\t]/
const LETTER_START = /^\p{L}/u
const FENCE = /^(`{3,}|~{3,})(.*)$/
const HEADING = /^(#{1,6}) +(\p{L}.*)$/u

/** The piece's blocks when it is one plain paragraph, heading or fenced code block, else undefined. */
export function plainBlocks(piece: string): string[] | undefined {
  let end = piece.length
  while (end > 0 && piece.charCodeAt(end - 1) === 10) end--
  const body = piece.slice(0, end)
  if (!body || body.includes('\n\n')) return undefined
  const lines = body.split('\n')
  const fence = FENCE.exec(lines[0])
  if (fence) {
    const run = fence[1]
    // a backtick fence's info string has no backtick
    if (run[0] === '`' && fence[2].includes('`')) return undefined
    if (lines.length < 2) return undefined
    const closes = (line: string) => {
      const indent = line.length - line.trimStart().length
      return indent <= 3 && line.slice(indent).startsWith(run) && /^[~`]* *$/.test(line.slice(indent + run.length))
    }
    // closed by its last line and no line before (marked takes the first closing line)
    if (!closes(lines[lines.length - 1]) || lines.slice(1, -1).some(closes)) return undefined
    return [lines.slice(1, -1).join('\n')]
  }
  if (INLINE_MARKUP.test(body)) return undefined
  const heading = lines.length === 1 ? HEADING.exec(lines[0]) : null
  if (heading) return heading[2].includes('#') || /\s$/.test(heading[2]) ? undefined : [heading[2]]
  // a paragraph: every line starts with a letter (no block starts so), none ends in a blank (a hard break)
  if (!lines.every((l) => LETTER_START.test(l) && !/[ \t]$/.test(l))) return undefined
  return [body]
}
