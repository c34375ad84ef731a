// Streaming markdown: the text is split into blocks (fence-aware, incremental); each finished block
// is a memoized component keyed by its index and compared by content, so while a reply streams only
// the growing tail block is lexed and re-rendered. Tokens from `marked`'s lexer are turned into React
// elements here — no HTML from the model is ever injected.
import { Marked, type Token, type Tokens } from 'marked'
import { Fragment, memo, useCallback, useLayoutEffect, useMemo, useRef, type MouseEvent, type ReactNode } from 'react'
import { blocksWithTail, splitBlocks, type SplitState } from './blocks'
import { CodeBlock, PlainCode } from './CodeBlock'
import { decodeEntities } from '../../../shared/html-entities'
import { footnoteDef, footnoteRef, jumpToFootnote, type FootnoteDefToken, type FootnoteRefToken } from './footnotes'
import { LruCache } from '../lib/lru'
import { revealHidden } from '../components/HiddenChars'
import { hasHiddenChars } from '../../../shared/hidden-chars'

/** Text beyond this offset in one message is rendered as plain text (keeps huge replies cheap). */
export const PLAIN_TEXT_AFTER_CHARS = 200_000

const tokenCache = new LruCache<string, Token[]>(1500)

const marked = new Marked({ gfm: true, breaks: false, extensions: [footnoteRef, footnoteDef] })

function lex(src: string): Token[] {
  const hit = tokenCache.get(src)
  if (hit) return hit
  let tokens: Token[]
  try {
    tokens = marked.lexer(src)
  } catch {
    tokens = [{ type: 'paragraph', raw: src, text: src, tokens: [{ type: 'text', raw: src, text: src }] } as Token]
  }
  if (src.length < 50_000) tokenCache.set(src, tokens)
  return tokens
}

const SAFE_URL = /^(https?:|mailto:)/i

export function safeHref(href: string | undefined | null): string | undefined {
  if (!href) return undefined
  const h = href.trim()
  if (!SAFE_URL.test(h)) return undefined
  try {
    const u = new URL(h)
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : undefined
  } catch {
    return undefined
  }
}

function jump(e: MouseEvent<HTMLButtonElement>, label: string, to: 'def' | 'ref') {
  jumpToFootnote(e.currentTarget, label, to)
}

/** `reveal`: hidden characters as marked tokens (a link's text: components/HiddenChars.tsx). */
function inline(tokens: Token[] | undefined, keyPrefix = '', reveal = false): ReactNode[] {
  if (!tokens) return []
  return tokens.map((t, i) => inlineToken(t, `${keyPrefix}${i}`, reveal))
}

