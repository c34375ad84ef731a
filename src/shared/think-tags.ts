// Reasoning written inline as <think>…</think> (also <thinking>, <thought>, <antthinking>) by models served
// without a reasoning parser (llama.cpp, LM Studio, Ollama, vLLM). The runtime splits it out of the reply while
// streaming (runner/think-tag-text.ts) and stores it as `thinking` blocks; chat.history does the same for
// transcripts written before that. Rules, as OpenClaw's:
//  - an opening tag counts only with nothing but whitespace before it on its line ("use the <think> tag" in
//    prose stays text), a closing tag anywhere;
//  - tags inside code (fences, inline code spans) are text: the model is talking about them;
//  - a block still open when the text ends is reasoning to the end;
//  - a closing tag with no opener (servers whose prompt template already opened the block) makes everything
//    before it reasoning (`strayClose`; the consumer moves what it has seen).
// The parser reads each character once and holds back at most one partial tag, so it is linear in the text.

export type ThinkPart =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  /** a reasoning block starts / ends (`end()` closes one still open) */
  | { kind: 'open' }
  | { kind: 'close' }
  /** a closing tag with no opener before it: what came before it was reasoning */
  | { kind: 'strayClose' }

const TAGS = ['think', 'thinking', 'thought', 'antthinking'].flatMap((n) => [`<${n}>`, `</${n}>`])
const MAX_TAG = Math.max(...TAGS.map((t) => t.length))
/** any of TAGS, as the parser compares them (case-insensitive) */
const ANY_TAG = /<\/?(?:think|thinking|thought|antthinking)>/i

export interface ThinkTagParserOptions {
  /** the text starts inside a reasoning block (a model whose template opens it) */
  startInside?: boolean
}

export class ThinkTagParser {
  private inside: boolean
  /** a tag was seen (or the text started inside one): a later closing tag is no longer stray */
  private sawTag: boolean
  /** a partial tag ('<', '</th', …) waiting for its next characters */
  private held = ''
  /** only whitespace so far on this line (tags not counted): where an opening tag may stand */
  private lineBlank = true
  /** leading spaces of this line, -1 once something else came */
  private indent = 0
  /** a run of '`' or '~' being read, and whether it started at a line start (a fence candidate) */
  private run: { ch: string; len: number; lineStart: boolean } | undefined
  private fence: { ch: string; len: number } | undefined
  /** backtick count of the inline code span we are in, 0 outside */
  private inline = 0
  /** the whitespace right after a reasoning block (the blank line before the reply) is not shown */
  private dropWs: boolean
  private out: ThinkPart[] = []
  private tagsRead = 0

  constructor(o: ThinkTagParserOptions = {}) {
    this.inside = !!o.startInside
    this.sawTag = this.inside
    this.dropWs = this.inside
  }

  /** inside a reasoning block now */
  get reasoning(): boolean {
    return this.inside
  }

  /** a tag was read (a text started inside a block with no tag at all was not inside one after all) */
  get tagRead(): boolean {
    return this.tagsRead > 0
  }

  push(delta: string): ThinkPart[] {
    for (let i = 0; i < delta.length; i++) this.char(delta[i])
    return this.take()
  }

  /** The text is complete: a held partial tag is plain content, an open block ends here. */
  end(): ThinkPart[] {
    this.endRun()
    this.flushHeld()
    if (this.inside) {
      this.inside = false
      this.out.push({ kind: 'close' })
    }
    return this.take()
  }

  private take(): ThinkPart[] {
    const parts = this.out
    this.out = []
    return parts
  }

  private char(c: string): void {
    if (this.run && c !== this.run.ch) this.endRun()
    if (this.held) {
      const next = this.held + c
      const lower = next.toLowerCase()
      if (TAGS.includes(lower)) {
        this.held = ''
        this.tag(next, lower[1] === '/')
        return
      }
      if (next.length < MAX_TAG && TAGS.some((t) => t.startsWith(lower))) {
        this.held = next
        return
      }
      this.flushHeld()
    }
    if (c === '<' && !this.fence && !this.inline) {
      this.held = '<'
      return
    }
    if (c === '`' || c === '~') {
      if (this.run) this.run.len++
      else this.run = { ch: c, len: 1, lineStart: this.indent >= 0 && this.indent <= 3 }
    }
    this.content(c)
  }

  private tag(raw: string, closing: boolean): void {
    this.tagsRead++
    if (!closing) {
      // a mention inside a line, or an opener inside a block, is text
      if (this.inside || !this.lineBlank) return this.content(raw)
      this.inside = true
      this.sawTag = true
      this.out.push({ kind: 'open' })
      return
    }
    if (this.inside) {
      this.inside = false
      this.out.push({ kind: 'close' })
    } else if (!this.sawTag) {
      this.sawTag = true
      this.out.push({ kind: 'strayClose' })
    }
    // a further closing tag with no block open is dropped: never shown
    this.lineBlank = true
    this.dropWs = true
  }

  /** A held partial tag turned out not to be one: its characters are content. */
  private flushHeld(): void {
    const h = this.held
    this.held = ''
    if (h) this.content(h)
  }

