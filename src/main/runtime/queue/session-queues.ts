// Queue modes for a chat message that arrives while its session has an active run (reference §6.2):
//   steer     – inject into the active run before its next model call (falls back to followup)
//   followup  – run after the active run, one message per run, in order
//   collect   – after a debounce quiet window, coalesce every waiting message into ONE follow-up turn
//   interrupt – abort the active run, wait for it to end, then run the new message first
// A per-session cap with a drop policy bounds the backlog. Every message that went through the queue
// stays observable (status + runId) for the UI; changes are reported through onChange.
import type { QueueItem, QueueMode } from '../../../shared/events'
import { buildCollectPrompt, buildOverflowNotice, summarizeLine, withOverflow } from './prompt'
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from './settings'

export interface QueueDeps {
  /** a run is active (or starting) for the session */
  isActive(sessionKey: string): boolean
  /**
   * inject text into the active run; false when the run cannot take it (not streaming, compacting, …).
   * Returning the run's id records which run took the message.
   */
  steer(sessionKey: string, text: string): boolean | { runId: string }
  /** abort the active run (resolves once the abort was requested) */
  abort(sessionKey: string): Promise<void>
  /** start a run for the given prompt; `itemIds` are the queue items it consumes */
  startRun(sessionKey: string, text: string, itemIds: string[], metas: unknown[]): Promise<{ runId: string }>
  /** resolves when the session has no active run */
  waitIdle(sessionKey: string): Promise<void>
  /** resolved settings for the session (session override → config → defaults) */
  settings?(sessionKey: string): QueueSettings
  onChange?(sessionKey: string, items: QueueItem[]): void
  /** an item left the queue without starting a run (removed, dropped, cleared, failed to start) */
  onDiscard?(sessionKey: string, item: QueueItem): void
  now?(): number
  setTimer?(fn: () => void, ms: number): unknown
  clearTimer?(handle: unknown): void
  logger?: { warn(msg: string): void; error(msg: string): void }
  newId?(): string
  /** finished items kept per session for the UI (default 50) */
  historyLimit?: number
}

export type SubmitResult =
  | { status: 'started'; runId: string; itemId?: string }
  | { status: 'steered'; itemId: string }
  | { status: 'queued'; itemId: string; mode: QueueMode }
  | { status: 'dropped'; itemId: string; reason: string }
  | { status: 'failed'; itemId?: string; error: string }

export interface SubmitOptions {
  /** inline mode (chat.send queueMode); overrides the session/config mode */
  mode?: QueueMode
  /** opaque data handed back to startRun (e.g. idempotency key, thinking level) */
  meta?: unknown
  /** the run id this message will get when it starts on its own (shown while queued) */
  runId?: string
}

interface Entry {
  item: QueueItem
  meta?: unknown
  /** handed to startRun already (no longer removable) */
  inFlight: boolean
  /** resolves the submit() of an interrupt message once it started (or failed/was removed) */
  settle?: (r: SubmitResult) => void
  seq: number
}

interface SessionState {
  entries: Entry[]
  lastEnqueueAt: number
  overflowDropped: number
  overflowSummaries: string[]
  draining: boolean
  /** set by hold() until the next run starts: a steered message the stopped run never took is held too */
  holding?: boolean
  sleepTimer?: unknown
  wakeSleep?: () => void
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

let idCounter = 0
const defaultId = () => `q_${Date.now().toString(36)}_${(idCounter++).toString(36)}`

export class SessionQueues {
  private readonly sessions = new Map<string, SessionState>()
  private seq = 0
  private disposed = false

  constructor(private readonly deps: QueueDeps) {}

  // ---------------------------------------------------------------- public API

