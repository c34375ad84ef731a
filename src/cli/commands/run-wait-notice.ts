// `loopdesk agent` while its run has not started: behind its session's earlier run, or every global slot taken
// (the runtime's `lane` stream). A wait the user would notice (over a second) gets one line on stderr saying what
// it waits for; a run that starts at once prints nothing. The reply on stdout is never touched.
import type { AnyEvent } from '../../shared/events'
import { laneWaitText, runWaitingOf, type RunWaiting } from '../../shared/lane-wait-text'

export const WAIT_NOTICE_AFTER_MS = 1000

export class RunWaitNotice {
  private waiting: RunWaiting | undefined
  private started = false
  private printed: string | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly stderr: (text: string) => void,
    private readonly afterMs = WAIT_NOTICE_AFTER_MS,
  ) {}

  /** The gateway has the message: the clock starts now. */
  accepted(): void {
    if (this.started || this.timer) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.print()
    }, this.afterMs)
    this.timer.unref?.()
  }

  /** Every event of the run: the `lane` stream says what it waits for, its lifecycle that it started (or ended). */
  onEvent(ev: AnyEvent): void {
    if (ev.event !== 'agent' || this.started) return
    if (ev.payload.stream === 'lifecycle') return this.close()
    if (ev.payload.stream !== 'lane') return
    const w = runWaitingOf(ev.payload.data)
    if (!w) return
    this.waiting = w
    // a second wait after the first line (its session's run ended, now every slot is taken): say that too
    if (this.printed !== undefined) this.print()
  }

  close(): void {
    this.started = true
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private print(): void {
    if (this.started) return
    // "Waiting for a free slot — …" → "waiting: for a free slot — …"
    const text = this.waiting ? laneWaitText(this.waiting).replace(/^Waiting /, '') : 'the run has not started yet (queued behind other runs)'
    if (text === this.printed) return
    this.printed = text
    this.stderr(`waiting: ${text}\n`)
  }
}
