// Plugin hook registry and runners. Semantics follow OpenClaw's hook runner (reference §8.2):
// observe-only hooks run in parallel with errors logged and isolated; modifying hooks run one at a
// time in priority order (higher first) and their results are merged per hook. Every asynchronous
// handler has a time limit (default 10 s; per handler via register opts): past it, before_tool_call
// blocks (fail closed) and every other hook is skipped with an error in the log (fail open).
// Handlers run on the main thread; a call's synchronous part is stopped at its limit too (see timeout.ts). Each
// modifying handler gets its own copy of the event (event-copy.ts), taken back only when it answered in time, so one
// stopped half-way through an in-place edit leaves nothing of it behind; where a copy is never taken back (observe
// hooks, before_agent_start) one copy per call serves every handler.
import { copyPlain } from './event-copy'
import { blockedText, callWithTimeout, HookTimeoutError, readTimeout, timeSync, type TimeoutSetting } from './timeout'
import {
  consoleHookLogger,
  isHookName,
  type AgentHookContext,
  type BeforeAgentStartEvent,
  type BeforeAgentStartResult,
  type BeforeToolCallEvent,
  type BeforeToolCallResult,
  type HookContextOf,
  type HookEventOf,
  type HookLogger,
  type HookMessage,
  type HookName,
  type MessageHookContext,
  type MessageSendingEvent,
  type MessageSendingResult,
  type ObserveHookName,
  type PluginHookHandlers,
  type RegisterOptions,
  type ToolHookContext,
  type ToolResultPersistEvent,
} from './types'

interface Registration<K extends HookName = HookName> {
  hookName: K
  handler: PluginHookHandlers[K]
  priority: number
  pluginId?: string
  order: number
  timeoutMs?: number
}

export interface HookRegistryOptions {
  logger?: HookLogger
  /** limit for each async handler call unless its registration sets one (default 10 s; 0 = none) */
  timeoutMs?: TimeoutSetting
}

export interface BeforeToolCallOutcome {
  /** params to pass to the tool (the original ones when no handler changed them) */
  params: unknown
  block: boolean
  blockReason?: string
}

export interface MessageSendingOutcome {
  content: string
  cancel: boolean
}

const DEFAULT_BLOCK_REASON = 'Tool call blocked by plugin hook'

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function'
}

export class HookRegistry {
  private readonly byName = new Map<HookName, Registration[]>()
  private seq = 0
  private readonly logger: HookLogger
  private readonly timeoutMs: TimeoutSetting | undefined

  constructor(opts: HookRegistryOptions = {}) {
    this.logger = opts.logger ?? consoleHookLogger
    this.timeoutMs = opts.timeoutMs
  }

  /** Registers a handler; returns a function that removes it. Unknown hook names throw. */
  register<K extends HookName>(hookName: K, handler: PluginHookHandlers[K], opts: RegisterOptions = {}): () => void {
    if (!isHookName(hookName)) throw new Error(`unknown hook "${String(hookName)}"`)
    if (typeof handler !== 'function') throw new Error(`hook "${hookName}": handler must be a function`)
    const priority = Number.isFinite(opts.priority) ? (opts.priority as number) : 0
    const reg: Registration<K> = { hookName, handler, priority, pluginId: opts.pluginId, order: this.seq++ }
    if (typeof opts.timeoutMs === 'number' && Number.isFinite(opts.timeoutMs) && opts.timeoutMs >= 0) reg.timeoutMs = opts.timeoutMs
    const list = this.byName.get(hookName) ?? []
    list.push(reg as unknown as Registration)
    // Stable: higher priority first, then registration order.
    list.sort((a, b) => b.priority - a.priority || a.order - b.order)
    this.byName.set(hookName, list)
    return () => {
      const cur = this.byName.get(hookName)
      if (!cur) return
      const i = cur.indexOf(reg as unknown as Registration)
      if (i >= 0) cur.splice(i, 1)
    }
  }

  /** Removes every handler a plugin registered (used when its register() fails half-way). */
  unregisterPlugin(pluginId: string): number {
    let removed = 0
    for (const [name, list] of this.byName) {
      const kept = list.filter((r) => r.pluginId !== pluginId)
      removed += list.length - kept.length
      this.byName.set(name, kept)
    }
    return removed
  }

