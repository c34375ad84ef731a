// Compaction for one run (or one manual compact). The runner calls `transform` before every model request
// (pi transformContext) and `handleOverflow` when the provider rejected a request as too large.
//
// pi's transformContext changes only the request, not the agent's message list, so the controller keeps a
// *view*: the messages it summarized (by identity) are replaced by the summary message on every later
// request of the run. A compaction emits `compaction` {phase:"start"} / {phase:"end", willRetry, completed},
// runs the before/after_compaction hooks, and appends a `compaction` transcript entry whose
// `firstKeptEntryId` lets the next run rebuild the same compacted history.
import type { CompactionData } from '../../../shared/events'
import type { TranscriptEntry } from '../contracts'
import type { AgentHookContext, HookRegistry } from '../hooks'
import { CHARS_PER_TOKEN, compactionThreshold, estimateContextTokens, estimateMessageTokens, type AnyMessage } from './estimate'
import { buildCompactedMessages, isSummaryMessage, planCompaction } from './plan'
import { summarize, type CompleteFn } from './summarize'
import { ContextTooLargeError, requestLimit } from './too-large'

export type CompactionEntry = Extract<TranscriptEntry, { type: 'compaction' }>
export type CompactionReason = 'threshold' | 'overflow' | 'manual'

export interface CompactionControllerOptions {
  contextWindow: number
  reserveTokens: number
  keepRecentTurns: number
  /** one summary request with the session's model */
  complete: CompleteFn
  runId?: string
  sessionKey?: string
  /** → agent event on the `compaction` stream */
  emit?(data: CompactionData): void
  hooks?: Pick<HookRegistry, 'runObserve'>
  hookContext?: AgentHookContext
  /** append the compaction entry to the transcript */
  persist?(entry: CompactionEntry): void | Promise<void>
  /** transcript entry id of a message (for firstKeptEntryId) */
  entryIdOf?(message: AnyMessage): string | undefined
  /**
   * Called before a retry after an overflow compaction: clear the run's in-memory buffers, tool summaries
   * and messaging records so the retried request emits nothing twice.
   */
  reset?(): void
  /** summary already in force from an earlier compaction (merged into the first new summary) */
  previousSummary?: string
  /** lazy alternative to previousSummary (read only when a compaction actually happens) */
  loadPreviousSummary?(): Promise<string | undefined> | string | undefined
  /** threshold-triggered compactions allowed per run (default 3) */
  maxAutoCompactions?: number
  signal?: AbortSignal
  logger?: { warn(msg: string): void; error(msg: string): void }
  now?(): number
  newId?(): string
}

export interface CompactionOutcome<M extends AnyMessage = AnyMessage> {
  compacted: boolean
  reason?: string
  tokensBefore: number
  tokensAfter?: number
  /** the conversation to use from now on (unchanged when not compacted) */
  messages: M[]
  entry?: CompactionEntry
  summary?: string
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

export class CompactionController<M extends AnyMessage = AnyMessage> {
  /** compactions completed by this controller */
  count = 0
  /**
   * a request of this run did not fit the window and was not sent (ContextTooLargeError): because of its new
   * message alone, or of the conversation (which an overflow compaction may still shrink)
   */
  tooLarge?: 'message' | 'conversation'
  private autoCompactions = 0
  private overflowRetryUsed = false
  /** a threshold compaction of this run could not shrink it: not tried again (each try is a model call) */
  private thresholdGaveUp = false
  private readonly summarized = new WeakSet<object>()
  private summaryMessage?: M
  private previousSummary?: string
  private previousLoaded: boolean
  private busy = false

  constructor(private readonly o: CompactionControllerOptions) {
    this.previousSummary = o.previousSummary
    this.previousLoaded = o.previousSummary !== undefined || !o.loadPreviousSummary
  }

  /** Whether the one overflow retry of this run has been used. */
  get retryUsed(): boolean {
    return this.overflowRetryUsed
  }

  get compacting(): boolean {
    return this.busy
  }

