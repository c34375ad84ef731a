// Subscription bridge: maps pi-agent-core events of one run onto the agent event bus and the transcript,
// and collects what reply shaping and run metadata need (texts, tool summaries, errors, usage, timing).
// pi awaits listeners in order, so persisting in `message_end` puts the user message on disk before the
// model is called and every message in transcript order. A throwing listener would abort the pi run, so
// each event is handled inside try/catch.
import type { AgentEvent as PiEvent, AgentMessage } from '@earendil-works/pi-agent-core'
import { parseJsonWithRepair, type AssistantMessage, type ToolResultMessage } from '@earendil-works/pi-ai'
import type { AgentStream, AssistantData, ReasoningData, UsageTotals } from '../../../shared/events'
import type { RunTiming } from '../../../shared/methods'
import type { PayloadInput } from '../contracts'
import { addUsage, emptyUsage } from './usage'
import { isDuplicateOfSent, isSilentReply } from '../reply'
import { VisibleText } from './visible-text'
import { ThinkTagText, type MessageModel } from '../streaming/think-tag-text'
import { promoteThinkTags } from '../../../shared/think-tags'
import type { NetworkFailure } from './network-failure'
import type { SeenResponse } from './http-refusal'

export interface BridgeOptions {
  emit(stream: AgentStream, data: Record<string, unknown>): void
  /**
   * a text delta (`text` = cumulative): the bus may merge the deltas of one tick into one event
   * (EventBus.emitDelta); without it each delta is emitted as its own event
   */
  emitDelta?(stream: 'assistant' | 'thinking', text: string, delta: string): void
  /** append a completed message to the transcript */
  persist(message: AgentMessage): Promise<void>
  /** tool result → what gets persisted (cap + tool_result_persist hook) */
  persistToolResult(message: ToolResultMessage): ToolResultMessage
  sanitize(result: unknown): unknown
  toolMeta(name: string, args: unknown): string
  /** verbose inline summary of one tool call */
  formatToolSummary?(name: string, meta?: string): string
  reasoningMode: 'off' | 'on' | 'stream'
  /** the run was cancelled (pi may still report the interrupted turn as an error) */
  isAborted?(): boolean
  /** why it was cancelled (the abort's reason: 'abort', 'stop', 'steer', 'timeout', …) and the run: an aborted reply's mark */
  abortMark?(): { reason: string; runId: string }
  timing: RunTiming & { modelMs?: number }
  /** a message could not be written to the transcript (disk full, read-only): the run must not go on */
  onPersistError?(err: unknown): void
  /**
   * what the model (and the tool card) is told when it calls a tool this run does not offer, instead of pi's
   * bare "Tool X not found" — e.g. that the session is read-only
   */
  unavailableTool?(name: string): string
  /** removes credentials from provider error texts (some providers echo the key they were sent) */
  redact?(text: string): string
  /**
   * fields stored with a finished assistant message — a run note history brings back after a reload, as it
   * brings back the message's stopReason (e.g. `contextTruncated`: ollama-truncation.ts)
   */
  noteFor?(message: AssistantMessage): Record<string, unknown> | undefined
  now?: () => number
  onError(where: string, err: unknown): void
}

type ToolError = NonNullable<PayloadInput['lastToolError']>

function textBlocks(m: AssistantMessage): string {
  return m.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
}
function thinkingBlocks(m: AssistantMessage): string {
  return m.content.map((c) => (c.type === 'thinking' ? c.thinking : '')).join('')
}
function resultText(result: unknown): string {
  const content = (result as { content?: unknown })?.content
  if (!Array.isArray(content)) return typeof result === 'string' ? result : ''
  return content.map((c: { type?: string; text?: string }) => (c?.type === 'text' ? (c.text ?? '') : '')).join('\n')
}

/**
 * pi answers a call to a tool the run does not offer with "Tool X not found". Its tool result message is built
 * from this same `content` array after the event, so replacing the text in place reaches the model, the
 * transcript and the tool card alike.
 */