  /**
   * Entry point for a chat message. Idle session with nothing waiting → starts a run now. Otherwise the
   * message is steered, queued or (interrupt) run after aborting the active run.
   */
  async submit(sessionKey: string, text: string, opts: SubmitOptions = {}): Promise<SubmitResult> {
    if (this.disposed) return { status: 'failed', error: 'queue is shut down' }
    const settings = this.settings(sessionKey)
    const mode = opts.mode ?? settings.mode
    const s = this.state(sessionKey)
    const active = this.safeIsActive(sessionKey)

    // held messages wait for the user, not for this one: an idle session starts it
    if (!active && this.runnable(s).length === 0 && !s.draining) {
      try {
        const overflow = this.takeOverflow(s)
        s.holding = false
        const { runId } = await this.deps.startRun(sessionKey, withOverflow(text, overflow), [], [opts.meta])
        return { status: 'started', runId }
      } catch (err) {
        return { status: 'failed', error: errorText(err) }
      }
    }

    if (active && mode === 'steer') {
      let steered: boolean | { runId: string } = false
      try {
        steered = this.deps.steer(sessionKey, text)
      } catch (err) {
        this.log('warn', `steer into ${sessionKey} failed: ${errorText(err)}`)
      }
      if (steered) {
        const e = this.newEntry(sessionKey, text, mode, opts.meta, 'steered')
        if (typeof steered === 'object' && steered.runId) e.item.runId = steered.runId
        s.entries.push(e)
        this.trimHistory(s)
        this.changed(sessionKey)
        return { status: 'steered', itemId: e.item.id }
      }
    }

    if (mode === 'interrupt') return this.interrupt(sessionKey, s, text, opts.meta, opts.runId)

    // followup / collect / steer fallback
    const e = this.newEntry(sessionKey, text, mode, opts.meta, 'queued', opts.runId)
    if (mode === 'steer') e.item.detail = active ? 'run could not take steering; queued as follow-up' : 'queued behind waiting messages'
    const admitted = this.admit(s, e, settings)
    s.lastEnqueueAt = this.now()
    this.trimHistory(s)
    this.changed(sessionKey)
    if (!admitted) {
      this.discard(e)
      return { status: 'dropped', itemId: e.item.id, reason: e.item.detail ?? 'queue full' }
    }
    void this.drain(sessionKey)
    return { status: 'queued', itemId: e.item.id, mode }
  }

  /** Everything the UI should see for the session: finished items (recent) and waiting ones, oldest first. */
  list(sessionKey: string): QueueItem[] {
    const s = this.sessions.get(sessionKey)
    if (!s) return []
    return s.entries.map((e) => ({ ...e.item }))
  }

  /** The newest item whose submit() meta matches (callers tag their messages through meta), or undefined. */
  findByMeta(sessionKey: string, match: (meta: unknown) => boolean): QueueItem | undefined {
    const entries = this.sessions.get(sessionKey)?.entries ?? []
    for (let i = entries.length - 1; i >= 0; i--) if (match(entries[i].meta)) return { ...entries[i].item }
    return undefined
  }

  /** The submit() meta of an item, or undefined. */
  metaOf(sessionKey: string, id: string): unknown {
    return this.sessions.get(sessionKey)?.entries.find((e) => e.item.id === id)?.meta
  }

  /** Every item's submit() meta, waiting or not (a provider rename rewrites the models they carry). */
  forEachMeta(fn: (meta: unknown) => void): void {
    for (const s of this.sessions.values()) for (const e of s.entries) if (e.meta !== undefined) fn(e.meta)
  }

  /** The sessions that have a queue (waiting or recently finished items). */
  sessionKeys(): string[] {
    return [...this.sessions.keys()]
  }

  /** Number of messages still waiting (not yet started). */
  pendingCount(sessionKey: string): number {
    const s = this.sessions.get(sessionKey)
    return s ? this.pending(s).length : 0
  }

  /**
   * Holds every waiting message: it stays queued (listed, removable) but does not start when the active run
   * ends — the user stopped that run and decides (release or remove). Returns the ids held.
   */
  hold(sessionKey: string): string[] {
    const s = this.sessions.get(sessionKey)
    if (!s) return []
    const held = this.runnable(s)
    for (const e of held) e.item.held = true
    s.holding = true
    if (held.length > 0) this.changed(sessionKey)
    return held.map((e) => e.item.id)
  }

  /**
   * Puts back a message the user had paused before the runtime stopped (crash or restart): queued and held, as
   * it was, so it waits for their release or removal and the idle session does not start it. Returns its id.
   */
  restoreHeld(sessionKey: string, text: string, opts: { meta?: unknown; runId?: string; enqueuedAt?: number } = {}): string {
    const s = this.state(sessionKey)
    const e = this.newEntry(sessionKey, text, 'followup', opts.meta, 'queued', opts.runId)
    e.item.held = true
    if (opts.enqueuedAt !== undefined) e.item.enqueuedAt = opts.enqueuedAt
    s.entries.push(e)
    this.changed(sessionKey)
    return e.item.id
  }