function inlineToken(t: Token, key: string, reveal = false): ReactNode {
  const plain = (text: string) => (reveal ? <Fragment key={key}>{revealHidden(text)}</Fragment> : text)
  switch (t.type) {
    case 'text': {
      const tt = t as Tokens.Text
      return tt.tokens ? <span key={key}>{inline(tt.tokens, key + '.', reveal)}</span> : plain(decodeEntities(tt.text))
    }
    case 'escape':
      return plain((t as Tokens.Escape).text)
    case 'strong':
      return <strong key={key}>{inline((t as Tokens.Strong).tokens, key + '.', reveal)}</strong>
    case 'em':
      return <em key={key}>{inline((t as Tokens.Em).tokens, key + '.', reveal)}</em>
    case 'del':
      return <del key={key}>{inline((t as Tokens.Del).tokens, key + '.', reveal)}</del>
    case 'codespan':
      return <code key={key}>{plain(decodeEntities((t as Tokens.Codespan).text))}</code>
    case 'br':
      return <br key={key} />
    case 'link': {
      const l = t as Tokens.Link
      const href = safeHref(l.href)
      // a link whose text or target hides characters (a U+202E turning "exe.txt" into "txt.exe"): they show
      // as tokens, and the title says where it really goes (the URL parser percent-encodes them there)
      const hidden = hasHiddenChars(l.raw)
      const children = inline(l.tokens, key + '.', hidden)
      if (!href) return <span key={key}>{children}</span>
      const title = hidden ? `${l.title ? `${l.title} — ` : ''}Hidden or bidirectional characters; opens ${href}` : (l.title ?? undefined)
      return (
        <a key={key} href={href} title={title} target="_blank" rel="noreferrer noopener" className={hidden ? 'md-link-hidden-chars' : undefined}>
          {children}
        </a>
      )
    }
    case 'image': {
      // Remote images are blocked by the CSP; show the alt text as a link instead.
      const im = t as Tokens.Image
      const href = safeHref(im.href)
      const label = `🖼 ${im.text || 'image'}`
      return href ? (
        <a key={key} href={href} target="_blank" rel="noreferrer noopener">
          {hasHiddenChars(im.raw) ? revealHidden(label) : label}
        </a>
      ) : (
        <span key={key}>{label}</span>
      )
    }
    case 'html':
      return (t as Tokens.HTML).text // shown literally, never interpreted
    case 'checkbox':
      return <input key={key} type="checkbox" checked={(t as Tokens.Checkbox).checked} readOnly disabled />
    case 'footnoteRef': {
      const { label } = t as unknown as FootnoteRefToken
      return (
        <sup key={key} className="md-fnref">
          <button type="button" data-footnote-ref={label} aria-label={`Footnote ${label}`} onClick={(e) => jump(e, label, 'def')}>
            {label}
          </button>
        </sup>
      )
    }
    default:
      return 'text' in t && typeof t.text === 'string' ? decodeEntities(t.text) : t.raw
  }
}

/** For a piece of a code block or table cut into several blocks (`blocks.ts`): `cont` continues one (its fence
 * or header rows are the cut's, not shown again), `split` goes on in the next block. */