  has(hookName: HookName): boolean {
    return (this.byName.get(hookName)?.length ?? 0) > 0
  }

  count(hookName?: HookName): number {
    if (hookName) return this.byName.get(hookName)?.length ?? 0
    let n = 0
    for (const l of this.byName.values()) n += l.length
    return n
  }

  private handlers<K extends HookName>(hookName: K): Registration<K>[] {
    // Snapshot so a handler that (un)registers does not disturb the current pass.
    return [...((this.byName.get(hookName) ?? []) as unknown as Registration<K>[])]
  }

  private who(reg: Registration): string {
    return reg.pluginId ? `plugin "${reg.pluginId}"` : 'anonymous handler'
  }

  /** One handler call under its time limit (HookTimeoutError past it; a long synchronous stretch is logged). */
  private call<K extends HookName>(reg: Registration<K>, event: unknown, ctx: unknown): Promise<unknown> {
    const ms = this.limitOf(reg)
    const hook = `${reg.hookName} handler of`
    const who = this.who(reg)
    return callWithTimeout(() => (reg.handler as (e: unknown, c: unknown) => unknown)(event, ctx), ms, hook, who, (took) =>
      this.logger.warn(`[hooks] ${blockedText(hook, who, took, ms)}`),
    )
  }

  private limitOf(reg: Registration): number {
    return reg.timeoutMs ?? readTimeout(this.timeoutMs)
  }

  private failed(hookName: HookName, reg: Registration, err: unknown, outcome: string): void {
    const what = err instanceof HookTimeoutError ? `timed out after ${err.timeoutMs} ms` : `failed: ${errorText(err)}`
    this.logger.error(`[hooks] ${hookName} handler of ${this.who(reg)} ${what}; ${outcome}`)
  }

  // ---------------------------------------------------------------- observe-only

  /** Runs every handler in parallel; results are ignored, errors are logged and never propagate. */
  async runObserve<K extends ObserveHookName>(hookName: K, event: HookEventOf<K>, ctx: HookContextOf<K>): Promise<void> {
    const regs = this.handlers(hookName)
    if (regs.length === 0) return
    // observe-only: whatever they edit stays in the copy, never taken back — so one copy for them all (an agent_end's
    // history is copied once per call, not once per handler; they shared the runtime's own event before copies)
    const shown = copyPlain(event)
    await Promise.all(
      regs.map(async (reg) => {
        try {
          await this.call(reg, shown, ctx)
        } catch (err) {
          this.failed(hookName, reg, err, 'skipped')
        }
      }),
    )
  }

  // ---------------------------------------------------------------- modifying

  /**
   * before_agent_start: the first defined systemPrompt (by priority) wins; prependContext values are
   * concatenated in priority order. A throwing handler is logged and skipped (fail-open).
   */
  async runBeforeAgentStart(event: BeforeAgentStartEvent, ctx: AgentHookContext): Promise<BeforeAgentStartResult> {
    let systemPrompt: string | undefined
    const contexts: string[] = []
    const regs = this.handlers('before_agent_start')
    // the answers are the result; the history they are shown is a copy never taken back (the run's own messages stay
    // as they are) — one for them all: a long history costs ~3 ms per 1,000 messages to copy
    const shown = regs.length > 0 ? copyPlain(event) : event
    for (const reg of regs) {
      let res: BeforeAgentStartResult | void | undefined
      try {
        res = (await this.call(reg, shown, ctx)) as BeforeAgentStartResult | void | undefined
      } catch (err) {
        this.failed('before_agent_start', reg, err, 'skipped')
        continue
      }
      if (!res || typeof res !== 'object') continue
      if (systemPrompt === undefined && typeof res.systemPrompt === 'string') systemPrompt = res.systemPrompt
      if (typeof res.prependContext === 'string' && res.prependContext.length > 0) contexts.push(res.prependContext)
    }
    const out: BeforeAgentStartResult = {}
    if (systemPrompt !== undefined) out.systemPrompt = systemPrompt
    if (contexts.length > 0) out.prependContext = contexts.join('\n\n')
    return out
  }

