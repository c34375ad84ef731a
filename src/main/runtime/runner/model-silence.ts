// A model server that accepts a request and then sends nothing (before its first token, or stalled mid-reply)
// left the run looking busy until the run timeout (10 min by default). One watch per model call sees every
// sign of life — the response headers, each network read of the body, each token pi parses — and:
//  - after `noticeAfterMs` of silence emits Loopdesk's agent stream `silence` {phase: "silent"} (once per
//    silence; {phase: "resumed"} when data comes again), so the window and `loopdesk agent` can say so;
//  - once the reply has started (a first token, or the event that opens the model's message: reply-opened.ts),
//    fails the call after `idleTimeoutMs` of silence (OpenClaw's `agents.defaults.llm.idleTimeoutSeconds`,
//    120 s). Before that only the notice: a server may queue the request, or a reasoning model think for
//    minutes before it opens its message on some APIs, and the run timeout still applies.
// Timers are armed per deadline, not per chunk: a chunk only stores its time.
import type { SilenceData } from '../../../shared/events'

export interface SilencePolicy {
  /** silence before the notice, ms; 0 = never */
  noticeAfterMs: number
  /** silence mid-reply that fails the call, ms; 0 = never */
  idleTimeoutMs: number
}

export interface SilenceHooks {
  emit(data: SilenceData): void
  /** the reply stalled past the idle timeout: the call is to fail with this error */
  stalled(error: Error): void
}

/** The error a stalled reply fails with (its message is the run's error as the user reads it). */
export class ModelStalledError extends Error {
  constructor(provider: string, idleTimeoutMs: number) {
    const secs = Math.round(idleTimeoutMs / 100) / 10
    super(
      `The model server (${provider}) stopped sending: no data for ${secs} s in the middle of its reply. ` +
        'Retry, or raise agents.defaults.llm.idleTimeoutSeconds if the model pauses that long.',
    )
    this.name = 'ModelStalledError'
  }
}

export class SilenceWatch {
  private lastAt = 0
  private _replying = false
  /** a first token (or the message's opening event) came: the reply is under way (the idle timeout applies) */
  get replying(): boolean {
    return this._replying
  }
  private noticed = false
  private active = false
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly policy: SilencePolicy,
    private readonly provider: string,
    private readonly hooks: SilenceHooks,
    private readonly now: () => number = Date.now,
  ) {}

  /** a model call starts (its request is being sent) */
  start(): void {
    this.end()
    this.active = true
    this._replying = false
    this.lastAt = this.now()
    this.arm()
  }

  /** a sign of life that is not yet the reply: headers, bytes of the body (keep-alive comments included) */
  alive(): void {
    if (!this.active) return
    this.lastAt = this.now()
    if (this.noticed) this.resume()
    else this.arm()
  }

  /** the reply is under way: a token of it (text, reasoning, tool-call arguments), or the event that opened the
   * model's message (reply-opened.ts: Anthropic's `message_start`, OpenAI's first chunk with a choice) */
  token(): void {
    if (!this.active) return
    if (!this.replying) {
      // the idle timeout starts to apply: its deadline may come before the pending one
      this._replying = true
      clearTimeout(this.timer)
      this.timer = undefined
    }
    this.alive()
  }

  /** the call is over (answered, failed or stopped): a notice still shown is withdrawn */
  end(): void {
    if (this.noticed) this.resume()
    this.active = false
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private resume(): void {
    this.noticed = false
    this.hooks.emit({ phase: 'resumed' })
    this.arm()
  }

  /** the next deadline that matters, if no timer is pending */
  private arm(): void {
    if (!this.active || this.timer) return
    const { noticeAfterMs, idleTimeoutMs } = this.policy
    const deadlines: number[] = []
    if (noticeAfterMs > 0 && !this.noticed) deadlines.push(this.lastAt + noticeAfterMs)
    if (idleTimeoutMs > 0 && this.replying) deadlines.push(this.lastAt + idleTimeoutMs)
    if (!deadlines.length) return
    this.timer = setTimeout(() => this.check(), Math.max(0, Math.min(...deadlines) - this.now()))
    this.timer.unref?.()
  }

  private check(): void {
    this.timer = undefined
    if (!this.active) return
    const silentMs = this.now() - this.lastAt
    const { noticeAfterMs, idleTimeoutMs } = this.policy
    if (this.replying && idleTimeoutMs > 0 && silentMs >= idleTimeoutMs) {
      const err = new ModelStalledError(this.provider, idleTimeoutMs)
      this.end()
      this.hooks.stalled(err)
      return
    }
    if (noticeAfterMs > 0 && !this.noticed && silentMs >= noticeAfterMs) {
      this.noticed = true
      this.hooks.emit({
        phase: 'silent',
        since: this.replying ? 'reply' : 'request',
        silentMs,
        provider: this.provider,
        ...(this.replying && idleTimeoutMs > 0 ? { idleTimeoutMs } : {}),
      })
    }
    this.arm()
  }
}
