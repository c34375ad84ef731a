// The text deltas of one assistant message, split into the visible reply and <think>-tagged reasoning
// (src/shared/think-tags.ts) while they stream. Used by the run bridge (assistant / thinking / reasoning streams)
// and the block streamer, so both show the same reply.
//
// Some servers open the block in the prompt template, so the model's text starts inside it and only a closing
// tag shows up. That cannot be known before the tag arrives. A model seen doing it is remembered (per
// provider/model, for this process) so its later messages start inside the block; such a message that ends with
// no tag at all was not reasoning after all: it is shown as the reply when it ends (held until then, never taken
// back), and the model is forgotten.
// Before a model has been seen either way, its first message is undecided. A model never seen doing it streams at
// once (no delay for the many models that never do); if a closing tag comes, what was shown is taken back
// (`rewrite`) and goes to reasoning. A model whose id names a reasoning family known to be served this way
// (`reasoningFamily`: qwen3, QwQ, DeepSeek-R1, …) over an OpenAI-compatible API has its text held instead, until it
// is decided: a closing tag (reasoning), an opening tag or native reasoning (the server splits it), HOLD_CHARS of
// text with no tag, a tool call or the message's end (reply). A model decided as answering plainly is not held again.
import { ThinkTagParser, type ThinkPart } from '../../../shared/think-tags'

const templateOpened = new Set<string>()
/** models of a reasoning family seen answering with no template-opened block: not held again */
const plainModels = new Set<string>()

/**
 * How much text a message of a reasoning-family model may hold back while undecided: past it, it is taken as the
 * reply (a closing tag after that still takes it back). Template-opened reasoning is usually longer; this bounds the
 * wait for a reply that is not reasoning (~10 s at local speeds) and happens once per model.
 */
export const HOLD_CHARS = 2000

/**
 * Model ids of families whose chat templates open `<think>` themselves (the model writes only `</think>`) when
 * served without a reasoning parser: QwQ, DeepSeek-R1 and its distills, qwen3 (not its instruct/coder builds,
 * which do not think), and ids that say think/reason (phi-4-reasoning, OpenThinker, *-thinking), EXAONE Deep, GLM-Z1.
 */
export function reasoningFamily(modelId: string): boolean {
  const id = modelId.toLowerCase()
  if (/qwq|(?:^|[^a-z0-9])r1(?:[^a-z0-9]|$)|think|reason|exaone-deep|glm-z1/.test(id)) return true
  return id.includes('qwen3') && !/instruct|coder/.test(id)
}

/** tests: forget the models seen opening their messages inside a block, or answering plainly */
export function forgetTemplateOpenedModels(): void {
  templateOpened.clear()
  plainModels.clear()
}

/** the model's messages start inside a reasoning block (see above) */
export function startsInsideThinkBlock(modelKey: string | undefined): boolean {
  return !!modelKey && templateOpened.has(modelKey)
}

/** The model of an assistant message, as pi's message_start carries it. */
export interface MessageModel {
  provider?: string
  model?: string
  api?: string
}

const keyOf = (m: MessageModel | undefined) => (m?.provider && m.model ? `${m.provider}/${m.model}` : undefined)

/** a message of this model is held while it may be template-opened reasoning (see above) */
function mayBeTemplateOpened(m: MessageModel | undefined): boolean {
  const key = keyOf(m)
  // native APIs (Anthropic, Google, OpenAI Responses) carry reasoning apart from the text
  return !!key && m!.api === 'openai-completions' && !plainModels.has(key) && reasoningFamily(m!.model!)
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
  /** the visible text is held: it may yet turn out to be template-opened reasoning (see above) */
  private undecided = false

  constructor(private readonly sink: ThinkTagSink) {}

  /** a new assistant message of `model` starts */
  start(model?: MessageModel): void {
    const modelKey = keyOf(model)
    this.modelKey = modelKey
    this.startedInside = startsInsideThinkBlock(modelKey)
    this.undecided = !this.startedInside && mayBeTemplateOpened(model)
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
    // the server splits the reasoning out: the text that follows is the reply
    this.undecided = false
    if (this.fed || !this.startedInside) return false
    this.startedInside = false
    this.parser = new ThinkTagParser()
    return true
  }

  /** `visible` is not to be shown yet: it may still turn out to be reasoning (see above) */
  get holding(): boolean {
    return this.undecided
  }

  push(delta: string): void {
    this.fed = true
    this.apply(this.parser.push(delta))
    if (this.undecided && this.visible.length >= HOLD_CHARS) this.decide()
  }

  /** the held text is what it looks like now: a model that answered plainly is not held again */
  private decide(): void {
    this.undecided = false
    // a message with no text (a tool call straight away) tells nothing about the model
    if (this.fed && this.modelKey && !templateOpened.has(this.modelKey)) plainModels.add(this.modelKey)
  }

  /** the text ended (the message, or before a tool call): an open block ends with it */
  end(): void {
    const parts = this.parser.end()
    if (!this.startedInside || this.parser.tagRead) {
      this.apply(parts)
      if (this.undecided) this.decide()
      return
    }
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
      else if (part.kind === 'open') {
        // the model writes its own tags: the parser splits them as they come
        if (this.undecided) this.decide()
        this.sink.reasoningStart()
      }
      else if (part.kind === 'close') this.sink.reasoningEnd()
      else {
        // everything shown (or held) so far was reasoning
        this.undecided = false
        if (this.modelKey) {
          templateOpened.add(this.modelKey)
          plainModels.delete(this.modelKey)
        }
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