  /**
   * before_tool_call: `block:true` is sticky and terminal (lower priorities do not run);
   * `block:false` cannot clear it; the last defined `params` wins. A handler that throws blocks the
   * call (fail closed) with a reason naming the error.
   */
  async runBeforeToolCall(event: BeforeToolCallEvent, ctx: ToolHookContext): Promise<BeforeToolCallOutcome> {
    let params = event.params
    for (const reg of this.handlers('before_tool_call')) {
      let res: BeforeToolCallResult | void | undefined
      const ev = copyPlain({ ...event, params })
      try {
        res = (await this.call(reg, ev, ctx)) as BeforeToolCallResult | void | undefined
      } catch (err) {
        const why = err instanceof HookTimeoutError ? `did not answer within ${err.timeoutMs} ms` : `failed: ${errorText(err)}`
        const reason = `Tool call blocked: before_tool_call hook of ${this.who(reg)} ${why}`
        this.logger.error(`[hooks] ${reason}`)
        return { params, block: true, blockReason: reason }
      }
      // answered in time: its copy's params (edited in place or not) go on, unless it returned others
      params = res && typeof res === 'object' && res.params !== undefined ? res.params : ev.params
      if (!res || typeof res !== 'object') continue
      if (res.block === true) {
        const blockReason =
          typeof res.blockReason === 'string' && res.blockReason.trim() ? res.blockReason : DEFAULT_BLOCK_REASON
        return { params, block: true, blockReason }
      }
    }
    return { params, block: false }
  }

  /**
   * tool_result_persist: synchronous only. Each handler's returned message replaces the one passed to
   * the next. A handler returning a Promise is ignored with a warning; a throwing one is logged and skipped.
   */
  runToolResultPersist(event: ToolResultPersistEvent, ctx: ToolHookContext): HookMessage {
    let message = event.message
    for (const reg of this.handlers('tool_result_persist')) {
      let res: unknown
      const ev = copyPlain({ ...event, message })
      try {
        const limit = this.limitOf(reg)
        res = timeSync(
          () => reg.handler(ev, ctx),
          limit,
          (took) => this.logger.warn(`[hooks] ${blockedText('tool_result_persist handler of', this.who(reg), took, limit)}`),
          `tool_result_persist handler of ${this.who(reg)}`,
        )
      } catch (err) {
        this.logger.error(`[hooks] tool_result_persist handler of ${this.who(reg)} failed: ${errorText(err)}`)
        continue
      }
      if (isThenable(res)) {
        // Swallow a later rejection so it does not surface as an unhandled rejection.
        Promise.resolve(res).catch(() => {})
        this.logger.warn(
          `[hooks] tool_result_persist handler of ${this.who(reg)} returned a Promise; ` +
            'this hook is synchronous only, so its result was ignored',
        )
        continue
      }
      // answered: its copy of the message, edited in place or not, unless it returned another
      const next = res && typeof res === 'object' ? (res as { message?: unknown }).message : undefined
      if (next && typeof next === 'object' && typeof (next as HookMessage).role === 'string') {
        message = next as HookMessage
      } else {
        if (next !== undefined) this.logger.warn(`[hooks] tool_result_persist handler of ${this.who(reg)} returned an invalid message; ignored`)
        message = ev.message
      }
    }
    return message
  }

  /**
   * message_sending: `cancel:true` is sticky and terminal; the last defined `content` wins.
   * A throwing handler is logged and skipped (fail-open: the message is still sent).
   */
  async runMessageSending(event: MessageSendingEvent, ctx: MessageHookContext): Promise<MessageSendingOutcome> {
    let content = event.content
    for (const reg of this.handlers('message_sending')) {
      let res: MessageSendingResult | void | undefined
      try {
        res = (await this.call(reg, copyPlain({ ...event, content }), ctx)) as MessageSendingResult | void | undefined
      } catch (err) {
        this.failed('message_sending', reg, err, 'skipped (the message is sent)')
        continue
      }
      if (!res || typeof res !== 'object') continue
      if (typeof res.content === 'string') content = res.content
      if (res.cancel === true) return { content, cancel: true }
    }
    return { content, cancel: false }
  }
}
