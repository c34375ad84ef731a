// (shared: the window renders them, find counts what they render — rendered-text.ts)
// GFM-style footnotes for `marked`, which has none: a reference `[^label]` becomes a `footnoteRef` inline
// token and a definition line `[^label]: text` (with indented continuation lines) a `footnoteDef` block
// token. They are rendered where they stand — models put the definitions at the end — and linked by label
// within the same message (a message's blocks are lexed one by one, so nothing numbers them globally).
import type { TokenizerExtension, Tokens } from 'marked'

export interface FootnoteRefToken {
  type: 'footnoteRef'
  raw: string
  label: string
}

export interface FootnoteDefToken {
  type: 'footnoteDef'
  raw: string
  label: string
  tokens: Tokens.Generic[]
}

// a label: up to 40 characters, no blanks, no brackets (GitHub's rule, bounded)
const LABEL = String.raw`[^\]\s[]{1,40}`
const REF = new RegExp(String.raw`^\[\^(${LABEL})\](?!:)`)
const DEF_START = new RegExp(String.raw`(^|\n)\[\^${LABEL}\]:`)
// the definition's first line, then lines indented by 2+ spaces or a tab
const DEF = new RegExp(String.raw`^\[\^(${LABEL})\]:[ \t]*([^\n]*(?:\n(?: {2,}|\t)[^\n]*)*)(?:\n|$)`)

export const footnoteRef: TokenizerExtension = {
  name: 'footnoteRef',
  level: 'inline',
  // no `start`: marked's text tokens already end before every '[', where this tokenizer is tried first
  tokenizer(src) {
    const m = REF.exec(src)
    return m ? ({ type: 'footnoteRef', raw: m[0], label: m[1] } satisfies FootnoteRefToken) : undefined
  },
}

export const footnoteDef: TokenizerExtension = {
  name: 'footnoteDef',
  level: 'block',
  start(src) {
    const m = DEF_START.exec(src)
    return m ? m.index + m[1].length : undefined
  },
  tokenizer(src) {
    const m = DEF.exec(src)
    if (!m) return undefined
    const text = m[2].replace(/\n[ \t]+/g, '\n')
    return { type: 'footnoteDef', raw: m[0], label: m[1], tokens: this.lexer.inlineTokens(text) } satisfies FootnoteDefToken
  },
}
