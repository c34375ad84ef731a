// Subscribes to a run's pi events and produces `block` stream events (partial replies) with a BlockChunker,
// plus reasoning blocks when reasoning is `on`. The live `thinking` stream (reasoning `stream`) is not
// produced here: the run bridge emits it from the same deltas.
import type { AgentEvent as PiEvent } from '@earendil-works/pi-agent-core'
import type { BlockData } from '../../../shared/events'
import { BlockChunker, type BlockBreak } from './chunker'
import type { ReasoningMode } from './reasoning'

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
  private thinking = new Map<number, string>()
  private sawText = false

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
        }
        return
      case 'message_update':
        return this.update(event.assistantMessageEvent as Ame)
      case 'tool_execution_start':
        this.chunker.flushBeforeTool()
        return
      case 'message_end': {
        const m = event.message as { role: string; content?: Array<{ type: string; text?: string }> }
        if (m.role !== 'assistant') return
        if (!this.sawText && Array.isArray(m.content)) {
          // providers that deliver the text only with the final message
          const text = m.content.map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('')
          if (text) this.chunker.push(text)
        }
        this.chunker.messageEnd()
        return
      }
      default:
        return
    }
  }

  private update(ame: Ame): void {
    const idx = ame.contentIndex ?? 0
    switch (ame.type) {
      case 'text_delta':
        if (!ame.delta) return
        this.sawText = true
        this.fed.set(idx, (this.fed.get(idx) ?? '') + ame.delta)
        this.chunker.push(ame.delta)
        return
      case 'text_end': {
        const fed = this.fed.get(idx) ?? ''
        if (typeof ame.content === 'string' && ame.content.length > fed.length && ame.content.startsWith(fed)) {
          this.sawText = true
          this.fed.set(idx, ame.content)
          this.chunker.push(ame.content.slice(fed.length))
        }
        this.chunker.textEnd()
        return
      }
      case 'thinking_delta':
        if (ame.delta) this.thinking.set(idx, (this.thinking.get(idx) ?? '') + ame.delta)
        return
      case 'thinking_end': {
        const streamed = this.thinking.get(idx) ?? ''
        const text = (typeof ame.content === 'string' && ame.content.length >= streamed.length ? ame.content : streamed).trim()
        this.thinking.delete(idx)
        if (this.o.reasoningMode === 'on' && text) {
          // reasoning goes out as its own block, ahead of the answer text that follows it
          this.chunker.flush()
          this.o.emitBlock({ text, isReasoning: true })
        }
        return
      }
      default:
        return
    }
  }
}
