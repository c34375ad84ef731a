// Takes turns with I/O. The heavy steps of a run (setting it up: transcript, prompt, request; finishing
// it: session row, payloads, final events) run synchronously once started. When many runs reach such a
// step together, one check phase (or one I/O callback) did all of them back to back — 100+ ms in which
// no WebSocket frame was read, so an `agent` ack or an event waited that long. A step awaits `turn()`
// first: one waiter is released per macrotask, so the event loop polls I/O between two heavy steps.
export class TurnPacer {
  private readonly waiting: Array<() => void> = []
  private scheduled = false

  /** Resolves on a later macrotask, after the turns requested before it (FIFO). */
  turn(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve)
      this.schedule()
    })
  }

  /**
   * A turn only when others are waiting for one (undefined = go ahead now): for steps that are cheap
   * alone but add up when many runs do them at once (processing a model response read).
   */
  turnIfBusy(): Promise<void> | undefined {
    return this.waiting.length > 0 ? this.turn() : undefined
  }

  /** turns requested and not yet given (diagnostics, tests) */
  get pending(): number {
    return this.waiting.length
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(this.release)
  }

  private readonly release = (): void => {
    this.scheduled = false
    const next = this.waiting.shift()
    // the next turn is scheduled from inside this check phase: it runs after the next I/O poll
    if (this.waiting.length > 0) this.schedule()
    next?.()
  }
}
