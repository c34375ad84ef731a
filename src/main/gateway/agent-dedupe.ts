// Gateway-level idempotency for `agent` (OpenClaw §2.4): keyed by idempotencyKey, 5 min TTL, 1000 max.
// A retry while the run is in flight gets the accepted ack only; after completion it gets the cached final.
// It lives in the gateway (not per connection) so it survives reconnects.
import type { ResponseFrame } from './protocol'

export type CachedResponse = Omit<ResponseFrame, 'type' | 'id'>

interface Entry {
  ts: number
  /** set while the first request's dispatch is still deciding (so concurrent retries wait for it) */
  pending?: Promise<void>
  ack?: CachedResponse
  final?: CachedResponse
}

export class AgentDedupe {
  private entries = new Map<string, Entry>()

  constructor(private readonly ttlMs: number, private readonly max: number) {}

  /**
   * Synchronously claims a key (no await before the decision, so concurrent duplicates cannot both
   * dispatch). `existing` resolves to the cached final, else the ack — or undefined when the first
   * request was rejected (then the caller claims again).
   */
  claim(
    key: string,
    now: number,
  ):
    | { kind: 'new'; accepted(ack: CachedResponse): void; failed(): void }
    | { kind: 'existing'; response: Promise<CachedResponse | undefined> } {
    const e = this.entries.get(key)
    if (e) {
      const read = () => {
        const cur = this.entries.get(key)
        return cur?.final ?? cur?.ack
      }
      return { kind: 'existing', response: e.pending ? e.pending.then(read) : Promise.resolve(read()) }
    }
    let settle!: () => void
    const entry: Entry = { ts: now, pending: new Promise<void>((r) => (settle = r)) }
    this.entries.set(key, entry)
    this.sweep(now)
    return {
      kind: 'new',
      accepted: (ack) => {
        entry.ack = ack
        entry.pending = undefined
        settle()
      },
      failed: () => {
        // a rejected request is not cached: a retry may succeed (e.g. after fixing the session key)
        if (this.entries.get(key) === entry) this.entries.delete(key)
        entry.pending = undefined
        settle()
      },
    }
  }

  complete(key: string, final: CachedResponse, now: number) {
    const e = this.entries.get(key)
    if (!e) return
    e.final = final
    e.ts = now
    // re-insert so eviction order follows completion time
    this.entries.delete(key)
    this.entries.set(key, e)
  }

  has(key: string) {
    return this.entries.has(key)
  }

  get size() {
    return this.entries.size
  }

  /**
   * Drops expired finished entries, then the oldest finished ones above the cap. In-flight runs stay.
   * Runs on every claim (the ack path), so it stops at the first finished entry still fresh: finished
   * entries are kept in completion order (see complete), so all after it are fresher. It walks past only
   * in-flight entries and the expired ones it deletes, not the whole map.
   */
  sweep(now: number) {
    for (const [k, e] of this.entries) {
      if (!e.final) continue
      if (now - e.ts <= this.ttlMs) break
      this.entries.delete(k)
    }
    if (this.entries.size <= this.max) return
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.max) break
      if (e.final) this.entries.delete(k)
    }
  }
}