function explainUnavailable(event: { toolName: string; result: unknown }, explain: (name: string) => string): void {
  const content = (event.result as { content?: unknown })?.content
  if (!Array.isArray(content) || resultText(event.result) !== `Tool ${event.toolName} not found`) return
  content.splice(0, content.length, { type: 'text', text: explain(event.toolName) })
}

export class RunBridge {
  readonly assistantTexts: string[] = []
  readonly reasoningTexts: string[] = []
  readonly toolSummaries: string[] = []
  readonly messagingSent: string[] = []
  readonly messages: AgentMessage[] = []
  readonly usage: UsageTotals = emptyUsage()
  lastToolError?: ToolError
  lastAssistant?: AssistantMessage
  /** the first transcript write that failed: the run ends with a storage error, not a reply off the record */
  persistError?: unknown
  /** why the current model call's request failed on the network, if it did (the SDKs say only "Connection error") */
  networkFailure?: NetworkFailure
  /** the model request of this turn the server answered with an error status, if any */
  lastResponse?: SeenResponse
  /** base URL of the latest model request (where a bare connection error is retraced: network-diagnosis.ts) */
  modelBaseUrl?: string
  /** visible text of the assistant message being streamed */
  currentText = ''
  private currentThinking = ''
  /** a reasoning block is open (its `reasoning` start went out, its end not yet), and its text so far */
  private reasoningBlock: string | undefined
  /** the open block is the provider's own (pi thinking events), not <think> tags in the text */
  private reasoningNative = false
  /** the message's text deltas without their <think>-tagged reasoning, which goes to the reasoning streams */
  private readonly tags = new ThinkTagText({
    rewrite: () => {
      this.currentText = ''
      // listeners drop what they were shown of it before its reasoning events arrive; a replacement is not a
      // delta, so the bus does not merge it with the text it replaces
      if (this.visible.rewrite()) this.o.emit('assistant', { text: '', delta: '', replace: true } satisfies AssistantData)
    },
    reasoningStart: () => this.reasoningStarted(false),
    reasoningDelta: (delta) => this.reasoningDelta(delta),
    reasoningEnd: (discard) => this.reasoningEnded(undefined, discard),
  })
  private readonly toolArgs = new Map<string, unknown>()
  /** raw argument JSON of the tool calls of the message being streamed, by content index */
  private readonly rawArgs = new Map<number, string>()
  /** tool calls whose argument JSON did not parse → why */
  private readonly badArgs = new Map<string, string>()
  private modelStartedAt?: number
  private readonly now: () => number
  /**
   * texts the `message` tool calls of the message being written will send (their arguments are complete; the tools
   * run after the message ends): its own text repeating one is a repeat already (OpenClaw tracks pending sends too)
   */
  private readonly pendingSends: string[] = []
  /** what the assistant stream may show of the message being written (no NO_REPLY, no repeat of a sent text) */
  private readonly visible = new VisibleText(() => (this.pendingSends.length ? [...this.messagingSent, ...this.pendingSends] : this.messagingSent))

  constructor(private readonly o: BridgeOptions) {
    this.now = o.now ?? Date.now
  }

  /**
   * pi listener: never throws or rejects. pi awaits it once per event; text deltas (by far the most
   * frequent) are handled synchronously, without an async function and its promise per delta.
   */
  readonly listener = (event: PiEvent): Promise<void> | void => {
    try {
      if (event.type === 'message_update') return this.update(event.assistantMessageEvent)
      return this.handle(event).catch((err) => this.o.onError(event.type, err))
    } catch (err) {
      this.o.onError(event.type, err)
    }
  }

  /** the stream function was called: model time starts */
  modelCallStarted(): void {
    this.modelStartedAt = performance.now()
  }

  /** text sent by the `message` tool (visible at once, removed from the final payloads) */
  messageSent(text: string): void {
    this.messagingSent.push(text)
    // a "sent" silent token is nothing to show
    if (!isSilentReply(text)) this.o.emit('block', { text, source: 'message' })
  }

