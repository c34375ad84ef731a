// Block streaming: turns an assistant's streamed text into partial replies ("blocks").
//   text_end    – blocks go out as the text grows (≥ minChars, at a paragraph / line / sentence / word
//                 break, ≤ maxChars) and whatever is left is flushed when the text block ends;
//   message_end – everything is held until the assistant message ends, then sent (split over maxChars).
// A split never falls inside a ``` code fence; when a fence alone exceeds maxChars it is closed at the
// split and re-opened (same info string) in the next block. Pending text is flushed before a tool starts
// so blocks stay in order with tool output.
import { fenceAt, findFences, type FenceSpan } from './fences'

export type BlockBreak = 'text_end' | 'message_end'

export interface BlockChunkerOptions {
  breakMode: BlockBreak
  minChars?: number
  maxChars?: number
  onBlock(text: string): void
}

export const DEFAULT_BLOCK_MIN_CHARS = 800
export const DEFAULT_BLOCK_MAX_CHARS = 1200

interface Split {
  /** chunk = text[0:at] (+ closing fence) */
  at: number
  /** where the remainder starts */
  resume: number
  fence?: FenceSpan
}

const BREAKS: Array<{ re: RegExp; skip: number }> = [
  { re: /\n[ \t]*\n/g, skip: 0 }, // paragraph
  { re: /\n/g, skip: 0 }, // line
  { re: /[.!?…]["')\]]?(?=\s)/g, skip: -1 }, // sentence: split after the punctuation
  { re: /\s/g, skip: 0 }, // word
]

export class BlockChunker {
  private buf = ''
  private readonly min: number
  private readonly max: number
  /** blocks emitted since the last reset */
  emitted = 0

  constructor(private readonly o: BlockChunkerOptions) {
    this.max = Math.max(20, o.maxChars ?? DEFAULT_BLOCK_MAX_CHARS)
    this.min = Math.min(Math.max(1, o.minChars ?? DEFAULT_BLOCK_MIN_CHARS), this.max)
  }

  get pending(): string {
    return this.buf
  }

  get breakMode(): BlockBreak {
    return this.o.breakMode
  }

  /** A text delta of the assistant message. */
  push(delta: string): void {
    if (!delta) return
    this.buf += delta
    if (this.o.breakMode === 'text_end') this.drain(false)
  }

  /** A text block ended (pi `text_end`). */
  textEnd(): void {
    if (this.o.breakMode === 'text_end') this.flush()
  }

  /** The assistant message ended: nothing may stay behind. */
  messageEnd(): void {
    this.flush()
  }

  /** A tool is about to run: send what is pending so blocks stay in order. */
  flushBeforeTool(): void {
    this.flush()
  }

  /** Sends everything pending (split over maxChars). */
  flush(): void {
    this.drain(true)
    const rest = this.buf
    this.buf = ''
    this.send(rest)
  }

  /** Drops pending text without sending it (a compaction retry restarts the output). */
  reset(): void {
    this.buf = ''
    this.emitted = 0
  }

  private send(text: string): void {
    const t = text.replace(/\s+$/, '')
    if (!t.trim()) return
    this.emitted++
    this.o.onBlock(t)
  }

  /**
   * Emits blocks while the buffer is large enough. While the text is still growing and below maxChars only
   * a paragraph break is good enough (more text may bring one); at maxChars, or when `force` (the text is
   * complete), the best available break is used: paragraph, line, sentence, word, then a hard split.
   */
  private drain(force: boolean): void {
    for (;;) {
      if (force ? this.buf.length <= this.max : this.buf.length < this.min) return
      const spans = findFences(this.buf)
      const limit = Math.min(this.buf.length, this.max)
      const mustSplit = this.buf.length >= this.max
      let split = this.findBreak(spans, limit, this.min, mustSplit || force ? BREAKS.length : 1)
      if (!split && mustSplit) {
        split = this.findBreak(spans, limit, 1, BREAKS.length) ?? this.forceSplit(spans)
      }
      if (!split) return // wait for more text (or the flush)
      this.apply(split)
    }
  }

  private findBreak(spans: FenceSpan[], limit: number, minAt: number, kinds: number): Split | undefined {
    const window = this.buf.slice(0, limit + 1) // a break char right at the limit still counts
    for (const { re, skip } of BREAKS.slice(0, kinds)) {
      let best: Split | undefined
      re.lastIndex = 0
      for (let m = re.exec(window); m; m = re.exec(window)) {
        const at = skip < 0 ? m.index + m[0].length : m.index
        // after a sentence, the whitespace that follows is dropped (it would start the next block)
        const resume = skip < 0 ? at + (/[ \t]/.test(window[at] ?? '') ? 1 : 0) : m.index + m[0].length
        if (at < minAt || at > limit) continue
        if (fenceAt(spans, at)) continue
        best = { at, resume }
      }
      if (best) return best
    }
    return undefined
  }

  /** No safe break within maxChars: split inside the fence (closing/re-opening it) or hard at maxChars. */
  private forceSplit(spans: FenceSpan[]): Split {
    const fence = fenceAt(spans, this.max)
    if (fence) {
      const close = `\n${fence.marker}`
      const room = this.max - close.length
      const contentStart = this.buf.indexOf('\n', fence.start) + 1
      const nl = this.buf.lastIndexOf('\n', room)
      if (nl >= contentStart && nl > 0) return { at: nl, resume: nl + 1, fence }
      const at = Math.max(contentStart + 1, room)
      return { at, resume: at, fence }
    }
    return { at: this.max, resume: this.max }
  }

  private apply(split: Split): void {
    let chunk = this.buf.slice(0, split.at)
    let rest = this.buf.slice(split.resume)
    if (split.fence) {
      chunk = `${chunk.replace(/\n$/, '')}\n${split.fence.marker}`
      rest = `${split.fence.openLine}\n${rest}`
    } else {
      rest = rest.replace(/^[ \t]*\n+/, '')
    }
    this.buf = rest
    this.send(chunk)
  }
}