  /** The run's messages with earlier compactions applied (summarized ones replaced by the summary). */
  view(messages: readonly M[]): M[] {
    if (!this.summaryMessage) return [...messages]
    let last = -1
    messages.forEach((m, i) => {
      if (this.summarized.has(m)) last = i
    })
    if (last < 0) return [...messages]
    const head = messages.slice(0, last + 1).filter((m) => !this.summarized.has(m))
    return [...head, this.summaryMessage, ...messages.slice(last + 1)]
  }

  /**
   * Before each model request: apply the view, compact when over contextWindow − reserveTokens. A request
   * that still cannot fit the window (with room for a reply) throws ContextTooLargeError instead of going out.
   */
  async transform(messages: readonly M[]): Promise<M[]> {
    let v = this.view(messages)
    let tokens = estimateContextTokens(v)
    const limit = requestLimit(this.o.contextWindow)
    const last = v[v.length - 1]
    // the system prompt and the new message are never compacted away: past the limit, no summary can help
    if (tokens > limit && last?.role === 'user' && estimateContextTokens(v.filter((m) => m.role === 'system')) + estimateMessageTokens(last) > limit) {
      this.tooLarge = 'message'
      throw new ContextTooLargeError(tokens, this.o.contextWindow)
    }
    const mayCompact = !this.busy && !this.thresholdGaveUp && this.autoCompactions < (this.o.maxAutoCompactions ?? 3)
    if (mayCompact && tokens > compactionThreshold(this.o.contextWindow, this.o.reserveTokens)) {
      const r = await this.compact(v, 'threshold', false)
      if (r.compacted) tokens = estimateContextTokens((v = r.messages))
    }
    if (tokens > limit) {
      this.tooLarge = 'conversation'
      throw new ContextTooLargeError(tokens, this.o.contextWindow, 'conversation')
    }
    return v
  }

  /**
   * The provider rejected the request as too large. Compacts once per run; `retry: true` means the caller
   * should drop the failed assistant message and continue (the next transform applies the summary).
   */
  async handleOverflow(messages: readonly M[], errorMessage?: string): Promise<{ retry: boolean; reason?: string; outcome?: CompactionOutcome<M> }> {
    if (this.overflowRetryUsed) return { retry: false, reason: 'the overflow retry of this run was already used' }
    this.overflowRetryUsed = true
    // The failed attempt's error message is not part of the conversation to compact.
    const stripped = [...messages]
    while (stripped.length && stripped[stripped.length - 1].role === 'assistant' && stripped[stripped.length - 1].stopReason === 'error') {
      stripped.pop()
    }
    const r = await this.compact(this.view(stripped), 'overflow', true)
    if (!r.compacted) {
      this.o.logger?.warn(`[compaction] overflow (${errorMessage ?? 'context too large'}) could not be compacted: ${r.reason}`)
      return { retry: false, reason: r.reason, outcome: r }
    }
    return { retry: true, outcome: r }
  }

  /** Manual compaction (sessions.compact): compacts regardless of the threshold. */
  async compactNow(messages: readonly M[], opts: { instructions?: string } = {}): Promise<CompactionOutcome<M>> {
    return this.compact(this.view(messages), 'manual', false, opts.instructions)
  }

  private async runHook(name: 'before_compaction' | 'after_compaction', event: Record<string, unknown>): Promise<void> {
    if (!this.o.hooks) return
    try {
      await this.o.hooks.runObserve(name, event as never, { ...(this.o.hookContext ?? {}), runId: this.o.runId, sessionKey: this.o.sessionKey })
    } catch (err) {
      this.o.logger?.error(`[compaction] ${name} hooks failed: ${errorText(err)}`)
    }
  }

  private emit(data: CompactionData): void {
    try {
      this.o.emit?.(data)
    } catch (err) {
      this.o.logger?.error(`[compaction] emit failed: ${errorText(err)}`)
    }
  }