  private async handle(event: PiEvent): Promise<void> {
    switch (event.type) {
      case 'message_start':
        if ((event.message as { role: string }).role === 'assistant') {
          this.currentText = ''
          this.currentThinking = ''
          this.reasoningBlock = undefined
          this.rawArgs.clear()
          // the previous message's calls have run: what they sent is in messagingSent (a cancelled send is not)
          this.pendingSends.length = 0
          this.visible.reset()
          this.tags.start(event.message as MessageModel)
        }
        return
      case 'message_update':
        return this.update(event.assistantMessageEvent)
      case 'message_end':
        return this.messageEnd(event.message)
      case 'tool_execution_start':
        this.o.timing.firstToolAt ??= this.now()
        this.toolArgs.set(event.toolCallId, event.args)
        this.o.emit('tool', { phase: 'start', name: event.toolName, toolCallId: event.toolCallId, args: event.args })
        return
      case 'tool_execution_update':
        this.o.emit('tool', {
          phase: 'update',
          name: event.toolName,
          toolCallId: event.toolCallId,
          partialResult: this.o.sanitize(event.partialResult),
        })
        return
      case 'tool_execution_end': {
        if (event.isError && this.o.unavailableTool) explainUnavailable(event, this.o.unavailableTool)
        const args = this.toolArgs.get(event.toolCallId)
        this.toolArgs.delete(event.toolCallId)
        const meta = this.o.toolMeta(event.toolName, args)
        this.o.emit('tool', {
          phase: 'result',
          name: event.toolName,
          toolCallId: event.toolCallId,
          result: this.o.sanitize(event.result),
          isError: event.isError,
          meta,
        })
        this.toolSummaries.push(
          this.o.formatToolSummary ? this.o.formatToolSummary(event.toolName, meta) : meta ? `${event.toolName}: ${meta}` : event.toolName,
        )
        if (event.isError) {
          const detail = resultText(event.result).split('\n').find((l) => l.trim()) ?? 'failed'
          this.lastToolError = { toolName: event.toolName, meta: meta || undefined, error: detail.slice(0, 400) }
        } else if (this.lastToolError && this.lastToolError.toolName === event.toolName && (this.lastToolError.meta ?? '') === meta) {
          // the same action succeeded on a retry: the earlier failure is resolved
          this.lastToolError = undefined
        }
        return
      }
      default:
        return
    }
  }

  private update(ame: Extract<PiEvent, { type: 'message_update' }>['assistantMessageEvent']): void {
    // text or a tool call starting ends the reasoning block: OpenAI-compatible clients close their blocks
    // (thinking_end) only when the whole message is done
    if (this.reasoningBlock !== undefined && this.reasoningNative && (ame.type === 'text_start' || ame.type === 'text_delta' || ame.type === 'toolcall_start')) {
      this.reasoningEnded()
    }
    if (ame.type === 'text_delta' && ame.delta) {
      this.o.timing.firstDeltaAt ??= this.now()
      this.tags.push(ame.delta)
      this.showText()
    } else if (ame.type === 'toolcall_start') {
      // the text before a tool call is complete: a tag block left open ends with it
      this.tags.end()
      this.showText()
    } else if (ame.type === 'toolcall_delta' && typeof ame.delta === 'string') {
      this.rawArgs.set(ame.contentIndex, (this.rawArgs.get(ame.contentIndex) ?? '') + ame.delta)
    } else if (ame.type === 'toolcall_end') {
      const problem = jsonProblem(this.rawArgs.get(ame.contentIndex))
      if (problem) this.badArgs.set(ame.toolCall.id, problem)
      else this.pendingSend(ame.toolCall)
    } else if (ame.type === 'thinking_start') {
      if (this.tags.nativeReasoning()) this.reasoningNative = true
      this.reasoningStarted(true)
    } else if (ame.type === 'thinking_delta' && ame.delta) {
      if (this.tags.nativeReasoning()) this.reasoningNative = true
      this.reasoningStarted(true)
      this.reasoningDelta(ame.delta)
    } else if (ame.type === 'thinking_end') {
      this.reasoningEnded(typeof ame.content === 'string' ? ame.content : undefined)
    }
  }