  /** Releases held messages (these ids, else all): they run as their turn comes. Returns the ids released. */
  release(sessionKey: string, ids?: string[]): string[] {
    const s = this.sessions.get(sessionKey)
    if (!s) return []
    s.holding = false
    const released = this.pending(s).filter((e) => e.item.held && (!ids || ids.includes(e.item.id)))
    for (const e of released) delete e.item.held
    if (released.length === 0) return []
    this.changed(sessionKey)
    void this.drain(sessionKey)
    return released.map((e) => e.item.id)
  }

  /** Removes a waiting message. False when unknown or already started/steered. */
  remove(sessionKey: string, id: string): boolean {
    const s = this.sessions.get(sessionKey)
    const e = s?.entries.find((x) => x.item.id === id)
    if (!s || !e || e.item.status !== 'queued' || e.inFlight) return false
    e.item.status = 'removed'
    e.item.detail = 'removed by user'
    e.settle?.({ status: 'dropped', itemId: id, reason: 'removed' })
    this.discard(e)
    this.trimHistory(s)
    this.changed(sessionKey)
    return true
  }

  /**
   * Puts waiting messages in the order of `ids`: they take the places the named ones held, in that order;
   * waiting messages not named, and ids no longer waiting (started or removed meanwhile), stay as they are.
   * The drain reads this order: the next follow-up, and a collect batch's messages, follow it. Returns the
   * waiting ids in their order now.
   */
  reorder(sessionKey: string, ids: string[]): string[] {
    const s = this.sessions.get(sessionKey)
    if (!s) return []
    const waiting = this.pending(s)
    const named: Entry[] = []
    for (const id of ids) {
      const e = waiting.find((x) => x.item.id === id)
      if (e && !named.includes(e)) named.push(e)
    }
    const slots = named.map((e) => s.entries.indexOf(e)).sort((a, b) => a - b)
    let moved = false
    slots.forEach((slot, i) => {
      if (s.entries[slot] !== named[i]) moved = true
      s.entries[slot] = named[i]
    })
    if (moved) this.changed(sessionKey)
    return this.pending(s).map((e) => e.item.id)
  }

  /**
   * A steered message did not make it into its run (the run ended before picking it up): queue it again
   * as a follow-up so it is not lost, under `runId` (the run it will start as; it named the run it was steered
   * into). Held when the user stopped that run (hold() since). False when the item is unknown or was not steered.
   */
  requeueSteered(sessionKey: string, id: string, runId?: string): boolean {
    const s = this.sessions.get(sessionKey)
    const e = s?.entries.find((x) => x.item.id === id)
    if (!s || !e || e.item.status !== 'steered') return false
    e.item.status = 'queued'
    e.item.mode = 'followup'
    e.item.detail = 'the run ended before taking the steered message; queued as follow-up'
    if (runId) e.item.runId = runId
    if (s.holding) e.item.held = true
    // keep enqueue order: move it behind items already waiting
    s.entries.splice(s.entries.indexOf(e), 1)
    s.entries.push(e)
    this.changed(sessionKey)
    void this.drain(sessionKey)
    return true
  }

  /** Drops every waiting message (e.g. /stop, reset, delete). Returns the removed items. */
  clear(sessionKey: string, reason: string): QueueItem[] {
    const s = this.sessions.get(sessionKey)
    if (!s) return []
    const removed: QueueItem[] = []
    for (const e of this.pending(s)) {
      e.item.status = 'removed'
      e.item.detail = reason
      e.settle?.({ status: 'dropped', itemId: e.item.id, reason })
      this.discard(e)
      removed.push({ ...e.item })
    }
    s.overflowDropped = 0
    s.overflowSummaries = []
    this.wake(s)
    this.trimHistory(s)
    if (removed.length > 0) this.changed(sessionKey)
    return removed
  }

  /** Forgets a session entirely (session deleted). */
  forget(sessionKey: string): void {
    this.clear(sessionKey, 'session deleted')
    this.sessions.delete(sessionKey)
  }

  dispose(): void {
    this.disposed = true
    for (const [key] of this.sessions) this.clear(key, 'shutting down')
  }

  // ---------------------------------------------------------------- internals

