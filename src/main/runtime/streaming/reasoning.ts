// Reasoning (model "thinking") delivery, per `reasoningLevel` / `agents.defaults.reasoningDefault`:
//   off    – reasoning is neither streamed nor shown;
//   on     – each finished reasoning block becomes a separate reply payload / block (isReasoning: true);
//   stream – reasoning streams live on the `thinking` event stream ({text: cumulative, delta}).
// Providers without native thinking may put it in <think>…</think> tags inside the text; ThinkTagSplitter
// separates those from the visible text while streaming (tags may be split across deltas).

export type ReasoningMode = 'off' | 'on' | 'stream'

export interface ReasoningStreamOptions {
  mode: ReasoningMode
  /** `stream` mode: one `thinking` event */
  emitThinking?(data: { text: string; delta: string }): void
  /** `on` mode: a finished reasoning block */
  onReasoningBlock?(text: string): void
}

export class ReasoningStream {
  private current = ''
  private readonly done: string[] = []

  constructor(private readonly o: ReasoningStreamOptions) {}

  get mode(): ReasoningMode {
    return this.o.mode
  }

  /** reasoning of the message being streamed */
  get text(): string {
    return this.current
  }

  /** finished reasoning blocks (for the final payloads when mode is `on`) */
  texts(): string[] {
    return [...this.done]
  }

  /** A new assistant message starts: cumulative text restarts. */
  messageStart(): void {
    this.current = ''
  }

  delta(delta: string): void {
    if (!delta || this.o.mode === 'off') return
    this.current += delta
    if (this.o.mode === 'stream') this.o.emitThinking?.({ text: this.current, delta })
  }

  /**
   * The reasoning block ended (pi `thinking_end`, or a closing think tag). `content` is the provider's
   * full block text when it sends one (authoritative over the deltas).
   */
  end(content?: string): void {
    if (this.o.mode === 'off') return
    const text = (content && content.length >= this.current.length ? content : this.current).trim()
    this.current = ''
    if (!text) return
    this.done.push(text)
    if (this.o.mode === 'on') this.o.onReasoningBlock?.(text)
  }

  reset(): void {
    this.current = ''
    this.done.length = 0
  }
}

const OPEN_TAG = /<(think|thinking|thought|antthinking)>/i
const TAG_NAMES = ['think', 'thinking', 'thought', 'antthinking']

export interface SplitDelta {
  /** visible text */
  text: string
  /** reasoning text (inside think tags) */
  reasoning: string
  /** a think block closed in this delta */
  reasoningEnded: boolean
}

/** Separates <think>…</think> content from visible text in a stream of deltas. */
export class ThinkTagSplitter {
  private inside: string | undefined // tag name while inside a think block
  private carry = '' // a possibly partial tag at the end of the last delta

  push(delta: string): SplitDelta {
    let s = this.carry + delta
    this.carry = ''
    const out: SplitDelta = { text: '', reasoning: '', reasoningEnded: false }
    while (s.length) {
      if (this.inside) {
        const close = new RegExp(`</${this.inside}>`, 'i')
        const m = close.exec(s)
        if (m) {
          out.reasoning += s.slice(0, m.index)
          s = s.slice(m.index + m[0].length)
          this.inside = undefined
          out.reasoningEnded = true
          continue
        }
        const keep = partialTagSuffix(s, [`</${this.inside}>`])
        out.reasoning += s.slice(0, s.length - keep)
        this.carry = s.slice(s.length - keep)
        break
      }
      const m = OPEN_TAG.exec(s)
      if (m) {
        out.text += s.slice(0, m.index)
        s = s.slice(m.index + m[0].length)
        this.inside = m[1].toLowerCase()
        continue
      }
      const keep = partialTagSuffix(s, TAG_NAMES.map((t) => `<${t}>`))
      out.text += s.slice(0, s.length - keep)
      this.carry = s.slice(s.length - keep)
      break
    }
    return out
  }

  /** End of the text: whatever was held back as a possible tag is plain text (or reasoning). */
  end(): SplitDelta {
    const rest = this.carry
    this.carry = ''
    if (this.inside) {
      this.inside = undefined
      return { text: '', reasoning: rest, reasoningEnded: true }
    }
    return { text: rest, reasoning: '', reasoningEnded: false }
  }
}

/** Length of the longest suffix of `s` that is a (case-insensitive) proper prefix of one of `tags`. */
function partialTagSuffix(s: string, tags: string[]): number {
  const lower = s.toLowerCase()
  let best = 0
  for (const tag of tags) {
    for (let n = Math.min(tag.length - 1, lower.length); n > best; n--) {
      if (lower.endsWith(tag.slice(0, n))) {
        best = n
        break
      }
    }
  }
  return best
}