  private content(text: string): void {
    for (const ch of text) this.track(ch)
    const kind = this.inside ? 'reasoning' : 'text'
    if (kind === 'text' && this.dropWs) {
      const kept = text.replace(/^\s+/, '')
      if (!kept) return
      this.dropWs = false
      text = kept
    }
    const last = this.out.at(-1)
    if (last && last.kind === kind) last.text += text
    else this.out.push(kind === 'text' ? { kind, text } : { kind, text })
  }

  private track(ch: string): void {
    if (ch === '\n') {
      this.lineBlank = true
      this.indent = 0
      this.inline = 0 // inline code does not run past its line here (a stray backtick cannot hide the rest)
      return
    }
    if (ch === ' ' || ch === '\t') {
      if (this.indent >= 0) this.indent++
      return
    }
    this.lineBlank = false
    this.indent = -1
  }

  /** A run of backticks or tildes ended: it may open or close a fence or an inline code span. */
  private endRun(): void {
    const r = this.run
    if (!r) return
    this.run = undefined
    if (this.fence) {
      if (r.lineStart && r.ch === this.fence.ch && r.len >= this.fence.len) this.fence = undefined
    } else if (this.inline) {
      if (r.ch === '`' && r.len === this.inline) this.inline = 0
    } else if (r.lineStart && r.len >= 3) {
      this.fence = { ch: r.ch, len: r.len }
    } else if (r.ch === '`') {
      this.inline = r.len
    }
  }
}

export interface ThinkSplit {
  /** a tag was found (when false, `text` is the input unchanged) */
  tagged: boolean
  /** the visible text */
  text: string
  /** the reasoning blocks, trimmed, empty ones left out */
  reasoning: string[]
  /** text and reasoning in the order written (adjacent text joined, whitespace-only text left out) */
  parts: Array<{ type: 'text'; text: string } | { type: 'thinking'; thinking: string }>
  /** the text started inside a block its template opened (a closing tag with no opener) */
  strayClose: boolean
}

/** Splits a complete text into visible text and reasoning. */
export function splitThinkTags(text: string, o: ThinkTagParserOptions = {}): ThinkSplit {
  // no tag anywhere (most replies, code and HTML included): nothing to split, without the per-character parser —
  // history runs this over every stored reply at each run's start and each chat.history page
  if (!o.startInside && !ANY_TAG.test(text)) return { tagged: false, text, reasoning: [], parts: text ? [{ type: 'text', text }] : [], strayClose: false }
  const p = new ThinkTagParser(o)
  const parts: ThinkSplit['parts'] = []
  let block: string | undefined = o.startInside ? '' : undefined
  let tagged = !!o.startInside
  let strayClose = false
  const endBlock = () => {
    if (block !== undefined && block.trim()) parts.push({ type: 'thinking', thinking: block.trim() })
    block = undefined
  }
  const all = [...p.push(text), ...p.end()]
  // started inside by a model's habit (runner: think-tag-text.ts) but no tag at all: this text is plain reply
  if (o.startInside && !p.tagRead) return { tagged: false, text, reasoning: [], parts: text ? [{ type: 'text', text }] : [], strayClose: false }
  for (const part of all) {
    if (part.kind === 'open') {
      tagged = true
      block = ''
    } else if (part.kind === 'close') {
      endBlock()
    } else if (part.kind === 'strayClose') {
      // everything so far was reasoning
      tagged = strayClose = true
      const before = parts.map((x) => (x.type === 'text' ? x.text : x.thinking)).join('')
      parts.length = 0
      if (before.trim()) parts.push({ type: 'thinking', thinking: before.trim() })
    } else if (part.kind === 'reasoning') {
      block = (block ?? '') + part.text
    } else {
      const last = parts.at(-1)
      if (last?.type === 'text') last.text += part.text
      else parts.push({ type: 'text', text: part.text })
    }
  }
  if (!tagged) return { tagged: false, text, reasoning: [], parts: text ? [{ type: 'text', text }] : [], strayClose: false }
  return {
    tagged: true,
    // exactly what the streaming parser showed (runner/think-tag-text.ts), so the stream and the final agree
    text: parts.map((x) => (x.type === 'text' ? x.text : '')).join(''),
    reasoning: parts.flatMap((x) => (x.type === 'thinking' ? [x.thinking] : [])),
    parts: parts.filter((x) => x.type === 'thinking' || x.text.trim()),
    strayClose,
  }
}

type Block = { type?: string; text?: unknown; [k: string]: unknown }

/**
 * A message content with its think-tagged text blocks split into `thinking` and `text` blocks (what the transcript
 * keeps, as OpenClaw promotes them), or undefined when no text block has tags. `startInside`: the message's
 * first text block starts inside a block its template opened.
 */
export function promoteThinkTags(content: unknown, o: ThinkTagParserOptions = {}): Block[] | undefined {
  if (!Array.isArray(content)) return undefined
  let changed = false
  let first = true
  const next: Block[] = []
  for (const block of content as Block[]) {
    if (!block || block.type !== 'text' || typeof block.text !== 'string') {
      next.push(block)
      continue
    }
    const split = splitThinkTags(block.text, first ? o : {})
    first = false
    if (!split.tagged) {
      next.push(block)
      continue
    }
    changed = true
    for (const part of split.parts) next.push(part.type === 'text' ? { ...block, text: part.text } : { type: 'thinking', thinking: part.thinking })
  }
  return changed ? next : undefined
}