  private settings(sessionKey: string): QueueSettings {
    try {
      return this.deps.settings?.(sessionKey) ?? DEFAULT_QUEUE_SETTINGS
    } catch (err) {
      this.log('error', `queue settings for ${sessionKey} failed: ${errorText(err)}`)
      return DEFAULT_QUEUE_SETTINGS
    }
  }

  private state(sessionKey: string): SessionState {
    let s = this.sessions.get(sessionKey)
    if (!s) {
      s = { entries: [], lastEnqueueAt: 0, overflowDropped: 0, overflowSummaries: [], draining: false }
      this.sessions.set(sessionKey, s)
    }
    return s
  }

  private pending(s: SessionState): Entry[] {
    return s.entries.filter((e) => e.item.status === 'queued' && !e.inFlight)
  }

  /** waiting and not held: what the drain may start */
  private runnable(s: SessionState): Entry[] {
    return this.pending(s).filter((e) => !e.item.held)
  }

  private newEntry(sessionKey: string, text: string, mode: QueueMode, meta: unknown, status: QueueItem['status'], runId?: string): Entry {
    const id = this.deps.newId?.() ?? defaultId()
    const item: QueueItem = { id, sessionKey, mode, text, enqueuedAt: this.now(), status }
    if (runId) item.runId = runId
    return { item, meta, inFlight: false, seq: this.seq++ }
  }

  private discard(e: Entry): void {
    if (!this.deps.onDiscard) return
    try {
      this.deps.onDiscard(e.item.sessionKey, { ...e.item })
    } catch (err) {
      this.log('error', `queue onDiscard listener failed: ${errorText(err)}`)
    }
  }

  /** Applies cap + drop policy. Returns false when the new entry itself was rejected. */
  private admit(s: SessionState, e: Entry, settings: QueueSettings): boolean {
    const waiting = this.pending(s)
    if (waiting.length >= settings.cap) {
      if (settings.drop === 'new') {
        e.item.status = 'dropped'
        e.item.detail = `queue full (cap ${settings.cap}); newest message rejected`
        s.entries.push(e)
        return false
      }
      // Drop the oldest until there is room for the new one.
      const excess = waiting.length - settings.cap + 1
      for (const old of waiting.slice(0, excess)) {
        old.item.status = 'dropped'
        old.item.detail = `queue full (cap ${settings.cap}); oldest message dropped`
        old.settle?.({ status: 'dropped', itemId: old.item.id, reason: old.item.detail })
        this.discard(old)
        if (settings.drop === 'summarize') {
          s.overflowDropped++
          s.overflowSummaries.push(summarizeLine(old.item.text))
          if (s.overflowSummaries.length > settings.cap) s.overflowSummaries.splice(0, s.overflowSummaries.length - settings.cap)
        }
      }
    }
    s.entries.push(e)
    return true
  }

  private takeOverflow(s: SessionState): string | undefined {
    if (s.overflowDropped === 0) return undefined
    const notice = buildOverflowNotice(s.overflowDropped, s.overflowSummaries)
    s.overflowDropped = 0
    s.overflowSummaries = []
    return notice
  }

  private async interrupt(sessionKey: string, s: SessionState, text: string, meta: unknown, runId?: string): Promise<SubmitResult> {
    const e = this.newEntry(sessionKey, text, 'interrupt', meta, 'queued', runId)
    e.item.detail = 'aborting the active run'
    const done = new Promise<SubmitResult>((res) => (e.settle = res))
    // Goes ahead of anything already waiting.
    const firstPending = s.entries.findIndex((x) => x.item.status === 'queued' && !x.inFlight)
    if (firstPending >= 0) s.entries.splice(firstPending, 0, e)
    else s.entries.push(e)
    this.trimHistory(s)
    this.changed(sessionKey)
    if (this.safeIsActive(sessionKey)) {
      try {
        await this.deps.abort(sessionKey)
      } catch (err) {
        this.log('warn', `abort of ${sessionKey} failed: ${errorText(err)}`)
      }
    }
    this.wake(s)
    void this.drain(sessionKey)
    return done
  }