  /**
   * A `message` call in the message being written: its text goes to the user when the tool runs. Text of this
   * message that streamed before it and repeats it is taken back now (it streamed at once: whether a call would
   * repeat it could not be known), so the send is what the user sees, once; the rest of the message is then held
   * until it ends, and it is stored as a repeat (`repeatsSent`, left out of history's text).
   */
  private pendingSend(call: { name: string; arguments: unknown }): void {
    const text = call.name === 'message' ? (call.arguments as { text?: unknown } | undefined)?.text : undefined
    if (typeof text !== 'string' || !text.trim() || isSilentReply(text)) return
    this.pendingSends.push(text.trim())
    if (!this.currentText || !isDuplicateOfSent(this.currentText, this.pendingSends)) return
    this.currentText = ''
    if (this.visible.rewrite()) this.o.emit('assistant', { text: '', delta: '', replace: true } satisfies AssistantData)
  }

  /**
   * The `reasoning` stream: the window's "Thinking…" at every level (the fact only), and at level `on` the
   * finished block's text as soon as the block ends, before the reply text streams (OpenClaw's `on` sends
   * each block as its own reply; its wire has no live form of it).
   */
  private reasoningStarted(native: boolean): void {
    if (this.reasoningBlock !== undefined) return
    this.reasoningBlock = ''
    this.reasoningNative = native
    this.o.emit('reasoning', { phase: 'start' } satisfies ReasoningData)
  }

  private reasoningDelta(delta: string): void {
    this.reasoningBlock = (this.reasoningBlock ?? '') + delta
    this.currentThinking += delta
    if (this.o.reasoningMode === 'stream') this.emitText('thinking', this.currentThinking, delta)
  }

  /** The assistant stream: the message's visible text so far (no reasoning, no NO_REPLY, no repeat of a sent text). */
  private showText(): void {
    // text that may still be template-opened reasoning is not shown yet (think-tag-text.ts)
    if (this.tags.holding) return
    this.currentText = this.tags.visible
    const out = this.visible.stream(this.currentText)
    if (out) this.emitText('assistant', out.text, out.delta)
  }

  /**
   * `content`: the provider's whole block, authoritative over the deltas when it is complete; `discard`: the block
   * was the reply after all (think-tag-text.ts), no finished block to show
   */
  private reasoningEnded(content?: string, discard = false): void {
    if (this.reasoningBlock === undefined) return
    const text = discard ? '' : (content !== undefined && content.length >= this.reasoningBlock.length ? content : this.reasoningBlock).trim()
    this.reasoningBlock = undefined
    const data: ReasoningData = this.o.reasoningMode === 'on' && text ? { phase: 'end', text } : { phase: 'end' }
    this.o.emit('reasoning', data)
  }

  private emitText(stream: 'assistant' | 'thinking', text: string, delta: string): void {
    if (this.o.emitDelta) this.o.emitDelta(stream, text, delta)
    else this.o.emit(stream, { text, delta })
  }

