// The text a reply's markdown shows, as the window renders it (`src/renderer/src/markdown/Markdown.tsx`, the same
// lexer settings): `**bold**` reads "bold", a link its text (never its URL), an escaped `\*` a "*", a code
// fence its code without the fence lines, `&amp;` a "&". Find counts occurrences in this, not in the raw
// source, so the count in the find bar and the marks in the rendered row agree. Blocks (paragraphs, items,
// cells, code blocks) are separated by a line break: an occurrence never spans two of them, as no mark does.
import { Marked, type Token, type Tokens } from 'marked'
import { decodeEntities } from './html-entities'
import { idleDrop } from './idle-drop'
import { footnoteDef, footnoteRef, type FootnoteDefToken, type FootnoteRefToken } from './markdown-footnotes'

const marked = new Marked({ gfm: true, breaks: false, extensions: [footnoteRef, footnoteDef] })

function inline(tokens: readonly Token[] | undefined): string {
  let out = ''
  for (const t of tokens ?? []) out += inlineToken(t)
  return out
}

function inlineToken(t: Token): string {
  switch (t.type) {
    case 'text': {
      const tt = t as Tokens.Text
      return tt.tokens ? inline(tt.tokens) : decodeEntities(tt.text)
    }
    case 'escape':
      return (t as Tokens.Escape).text
    case 'strong':
    case 'em':
    case 'del':
    case 'link':
      return inline((t as Tokens.Strong).tokens)
    case 'codespan':
      return decodeEntities((t as Tokens.Codespan).text)
    case 'br':
      return '\n'
    case 'image':
      return `🖼 ${(t as Tokens.Image).text || 'image'}`
    case 'html':
      return (t as Tokens.HTML).text
    case 'checkbox':
      return ''
    case 'footnoteRef':
      return (t as unknown as FootnoteRefToken).label
    default:
      return 'text' in t && typeof t.text === 'string' ? decodeEntities(t.text) : t.raw
  }
}

function blocks(tokens: readonly Token[]): string[] {
  const out: string[] = []
  for (const t of tokens) out.push(...block(t))
  return out
}

function block(t: Token): string[] {
  switch (t.type) {
    case 'space':
    case 'def':
    case 'hr':
      return []
    case 'paragraph':
    case 'heading':
      return [inline((t as Tokens.Paragraph).tokens)]
    case 'code':
      return [(t as Tokens.Code).text]
    case 'blockquote':
      return blocks((t as Tokens.Blockquote).tokens)
    case 'list':
      // a tight item's text tokens are inline in its <li>, a loose one's are paragraphs
      return (t as Tokens.List).items.map((it) => (it.loose ? blocks(it.tokens).join('\n') : it.tokens.map((c) => (c.type === 'text' ? inlineToken(c) : block(c).join('\n'))).join('\n')))
    case 'table': {
      const tb = t as Tokens.Table
      return [...tb.header, ...tb.rows.flat()].map((c) => inline(c.tokens))
    }
    case 'html':
      return [(t as Tokens.HTML).text]
    case 'text':
      return [(t as Tokens.Text).tokens ? inline((t as Tokens.Text).tokens) : decodeEntities((t as Tokens.Text).text)]
    case 'footnoteDef': {
      const d = t as unknown as FootnoteDefToken
      return [`${d.label} ${inline(d.tokens as Token[])}`]
    }
    default:
      return [t.raw]
  }
}

// Lexing costs ~0.5 ms per 1,000 characters, and find asks again for every query typed: the texts last rendered are
// kept (most recently used last), up to this many characters of source in all
const CACHE_CHARS = 4_000_000
const cache = new Map<string, string>()
let cached = 0
// and only while find is in use (5 minutes since the last text asked for)
const idle = idleDrop(5 * 60_000, () => {
  cache.clear()
  cached = 0
})

/** What `markdown` shows as text, block by block (not cached: `renderedMarkdownText` joins them and keeps some). */
export function renderedMarkdownBlocks(markdown: string): string[] {
  try {
    return blocks(marked.lexer(markdown))
  } catch {
    return [markdown] // the window shows it as written then
  }
}

/** What `markdown` shows as text once rendered, its blocks one per line. */
export function renderedMarkdownText(markdown: string): string {
  idle.touch()
  const hit = cache.get(markdown)
  if (hit !== undefined) {
    cache.delete(markdown)
    cache.set(markdown, hit)
    return hit
  }
  const text = renderedMarkdownBlocks(markdown).join('\n')
  if (markdown.length <= CACHE_CHARS / 8) {
    cache.set(markdown, text)
    cached += markdown.length
    for (const [k] of cache) {
      if (cached <= CACHE_CHARS) break
      cache.delete(k)
      cached -= k.length
    }
  }
  return text
}
