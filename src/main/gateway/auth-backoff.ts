// Per-address backoff for connects that present a wrong token. Without it one process could try ~1,000
// tokens a second (each one a device-proof check and a log line). OpenClaw counts failed auth per client
// address too (10 in a minute → refused, `details.code: AUTH_RATE_LIMITED`), but exempts loopback; Loopdesk
// counts loopback as well, since every local user (and anything they run) can reach 127.0.0.1 — with a
// short, capped delay there: a user who has just fixed their token waits seconds at most.
//
// After `maxFailures` in `windowMs` the address is refused for `baseLockMs`; each further failure right
// after a lock (within `windowMs` of it) locks again for twice as long, up to the cap. A success, or a
// quiet window, forgets the address. The lock is checked before any credential: no token is judged while
// it holds, so a locked address learns nothing. Keys are the caller's (server.ts): an address, or a paired
// device's id for that device's own wrong tokens (it is let past its address's lock, so it needs one of its own).

export interface AuthBackoffPolicy {
  maxFailures: number
  windowMs: number
  baseLockMs: number
  maxLockMs: number
}

/** direct loopback connects: the user's own CLI and window share the address with whatever floods it */
export const LOCAL_BACKOFF: AuthBackoffPolicy = { maxFailures: 10, windowMs: 60_000, baseLockMs: 1_000, maxLockMs: 4_000 }
/** another machine, or anything behind a proxy: OpenClaw's 5-minute lockout as the cap */
export const REMOTE_BACKOFF: AuthBackoffPolicy = { maxFailures: 10, windowMs: 60_000, baseLockMs: 5_000, maxLockMs: 5 * 60_000 }

/** addresses remembered at most; the quietest are forgotten first, never a locked one */
const MAX_ENTRIES = 10_000

interface Entry {
  policy: AuthBackoffPolicy
  /** failures in the current window (before a lock) */
  failures: number
  windowStart: number
  lockedUntil: number
  /** the last lock's length; 0 before the first */
  lockMs: number
  lastFailure: number
}

export interface FailureOutcome {
  /** the first failure of a burst (the caller logs it) */
  first: boolean
  /** a lock began: its length (the caller logs the burst) */
  lockedMs?: number
  /** failures counted in this burst */
  count: number
}

export class AuthBackoff {
  private entries = new Map<string, Entry>()
  /** failures since the address's last quiet window (for the burst's log line) */
  private burst = new Map<string, number>()

  /** ms until `key` may try again; 0 when it may now */
  retryAfter(key: string, now: number): number {
    const e = this.entries.get(key)
    return e && e.lockedUntil > now ? e.lockedUntil - now : 0
  }

  failure(key: string, policy: AuthBackoffPolicy, now: number): FailureOutcome {
    let e = this.entries.get(key)
    if (e && now - Math.max(e.lastFailure, e.lockedUntil) > policy.windowMs) e = undefined // a quiet window: forgotten
    const first = !e
    if (!e) {
      e = { policy, failures: 0, windowStart: now, lockedUntil: 0, lockMs: 0, lastFailure: now }
      this.burst.set(key, 0)
      this.entries.delete(key)
      this.entries.set(key, e)
      this.evict(now)
    }
    e.policy = policy
    e.lastFailure = now
    const count = (this.burst.get(key) ?? 0) + 1
    this.burst.set(key, count)
    if (e.lockMs > 0) {
      // failing again right after a lock: lock again, longer
      return { first, count, lockedMs: this.lock(e, Math.min(e.lockMs * 2, policy.maxLockMs), now) }
    }
    if (now - e.windowStart > policy.windowMs) {
      e.windowStart = now
      e.failures = 0
    }
    e.failures++
    if (e.failures >= policy.maxFailures) return { first, count, lockedMs: this.lock(e, policy.baseLockMs, now) }
    return { first, count }
  }

  success(key: string): void {
    this.entries.delete(key)
    this.burst.delete(key)
  }

  get size(): number {
    return this.entries.size
  }

  private lock(e: Entry, ms: number, now: number): number {
    e.lockMs = ms
    e.lockedUntil = now + ms
    e.failures = 0
    return ms
  }

  private evict(now: number): void {
    if (this.entries.size <= MAX_ENTRIES) return
    for (const [k, e] of this.entries) {
      if (this.entries.size <= MAX_ENTRIES) break
      if (e.lockedUntil > now) continue
      this.entries.delete(k)
      this.burst.delete(k)
    }
  }
}
