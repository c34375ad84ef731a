// The text deltas of one assistant message, split into the visible reply and <think>-tagged reasoning
// (src/shared/think-tags.ts) while they stream. Used by the run bridge (assistant / thinking / reasoning streams)
// and the block streamer, so both show the same reply.
//
// Some servers open the block in the prompt template, so the model's text starts inside it and only a closing
// tag shows up. That cannot be known before the tag arrives: the first such message of a model streams its
// reasoning as text until then (the tag then takes it back: `rewrite`, and it goes to reasoning), and the model is remembered
// (per provider/model, for this process) so its later messages start inside the block. Such a message that
// ends with no tag at all was not reasoning after all: it is shown as the reply when it ends (held until then,
// never taken back), and the model is forgotten.
import { ThinkTagParser, type ThinkPart } from '../../../shared/think-tags'

const templateOpened = new Set<string>()

/** tests: forget the models seen opening their messages inside a block */
export function forgetTemplateOpenedModels(): void {
  templateOpened.clear()
}

/** the model's messages start inside a reasoning block (see above) */
export function startsInsideThinkBlock(modelKey: string | undefined): boolean {
  return !!modelKey && templateOpened.has(modelKey)
}

export interface ThinkTagSink {
  /** the visible text so far was reasoning: what was shown of it is to be taken back (called before its reasoning events) */
  rewrite(): void
  reasoningStart(): void
  reasoningDelta(delta: string): void
  /** `discard`: the block was not reasoning after all (its text becomes the reply): no finished block to show */
  reasoningEnd(discard?: boolean): void
}

export class ThinkTagText {
  private parser = new ThinkTagParser()
  private modelKey: string | undefined
  private fed = false
  /** the message's text started inside a block (the final split must use the same rule) */
  startedInside = false
  /** the visible text of the message so far */
  visible = ''
  /** the text of a block the message started inside, while no tag has come */
  private untagged = ''

  constructor(private readonly sink: ThinkTagSink) {}

  /** a new assistant message of `modelKey` (provider/model) starts */
  start(modelKey?: string): void {
    this.modelKey = modelKey
    this.startedInside = startsInsideThinkBlock(modelKey)
    this.parser = new ThinkTagParser({ startInside: this.startedInside })
    this.fed = false
    this.visible = ''
    this.untagged = ''
    if (this.parser.reasoning) this.sink.reasoningStart()
  }

  /**
   * The message has native reasoning (the server parses it): its text does not start inside a tag block. True
   * when the block opened for it at the start is to be taken as that native block (it stays open).
   */
  nativeReasoning(): boolean {
    if (this.fed || !this.startedInside) return false
    this.startedInside = false
    this.parser = new ThinkTagParser()
    return true
  }

  push(delta: string): void {
    this.fed = true
    this.apply(this.parser.push(delta))
  }

  /** the text ended (the message, or before a tool call): an open block ends with it */
  end(): void {
    const parts = this.parser.end()
    if (!this.startedInside || this.parser.tagRead) return this.apply(parts)
    // started inside, yet no tag came: plain reply after all
    for (const part of parts) if (part.kind === 'reasoning') this.untagged += part.text
    if (this.modelKey) templateOpened.delete(this.modelKey)
    this.startedInside = false
    this.visible += this.untagged
    this.untagged = ''
    this.sink.reasoningEnd(true)
  }

  private apply(parts: ThinkPart[]): void {
    for (const part of parts) {
      if (part.kind === 'text') this.visible += part.text
      else if (part.kind === 'reasoning') {
        if (this.startedInside && !this.parser.tagRead) this.untagged += part.text
        this.sink.reasoningDelta(part.text)
      }
      else if (part.kind === 'open') this.sink.reasoningStart()
      else if (part.kind === 'close') this.sink.reasoningEnd()
      else {
        // everything shown so far was reasoning
        if (this.modelKey) templateOpened.add(this.modelKey)
        const before = this.visible
        this.visible = ''
        this.sink.rewrite()
        this.sink.reasoningStart()
        if (before) this.sink.reasoningDelta(before)
        this.sink.reasoningEnd()
      }
    }
  }
}
