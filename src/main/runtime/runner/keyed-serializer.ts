// Per-key FIFO for async work. The accept path of `agent` / `chat.send` awaits session-meta writes before
// it enqueues the run; without this, a later message whose write finished first (e.g. the earlier one
// created the session: a durable write) was enqueued, acknowledged and run before the earlier one.
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<void>>()

  /** Runs `fn` after every earlier `run` of the same key has settled (at once when there is none). */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key)
    const result = prev ? prev.then(fn) : fn()
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }

  /** keys with work pending (diagnostics, tests) */
  get size(): number {
    return this.tails.size
  }
}