  private firstKeptEntryId(v: readonly M[], cutIndex: number): string {
    if (!this.o.entryIdOf) return ''
    for (let i = cutIndex; i < v.length; i++) {
      if (v[i].role === 'system' || isSummaryMessage(v[i])) continue
      const id = this.o.entryIdOf(v[i])
      if (id) return id
    }
    return ''
  }

  private async compact(v: M[], reason: CompactionReason, willRetry: boolean, instructions?: string): Promise<CompactionOutcome<M>> {
    const tokensBefore = estimateContextTokens(v)
    if (this.busy) return { compacted: false, reason: 'a compaction is already running', tokensBefore, messages: v }
    const plan = planCompaction(v, { keepRecentTurns: this.o.keepRecentTurns })
    if (plan.toSummarize.length === 0) {
      return { compacted: false, reason: 'nothing to compact', tokensBefore, messages: v }
    }
    this.busy = true
    try {
      this.emit({ phase: 'start' })
      await this.runHook('before_compaction', {
        messageCount: v.length,
        compactingCount: plan.toSummarize.length,
        tokenCount: tokensBefore,
        messages: v,
        reason,
      })
      let summary: string
      try {
        if (!this.previousLoaded) {
          this.previousLoaded = true
          this.previousSummary = await this.o.loadPreviousSummary!()
        }
        const budget = compactionThreshold(this.o.contextWindow, this.o.reserveTokens) * CHARS_PER_TOKEN
        summary = await summarize(plan.toSummarize, {
          complete: this.o.complete,
          instructions,
          previousSummary: this.previousSummary,
          maxChars: Math.max(8_000, Math.floor(budget * 0.8)),
          signal: this.o.signal,
        })
      } catch (err) {
        const why = `summarization failed: ${errorText(err)}`
        this.o.logger?.error(`[compaction] ${why}`)
        this.emit({ phase: 'end', willRetry: false, completed: false })
        return { compacted: false, reason: why, tokensBefore, messages: v }
      }
      const next = buildCompactedMessages(v, plan, summary)
      const tokensAfter = estimateContextTokens(next)
      // a summary as long as what it replaces (a short session): compacting would only lose detail. After a
      // provider overflow the conversation is large by the provider's count, which beats this estimate.
      if (tokensAfter >= tokensBefore && reason !== 'overflow') {
        const why = `the summary would not make the conversation smaller (${tokensBefore} → ${tokensAfter} tokens)`
        this.o.logger?.warn(`[compaction] ${why}`)
        if (reason === 'threshold') this.thresholdGaveUp = true
        this.emit({ phase: 'end', willRetry: false, completed: false })
        return { compacted: false, reason: why, tokensBefore, messages: v }
      }
      for (const m of plan.toSummarize) this.summarized.add(m)
      this.summaryMessage = next.find((m) => isSummaryMessage(m) && !v.includes(m))
      this.previousSummary = undefined // merged into this summary
      const entry: CompactionEntry = {
        type: 'compaction',
        id: this.o.newId?.() ?? crypto.randomUUID(),
        timestamp: this.o.now?.() ?? Date.now(),
        ...(this.o.runId ? { runId: this.o.runId } : {}),
        summary,
        firstKeptEntryId: this.firstKeptEntryId(v, plan.cutIndex),
        tokensBefore,
        tokensAfter,
      }
      try {
        await this.o.persist?.(entry)
      } catch (err) {
        this.o.logger?.error(`[compaction] could not persist the compaction entry: ${errorText(err)}`)
      }
      this.count++
      if (reason === 'threshold') this.autoCompactions++
      if (willRetry) {
        try {
          this.o.reset?.()
        } catch (err) {
          this.o.logger?.error(`[compaction] reset before retry failed: ${errorText(err)}`)
        }
      }
      this.emit({ phase: 'end', willRetry, completed: true })
      await this.runHook('after_compaction', {
        messageCount: next.length,
        tokenCount: tokensAfter,
        compactedCount: plan.toSummarize.length,
        summary,
        reason,
      })
      return { compacted: true, tokensBefore, tokensAfter, messages: next, entry, summary }
    } finally {
      this.busy = false
    }
  }
}
