// The text deltas of one assistant message, split into the visible reply and <think>-tagged reasoning
// (src/shared/think-tags.ts) while they stream. Used by the run bridge (assistant / thinking / reasoning streams)
// and the block streamer, so both show the same reply.
//
// Some servers open the block in the prompt template, so the model's text starts inside it and only a closing
// tag shows up. That cannot be known before the tag arrives: the first such message of a model streams its
// reasoning as text until then (the tag then takes it back: `rewrite`, and it goes to reasoning), and the model is remembered
// (per provider/model, for this process) so its later messages start inside the block.
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
  reasoningEnd(): void
}

export class ThinkTagText {
  private parser = new ThinkTagParser()
  private modelKey: string | undefined
  private fed = false
  /** the message's text started inside a block (the final split must use the same rule) */
  startedInside = false
  /** the visible text of the message so far */
  visible = ''

  constructor(private readonly sink: ThinkTagSink) {}

  /** a new assistant message of `modelKey` (provider/model) starts */
  start(modelKey?: string): void {
    this.modelKey = modelKey
    this.startedInside = startsInsideThinkBlock(modelKey)
    this.parser = new ThinkTagParser({ startInside: this.startedInside })
    this.fed = false
    this.visible = ''
    if (this.parser.reasoning) this.sink.reasoningStart()
  }

  /** the message has native reasoning (the server parses it): its text does not start inside a tag block */
  nativeReasoning(): void {
    if (this.fed || !this.parser.reasoning) return
    this.startedInside = false
    this.parser = new ThinkTagParser()
    this.sink.reasoningEnd()
  }

  push(delta: string): void {
    this.fed = true
    this.apply(this.parser.push(delta))
  }

  /** the message ended: an open block ends with it */
  end(): void {
    this.apply(this.parser.end())
  }

  private apply(parts: ThinkPart[]): void {
    for (const part of parts) {
      if (part.kind === 'text') this.visible += part.text
      else if (part.kind === 'reasoning') this.sink.reasoningDelta(part.text)
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
