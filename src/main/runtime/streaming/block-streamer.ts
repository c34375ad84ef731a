// Subscribes to a run's pi events and produces `block` stream events (partial replies) with a BlockChunker,
// plus reasoning blocks when reasoning is `on`. The live `thinking` stream (reasoning `stream`) is not
// produced here: the run bridge emits it from the same deltas.
import type { AgentEvent as PiEvent } from '@earendil-works/pi-agent-core'
import type { BlockData } from '../../../shared/events'
import { BlockChunker, type BlockBreak } from './chunker'
import type { ReasoningMode } from './reasoning'
import { ThinkTagText, type MessageModel } from './think-tag-text'
import { splitThinkTags } from '../../../shared/think-tags'

export interface BlockStreamerOptions {
  breakMode: BlockBreak
  reasoningMode: ReasoningMode
  minChars?: number
  maxChars?: number
  emitBlock(data: BlockData): void
  onError?(err: unknown): void
}

type Ame = { type: string; contentIndex?: number; delta?: string; content?: string }

export class BlockStreamer {
  private readonly chunker: BlockChunker
  /** text fed per content block of the current message (to add a provider's final `content` suffix) */
  private fed = new Map<number, string>()
  /** reasoning per thinking block of the current message, and whether it went out already */
  private thinking = new Map<number, { text: string; sent: boolean }>()
  private sawText = false
  /** the text without its <think>-tagged reasoning (which becomes a reasoning block, as native reasoning does) */
  private readonly tags = new ThinkTagText({
    // what was taken for text was reasoning: what is still pending is not sent (sent blocks cannot be undone)
    rewrite: () => {
      this.chunker.reset()
      this.chunked = 0
    },
    reasoningStart: () => this.thinking.set(--this.tagBlocks, { text: '', sent: false }),
    reasoningDelta: (delta) => {
      const t = this.thinking.get(this.tagBlocks)
      if (t) t.text += delta
    },
    reasoningEnd: (discard) => (discard ? this.thinking.delete(this.tagBlocks) : this.sendReasoning()),
  })
  /** tag blocks get negative keys in `thinking` (content indexes are the provider's) */
  private tagBlocks = 0
  /** how much of the visible text went to the chunker */
  private chunked = 0

  constructor(private readonly o: BlockStreamerOptions) {
    this.chunker = new BlockChunker({
      breakMode: o.breakMode,
      minChars: o.minChars,
      maxChars: o.maxChars,
      onBlock: (text) => o.emitBlock({ text }),
    })
  }

  /** blocks emitted (text only) since the last reset */
  get blocks(): number {
    return this.chunker.emitted
  }

  /** pi listener; never throws */
  readonly listener = (event: PiEvent): void => {
    try {
      this.handle(event)
    } catch (err) {
      this.o.onError?.(err)
    }
  }

  /** Drop pending text (compaction retry): nothing buffered before the retry is sent afterwards. */
  reset(): void {
    this.chunker.reset()
    this.fed.clear()
    this.thinking.clear()
    this.sawText = false
  }

  /** Send what is pending (e.g. before the run's final lifecycle event). */
  flush(): void {
    this.chunker.flush()
  }

  private handle(event: PiEvent): void {
    switch (event.type) {
      case 'message_start':
        if ((event.message as { role: string }).role === 'assistant') {
          this.fed.clear()
          this.thinking.clear()
          this.sawText = false
          this.chunked = 0
          this.tags.start(event.message as MessageModel)
        }
        return
      case 'message_update':
        return this.update(event.assistantMessageEvent as Ame)
      case 'tool_execution_start':
        this.tags.end()
        this.pushVisible()
        this.sendReasoning()
        this.chunker.flushBeforeTool()
        return
      case 'message_end': {
        const m = event.message as { role: string; content?: Array<{ type: string; text?: string }> }
        if (m.role !== 'assistant') return
        this.tags.end()
        this.pushVisible()
        this.sendReasoning()
        if (!this.sawText && Array.isArray(m.content)) {
          // providers that deliver the text only with the final message
          const split = splitThinkTags(m.content.map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join(''))
          for (const r of split.reasoning) if (this.o.reasoningMode === 'on') this.o.emitBlock({ text: r, isReasoning: true })
          if (split.text) this.chunker.push(split.text)
        }
        this.chunker.messageEnd()
        return
      }
      default:
        return
    }
  }

  /** Text deltas go through the tag splitter; what became visible goes to the chunker. */
  private pushText(delta: string): void {
    this.tags.push(delta)
    this.pushVisible()
  }

  private pushVisible(): void {
    // text that may still be template-opened reasoning is not sent yet (think-tag-text.ts)
    if (this.tags.holding) return
    const visible = this.tags.visible
    if (visible.length <= this.chunked) return
    // the answer started: reasoning streamed so far is complete and goes out ahead of it
    this.sendReasoning()
    this.chunker.push(visible.slice(this.chunked))
    this.chunked = visible.length
  }

  /** `on` mode: reasoning not yet delivered goes out as its own block (before the answer text). */
  private sendReasoning(): void {
    for (const t of this.thinking.values()) {
      if (t.sent) continue
      t.sent = true
      const text = t.text.trim()
      if (this.o.reasoningMode === 'on' && text) this.o.emitBlock({ text, isReasoning: true })
    }
  }

  private update(ame: Ame): void {
    const idx = ame.contentIndex ?? 0
    switch (ame.type) {
      case 'text_delta':
        if (!ame.delta) return
        this.sawText = true
        this.fed.set(idx, (this.fed.get(idx) ?? '') + ame.delta)
        this.pushText(ame.delta)
        return
      case 'text_end': {
        const fed = this.fed.get(idx) ?? ''
        if (typeof ame.content === 'string' && ame.content.length > fed.length && ame.content.startsWith(fed)) {
          this.sawText = true
          this.fed.set(idx, ame.content)
          this.pushText(ame.content.slice(fed.length))
        }
        this.chunker.textEnd()
        return
      }
      case 'thinking_delta': {
        if (!ame.delta) return
        // the server splits the reasoning out: the text is the reply (as the bridge takes it)
        this.tags.nativeReasoning()
        const t = this.thinking.get(idx) ?? { text: '', sent: false }
        t.text += ame.delta
        this.thinking.set(idx, t)
        return
      }
      case 'thinking_end': {
        const t = this.thinking.get(idx) ?? { text: '', sent: false }
        // the provider's final block text is authoritative when it is complete
        if (typeof ame.content === 'string' && ame.content.length >= t.text.length) t.text = ame.content
        this.thinking.set(idx, t)
        this.sendReasoning()
        return
      }
      default:
        return
    }
  }
}