  private async messageEnd(message: AgentMessage): Promise<void> {
    const role = (message as { role: string }).role
    let toPersist = message
    if (role === 'assistant') {
      // a message cut off inside a reasoning block (abort, error) still leaves the block
      this.tags.end()
      this.reasoningEnded()
      this.promoteTags(message as AssistantMessage)
      let m = message as AssistantMessage
      if (m.stopReason === 'error' && this.o.isAborted?.()) {
        // pi reports a turn cut off by our abort as an error ("This operation was aborted"): record it as aborted
        m = { ...m, stopReason: 'aborted' }
        toPersist = m
      }
      if (m.errorMessage && this.o.redact) {
        // before it is shown, persisted, or turned into the run's error
        const clean = this.o.redact(m.errorMessage)
        if (clean !== m.errorMessage) {
          m = { ...m, errorMessage: clean }
          toPersist = m
        }
      }
      const mark = m.stopReason === 'aborted' ? this.o.abortMark?.() : undefined
      if (mark) {
        // OpenClaw's mark on a reply a stop cut off (its chat.abort persists partials with it)
        toPersist = { ...m, openclawAbort: { aborted: true, origin: abortOrigin(mark.reason), runId: mark.runId } } as AssistantMessage
      }
      if (this.modelStartedAt !== undefined) {
        this.o.timing.modelMs = (this.o.timing.modelMs ?? 0) + (performance.now() - this.modelStartedAt)
        this.modelStartedAt = undefined
      }
      addUsage(this.usage, m.usage)
      this.lastAssistant = m
      const text = textBlocks(m)
      const hidden = this.visible.hidden(text, m.stopReason !== 'error' && m.stopReason !== 'aborted')
      // what was held back (a possible NO_REPLY, a possible repeat of a sent text) goes out now that it is
      // neither; providers that send the text only at the end still produce one assistant event
      const rest = hidden || (m.stopReason === 'error' && !this.currentText) ? undefined : this.visible.release(text, this.currentText)
      if (rest) {
        this.o.timing.firstDeltaAt ??= this.now()
        this.o.emit('assistant', rest)
      }
      // history leaves a repeat's text out as it leaves out NO_REPLY (shared/history-row.ts)
      if (hidden === 'repeat') toPersist = { ...(toPersist as AssistantMessage), repeatsSent: true } as AssistantMessage
      const note = this.o.noteFor?.(m)
      if (note) toPersist = { ...(toPersist as AssistantMessage), ...note } as AssistantMessage
      this.currentText = text || this.currentText
      if (text.trim()) this.assistantTexts.push(text)
      const thinking = thinkingBlocks(m)
      if (thinking.trim()) this.reasoningTexts.push(thinking)
    } else if (role === 'toolResult') {
      toPersist = this.o.persistToolResult(message as ToolResultMessage)
    }
    this.messages.push(toPersist)
    try {
      await this.o.persist(toPersist)
    } catch (err) {
      this.persistError ??= err
      this.o.onPersistError?.(err)
    }
  }

  /**
   * <think>-tagged reasoning in the text becomes `thinking` blocks of the message itself — in place, so pi's
   * next request of this run, the transcript and everything read from it (chat.history, the model's next turn)
   * have the reply without it, as for native reasoning (OpenClaw promotes the tags the same way). Split with
   * the rules the stream used, so the stored text is what was shown.
   */
  private promoteTags(m: AssistantMessage): void {
    const promoted = promoteThinkTags(m.content, { startInside: this.tags.startedInside })
    if (promoted) m.content = promoted as AssistantMessage['content']
  }

  /**
   * Why a tool call must not run: its argument JSON was invalid (pi completes a truncated or broken JSON
   * leniently, so the tool would run on a guess — e.g. a cut-off command or half a file). undefined = fine.
   */
  invalidToolArguments(toolCallId: string): string | undefined {
    return this.badArgs.get(toolCallId)
  }

  /** Payload input for reply shaping. */
  payloadInput(extra: { verbose: 'off' | 'on' | 'full' }): PayloadInput {
    const errorText =
      this.lastAssistant?.stopReason === 'error' ? (this.lastAssistant.errorMessage ?? 'The model request failed.') : undefined
    return {
      assistantTexts: [...this.assistantTexts],
      reasoningTexts: [...this.reasoningTexts],
      reasoningMode: this.o.reasoningMode,
      verbose: extra.verbose,
      toolSummaries: [...this.toolSummaries],
      messagingSent: [...this.messagingSent],
      lastToolError: this.lastToolError,
      errorText,
    }
  }
}

/** undefined when `raw` is absent/empty (nothing streamed) or valid JSON, else a message for the model. */
function jsonProblem(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  try {
    // pi's repair only escapes raw control characters / bad escapes inside strings (a harmless quirk);
    // it does not complete truncated JSON the way its streaming parser does
    parseJsonWithRepair(raw)
    return undefined
  } catch (err) {
    const at = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw
    return `The tool call was not run: its arguments are not valid JSON (${(err as Error).message}). Arguments received: ${at}. Send the call again with complete, valid JSON arguments.`
  }
}

/** OpenClaw's abort origins for Loopdesk's abort reasons: chat.abort / sessions.abort are `rpc`, /stop `stop-command`. */
export function abortOrigin(reason: string): string {
  if (reason === 'abort') return 'rpc'
  if (reason === 'stop') return 'stop-command'
  return reason
}