function blockToken(t: Token, key: string, cont?: boolean, split?: boolean, copyWhole?: () => string): ReactNode {
  switch (t.type) {
    case 'space':
    case 'def':
      return null
    case 'paragraph':
      // dir=auto: each paragraph takes its own direction (an Arabic one reads right to left)
      return (
        <p key={key} dir="auto">
          {inline((t as Tokens.Paragraph).tokens, key + '.')}
        </p>
      )
    case 'heading': {
      const h = t as Tokens.Heading
      const Tag = `h${Math.min(6, Math.max(1, h.depth))}` as 'h1'
      return (
        <Tag key={key} dir="auto">
          {inline(h.tokens, key + '.')}
        </Tag>
      )
    }
    case 'code': {
      const c = t as Tokens.Code
      return <CodeBlock key={key} code={c.text} lang={c.lang} cont={cont} split={split} copyWhole={split && !cont ? copyWhole : undefined} />
    }
    case 'blockquote':
      return <blockquote key={key}>{blocks((t as Tokens.Blockquote).tokens, key + '.')}</blockquote>
    case 'hr':
      return <hr key={key} />
    case 'list': {
      const l = t as Tokens.List
      const items = l.items.map((it, i) => (
        <li key={i} className={it.task ? 'task' : undefined} dir="auto">
          {it.loose ? blocks(it.tokens, `${key}.${i}.`) : listItemTight(it.tokens, `${key}.${i}.`)}
        </li>
      ))
      // dir=auto: a right-to-left list is indented, and its markers drawn, on the right (styles.css)
      return l.ordered ? (
        <ol key={key} dir="auto" start={typeof l.start === 'number' && l.start !== 1 ? l.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key} dir="auto">
          {items}
        </ul>
      )
    }
    case 'table': {
      const tb = t as Tokens.Table
      const align = (a: string | null) => (a ? { textAlign: a as 'left' } : undefined)
      return (
        <div key={key} className="md-table-wrap">
          <table>
            <thead className={cont ? 'sr-only' : undefined}>
              <tr>
                {tb.header.map((c, i) => (
                  <th key={i} style={align(c.align)}>
                    <div className="md-cell">{inline(c.tokens, `${key}.h${i}.`)}</div>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {tb.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, i) => (
                    <td key={i} style={align(c.align)}>
                      <div className="md-cell">{inline(c.tokens, `${key}.${r}.${i}.`)}</div>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )
    }
    case 'html':
      return (
        <p key={key} className="md-html">
          {(t as Tokens.HTML).text}
        </p>
      )
    case 'text': {
      const tt = t as Tokens.Text
      return (
        <p key={key} dir="auto">
          {tt.tokens ? inline(tt.tokens, key + '.') : decodeEntities(tt.text)}
        </p>
      )
    }
    case 'footnoteDef': {
      const d = t as unknown as FootnoteDefToken
      return (
        <p key={key} className="md-footnote">
          <button type="button" data-footnote={d.label} aria-label={`Footnote ${d.label}, back to the text`} onClick={(e) => jump(e, d.label, 'ref')}>
            {d.label}
          </button>{' '}
          {inline(d.tokens as Token[], key + '.')}
        </p>
      )
    }
    default:
      return <p key={key}>{t.raw}</p>
  }
}

// Tight list items hold bare `text` tokens; keep them inline instead of wrapping in <p>.
function listItemTight(tokens: Token[], key: string): ReactNode[] {
  return tokens.map((t, i) =>
    t.type === 'text' ? (
      <span key={i}>{(t as Tokens.Text).tokens ? inline((t as Tokens.Text).tokens, `${key}${i}.`) : decodeEntities((t as Tokens.Text).text)}</span>
    ) : t.type === 'checkbox' ? (
      inlineToken(t, `${key}${i}`)
    ) : (
      blockToken(t, `${key}${i}`)
    ),
  )
}

function blocks(tokens: Token[], keyPrefix: string): ReactNode[] {
  return tokens.map((t, i) => blockToken(t, `${keyPrefix}${i}`))
}

interface BlockProps {
  src: string
  plain: boolean
  done: boolean
  /** what the block continues (the cut code block's fence, the table's header rows): lexed before it */
  prefix: string
  /** the block's last code block or table goes on in the next block */
  continued: boolean
  /** the block's index in its message, for `wholeCode` */
  index: number
  /** the whole code block cut at the end of block `index` (its pieces joined), read on Copy */
  wholeCode: (index: number) => string
}

/** One top-level block; memoized by content so finished blocks never re-render. */
export const MarkdownBlock = memo(
  function MarkdownBlock({ src, plain, done, prefix, continued, index, wholeCode }: BlockProps) {
    if (plain)
      return (
        <div className="md-block md-plain">
          <PlainCode code={src} />
        </div>
      )
    // An unfinished code fence is shown unhighlighted until it closes (highlighting per frame is costly).
    const tokens = lex(prefix + src)
    return (
      <div className={done ? 'md-block' : 'md-block md-tail'}>
        {tokens.map((t, i) =>
          !done && t.type === 'code' ? (
            <CodeBlock key={i} code={(t as Tokens.Code).text} lang={(t as Tokens.Code).lang} streaming cont={!!prefix && !i} />
          ) : (
            blockToken(t, String(i), !!prefix && !i, continued && i === tokens.length - 1, () => wholeCode(index))
          ),
        )}
      </div>
    )
  },
  (a, b) =>
    a.src === b.src && a.plain === b.plain && a.done === b.done && a.prefix === b.prefix && a.continued === b.continued && a.index === b.index && a.wholeCode === b.wholeCode,
)

/** Blocks are grouped into chunks of this many by index: a chunk is one memoized, layout-contained
 * element the browser can skip while off-screen, so a huge reply costs little per frame. Chunk k
 * always holds blocks [k·N, (k+1)·N): a growing reply only ever changes its last chunk, and nothing
 * is re-mounted when a chunk fills up. */
export const BLOCKS_PER_CHUNK = 32

interface ChunkBlock {
  src: string
  done: boolean
  plain: boolean
  prefix: string
  continued: boolean
}

function sameBlocks(a: ChunkBlock[], b: ChunkBlock[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]
    const y = b[i]
    if (x.src !== y.src || x.done !== y.done || x.plain !== y.plain || x.prefix !== y.prefix || x.continued !== y.continued) return false
  }
  return true
}

interface ChunkProps {
  blocks: ChunkBlock[]
  /** the index of the chunk's first block in its message */
  first: number
  wholeCode: (index: number) => string
}

const MarkdownChunk = memo(
  function MarkdownChunk({ blocks, first, wholeCode }: ChunkProps) {
    let chars = 0
    for (const b of blocks) chars += b.src.length
    // Placeholder height while the chunk is skipped (off-screen and never rendered yet).
    const estimate = Math.max(120, Math.round(chars / 90) * 24 + blocks.length * 10)
    return (
      <div className="md-chunk" style={{ containIntrinsicSize: `auto ${estimate}px` }}>
        {blocks.map((b, i) => (
          <MarkdownBlock key={i} src={b.src} done={b.done} plain={b.plain} prefix={b.prefix} continued={b.continued} index={first + i} wholeCode={wholeCode} />
        ))}
      </div>
    )
  },
  (a, b) => a.first === b.first && a.wholeCode === b.wholeCode && sameBlocks(a.blocks, b.blocks),
)

type Part = ReturnType<typeof blocksWithTail>[number]

/**
 * The code block cut into pieces starting at the end of part `index` (`blocks.ts` cuts one past 50,000
 * characters), whole: its pieces' text in the message relexed together. Read only when Copy is clicked, so
 * no piece holds a second copy of the block.
 */
function cutCode(text: string, parts: Part[], index: number): string {
  const first = parts[index]
  if (!first) return ''
  let last = index
  while (parts[last + 1]?.prefix) last++
  const end = parts[last].offset + parts[last].src.length
  const tokens = lex(first.prefix + text.slice(first.offset, end))
  for (let i = tokens.length - 1; i >= 0; i--) if (tokens[i].type === 'code') return (tokens[i] as Tokens.Code).text
  return ''
}

const splitCache = new LruCache<string, SplitState>(400)

interface MarkdownProps {
  text: string
  /** stable identity of the message (keeps the incremental split across re-mounts) */
  cacheKey?: string
  /** render everything as plain text */
  plain?: boolean
  /** where `text` starts within its whole message (a continuation row of a long reply) */
  offset?: number
  /** the text is complete (not streaming): its last block is finished too (e.g. a closing code
   * fence with nothing after it gets highlighted) */
  final?: boolean
}

export function Markdown({ text, cacheKey, plain, offset = 0, final = false }: MarkdownProps) {
  // The split of the previous text of the same message (by cacheKey) makes this incremental.
  const parts = useMemo(() => {
    const state = splitBlocks(text, cacheKey ? splitCache.get(cacheKey) : undefined)
    if (cacheKey) splitCache.set(cacheKey, state)
    return blocksWithTail(state)
  }, [text, cacheKey])
  // what a finished piece's Copy reads: the text now, not the text when the piece last rendered (memoized)
  const latest = useRef({ text, parts })
  useLayoutEffect(() => {
    latest.current = { text, parts }
  }, [text, parts])
  const wholeCode = useCallback((index: number) => cutCode(latest.current.text, latest.current.parts, index), [])
  const children = []
  for (let c = 0; c * BLOCKS_PER_CHUNK < parts.length; c++) {
    const blocks = parts.slice(c * BLOCKS_PER_CHUNK, (c + 1) * BLOCKS_PER_CHUNK).map((p, i) => ({
      src: p.src,
      done: p.done || final,
      plain: !!plain || offset + p.offset >= PLAIN_TEXT_AFTER_CHARS,
      prefix: p.prefix,
      continued: !!parts[c * BLOCKS_PER_CHUNK + i + 1]?.prefix,
    }))
    children.push(<MarkdownChunk key={c} blocks={blocks} first={c * BLOCKS_PER_CHUNK} wholeCode={wholeCode} />)
  }
  return <div className="md">{children}</div>
}