  /** One drain loop per session: waits for the active run to end, then starts the next batch. */
  private async drain(sessionKey: string): Promise<void> {
    const s = this.state(sessionKey)
    if (s.draining) {
      this.wake(s)
      return
    }
    s.draining = true
    try {
      while (!this.disposed) {
        const waiting = this.runnable(s)
        if (waiting.length === 0) break
        if (this.safeIsActive(sessionKey)) {
          await this.deps.waitIdle(sessionKey).catch(() => {})
          // Guard against a waitIdle that resolves while still active (avoid a hot loop).
          if (this.safeIsActive(sessionKey)) await this.sleep(s, 50)
          continue
        }
        const head = waiting[0]
        if (head.item.mode === 'collect') {
          const wait = s.lastEnqueueAt + this.settings(sessionKey).debounceMs - this.now()
          if (wait > 0) {
            await this.sleep(s, wait)
            continue
          }
        }
        const batch = head.item.mode === 'collect' ? this.leadingCollect(waiting) : [head]
        await this.startBatch(sessionKey, s, batch)
      }
    } finally {
      s.draining = false
    }
  }

  /** The consecutive run of collect items at the head (later non-collect items keep their order). */
  private leadingCollect(waiting: Entry[]): Entry[] {
    const out: Entry[] = []
    for (const e of waiting) {
      if (e.item.mode !== 'collect') break
      out.push(e)
    }
    return out
  }

  private async startBatch(sessionKey: string, s: SessionState, batch: Entry[]): Promise<void> {
    for (const e of batch) e.inFlight = true
    const overflow = this.takeOverflow(s)
    const texts = batch.map((e) => e.item.text)
    const prompt =
      batch.length > 1 || (overflow && batch[0].item.mode === 'collect')
        ? buildCollectPrompt(texts, overflow)
        : withOverflow(texts[0], overflow)
    try {
      const { runId } = await this.deps.startRun(
        sessionKey,
        prompt,
        batch.map((e) => e.item.id),
        batch.map((e) => e.meta),
      )
      for (const e of batch) {
        e.item.status = batch.length > 1 ? 'collected' : 'started'
        e.item.runId = runId
        e.item.detail = batch.length > 1 ? `coalesced ${batch.length} messages into one turn` : undefined
        e.settle?.({ status: 'started', runId, itemId: e.item.id })
      }
    } catch (err) {
      const error = errorText(err)
      this.log('error', `queued run for ${sessionKey} failed to start: ${error}`)
      for (const e of batch) {
        e.item.status = 'failed'
        e.item.detail = error
        e.settle?.({ status: 'failed', itemId: e.item.id, error })
        this.discard(e)
      }
    } finally {
      for (const e of batch) e.inFlight = false
      this.trimHistory(s)
      this.changed(sessionKey)
    }
  }

  private sleep(s: SessionState, ms: number): Promise<void> {
    return new Promise<void>((res) => {
      const done = () => {
        if (s.wakeSleep !== done) return
        s.wakeSleep = undefined
        if (s.sleepTimer !== undefined) this.clearTimer(s.sleepTimer)
        s.sleepTimer = undefined
        res()
      }
      s.wakeSleep = done
      s.sleepTimer = this.setTimer(done, Math.max(0, ms))
    })
  }

  private wake(s: SessionState): void {
    s.wakeSleep?.()
  }

  private trimHistory(s: SessionState): void {
    const limit = this.deps.historyLimit ?? 50
    const finished = s.entries.filter((e) => e.item.status !== 'queued')
    let excess = finished.length - limit
    if (excess <= 0) return
    s.entries = s.entries.filter((e) => {
      if (excess > 0 && e.item.status !== 'queued') {
        excess--
        return false
      }
      return true
    })
  }

  private changed(sessionKey: string): void {
    if (!this.deps.onChange) return
    try {
      this.deps.onChange(sessionKey, this.list(sessionKey))
    } catch (err) {
      this.log('error', `queue onChange listener failed: ${errorText(err)}`)
    }
  }

  private safeIsActive(sessionKey: string): boolean {
    try {
      return this.deps.isActive(sessionKey)
    } catch {
      return false
    }
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now()
  }

  private setTimer(fn: () => void, ms: number): unknown {
    return this.deps.setTimer ? this.deps.setTimer(fn, ms) : setTimeout(fn, ms)
  }

  private clearTimer(h: unknown): void {
    if (this.deps.clearTimer) this.deps.clearTimer(h)
    else clearTimeout(h as ReturnType<typeof setTimeout>)
  }

  private log(level: 'warn' | 'error', msg: string): void {
    const l = this.deps.logger
    if (l) l[level](`[queue] ${msg}`)
  }
}
