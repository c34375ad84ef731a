// Reasoning (model "thinking") delivery, per `reasoningLevel` / `agents.defaults.reasoningDefault`:
//   off    – reasoning is neither streamed nor shown;
//   on     – each finished reasoning block becomes a separate reply payload / block (isReasoning: true);
//   stream – reasoning streams live on the `thinking` event stream ({text: cumulative, delta}).
// Providers without native thinking may put it in <think>…</think> tags inside the text: src/shared/think-tags.ts
// separates those from the visible text (runner/think-tag-text.ts while streaming).

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
