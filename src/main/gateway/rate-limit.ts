// Control-plane write rate limit (OpenClaw §1.5): config writes are limited per device (or per connection
// for a device-less client) in a sliding window. A slot is taken when the request is admitted and given
// back when the handler refused it (validation error, conflict): nothing was written, so it is no
// "write" — a client fixing a typo is not locked out for a minute.

/**
 * Methods that rewrite the gateway's configuration. We serve config.patch and Loopdesk's provider rename (a
 * config write like it); the others are reserved names.
 */
export const CONTROL_PLANE_WRITE_METHODS: ReadonlySet<string> = new Set(['config.patch', 'loopdesk.config.renameProvider', 'config.apply', 'config.set', 'update.run'])

export type RateDecision = { ok: true; release(): void } | { ok: false; retryAfterMs: number }

export class SlidingWindowLimiter {
  private hits = new Map<string, number[]>()

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  take(key: string, now: number): RateDecision {
    const recent = (this.hits.get(key) ?? []).filter((t) => now - t < this.windowMs)
    if (recent.length >= this.max) {
      this.hits.set(key, recent)
      return { ok: false, retryAfterMs: Math.max(1, recent[0] + this.windowMs - now) }
    }
    recent.push(now)
    this.hits.set(key, recent)
    if (this.hits.size > 1000) this.prune(now)
    let released = false
    return {
      ok: true,
      release: () => {
        if (released) return
        released = true
        const list = this.hits.get(key)
        const i = list?.indexOf(now) ?? -1
        if (list && i >= 0) list.splice(i, 1)
      },
    }
  }

  private prune(now: number) {
    for (const [k, list] of this.hits) if (!list.some((t) => now - t < this.windowMs)) this.hits.delete(k)
  }
}
