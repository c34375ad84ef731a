// Idempotency cache (OpenClaw dedupe, reference §2.4): `agent:<key>` / `chat:<key>` → the first answer,
// kept 5 minutes after it was stored, at most 1000 entries (oldest evicted first).
export const DEDUPE_TTL_MS = 5 * 60_000
export const DEDUPE_MAX = 1000

export class IdempotencyCache<V> {
  private readonly map = new Map<string, { value: V; expiresAt: number }>()
  private readonly setListeners = new Set<(key: string) => void>()

  constructor(
    private readonly ttlMs = DEDUPE_TTL_MS,
    private readonly max = DEDUPE_MAX,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const hit = this.map.get(key)
    if (!hit) return undefined
    if (hit.expiresAt <= this.now()) {
      this.map.delete(key)
      return undefined
    }
    return hit.value
  }

  set(key: string, value: V): void {
    this.map.delete(key)
    this.map.set(key, { value, expiresAt: this.now() + this.ttlMs })
    this.prune()
    for (const l of this.setListeners) {
      try {
        l(key)
      } catch (err) {
        // a listener's failure must not fail the call that stored the key (it is stored)
        console.warn(`[runtime] idempotency key listener failed: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
  }

  /** the keys held now (not expired) */
  keys(): string[] {
    const now = this.now()
    return [...this.map].filter(([, v]) => v.expiresAt > now).map(([k]) => k)
  }

  /** told each key stored (the gateway's socket thread learns keys no event names); returns unsubscribe */
  onSet(listener: (key: string) => void): () => void {
    this.setListeners.add(listener)
    return () => this.setListeners.delete(listener)
  }

  delete(key: string): void {
    this.map.delete(key)
  }

  get size(): number {
    return this.map.size
  }

  private prune(): void {
    const now = this.now()
    for (const [k, v] of this.map) {
      if (v.expiresAt > now && this.map.size <= this.max) break
      this.map.delete(k)
    }
  }
}
