// The shared, in-memory view of one sessions.json plus its write pipeline. All SessionStore objects for
// the same file in this process share one core, so in-process writers are serialized here (a re-entrant
// file lock alone would not exclude them); the file lock excludes other processes.
//
// An update is applied to the cache at once, in call order, and logged. A flush takes the file lock;
// if another process changed the file since we last read it, the file is re-read and every logged
// (unwritten) update is replayed on top of it — so no process loses another's update — and the result
// is written atomically. Durable updates resolve after their flush; deferred updates resolve at once
// and are written by a flush within `deferMs` (group commit), or on process exit.
import path from 'node:path'
import { ApiError, invalid } from '../../api/errors'
import { keepCorruptCopy } from '../corrupt-copy'
import { readFailure, readSmallRegularFile } from '../read-small-file'
import type { SessionEntry } from '../contracts'
import { sameIdentity, statIdentity, writeFileAtomic, writeFileAtomicSync, type WrittenFileStat } from './atomic-write'
import { copyPlainJson, NOT_PLAIN } from './plain-json'
import { decodeStore, deepFreeze, encodeMember, isEntry, memberChunks } from './store-file'
import { acquireWriteLock, tryAcquireWriteLockSync } from './write-lock'

/**
 * `all`: every entry of the store as this update sees it (read-only) — the same fresher data a replay gives `cur`,
 * so a choice made against the other sessions (a fork's free "(fork N)" name) is made again if another process
 * wrote meanwhile, never against a stale list.
 */
export type SessionMutator = (cur: SessionEntry | undefined, all: ReadonlyMap<string, SessionEntry>) => SessionEntry | undefined | null

interface LoggedOp {
  key: string
  mutator: SessionMutator
  /** the mutator takes the stored (frozen) entry itself, not a private copy */
  shared: boolean
  /** what the update resolved (or will resolve) with */
  result: SessionEntry | undefined
  /** set for durable updates until their flush settles them */
  waiter?: { resolve: (e: SessionEntry | undefined) => void; reject: (err: unknown) => void }
}

export const STORE_LOCK_TIMEOUT_MS = 10_000
export const STORE_LOCK_STALE_MS = 30_000
export const DEFAULT_DEFER_MS = 25
const RETRY_AFTER_FAILURE_MS = 1_000
/** Far above any real store (~1 KiB a session) and below what one JS string can hold (~512 MiB). */
export const MAX_STORE_BYTES = 256 * 1024 * 1024

/**
 * sessions.json's text ('' when missing). Read like the other state files (`readSmallRegularFile`): a FIFO under
 * its name hung the start in open() for good, a symlink to /dev/zero read until memory ran out, a folder failed
 * with a bare "EISDIR". Such a file is no store to back up or replace, so it is refused naming the file.
 */
export function readStoreText(file: string): string {
  try {
    return readSmallRegularFile(file, MAX_STORE_BYTES)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw new Error(`cannot read the sessions store ${file}: ${readFailure(err)} — move it away (it lists the conversations; they come back from their transcripts)`, { cause: err })
  }
}

export class StoreCore {
  private entries = new Map<string, SessionEntry>()
  /** encoded `"key": {...}` member per entry (UTF-8), made lazily at write time and dropped when the entry changes */
  private readonly members = new Map<string, Buffer>()
  /** identity of the file our cache is based on; null = never looked */
  private diskId: WrittenFileStat | undefined | null = null
  /** identity of the file a flush in progress is renaming into place (our own write, not a foreign one) */
  private ownWrite: WrittenFileStat | undefined
  /** updates applied to the cache but not yet written */
  private log: LoggedOp[] = []
  private flushing = false
  private flushAgain = false
  private microtaskQueued = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerDue = Infinity
  private idleWaiters: Array<() => void> = []
  fsync = true
  deferMs = DEFAULT_DEFER_MS
  lockTimeoutMs = STORE_LOCK_TIMEOUT_MS

  constructor(readonly path: string) {
    liveCores.add(this)
  }

  /** Re-reads the file when another process replaced it (one stat when it did not). */
  syncFromDisk(): void {
    const id = statIdentity(this.path)
    if (this.diskId !== null && sameIdentity(id, this.diskId)) return
    if (id && this.ownWrite && sameIdentity(id, this.ownWrite)) {
      // our flush's file, renamed into place while the flush still runs: the cache already holds it
      this.diskId = id
      return
    }
    this.reload(id)
  }

  get(key: string): SessionEntry | undefined {
    this.syncFromDisk()
    return this.entries.get(key)
  }

  list(): Array<[string, SessionEntry]> {
    this.syncFromDisk()
    return [...this.entries]
  }

  get unwritten(): number {
    return this.log.length
  }

  update(key: string, mutator: SessionMutator, defer: boolean, shared = false): Promise<SessionEntry | undefined> {
    let result: SessionEntry | undefined
    let changed: boolean
    try {
      this.syncFromDisk()
      ;({ result, changed } = this.apply(key, mutator, shared))
    } catch (err) {
      return Promise.reject(err)
    }
    if (!changed) return Promise.resolve(result)
    if (defer) {
      this.log.push({ key, mutator, shared, result })
      this.schedule(this.deferMs)
      return Promise.resolve(result)
    }
    return new Promise((resolve, reject) => {
      this.log.push({ key, mutator, shared, result, waiter: { resolve, reject } })
      // A microtask lets updates issued in the same tick share this write.
      this.schedule(0)
    })
  }

  /** Writes everything logged so far; resolves when done (or failed: see the log's waiters). */
  flush(): Promise<void> {
    if (this.log.length === 0 && !this.flushing) return Promise.resolve()
    const p = new Promise<void>((r) => this.idleWaiters.push(r))
    this.schedule(0)
    return p
  }

  /** Last-chance synchronous write at process exit (the lock is tried briefly, never waited on long). */
  flushSyncOnExit(): void {
    if (this.log.length === 0) return
    const release = tryAcquireWriteLockSync(this.path, { timeoutMs: 500, staleMs: STORE_LOCK_STALE_MS })
    if (!release) {
      console.error(`[sessions] could not lock ${this.path} at exit; ${this.log.length} session update(s) not saved`)
      return
    }
    try {
      this.writeLocked()
    } catch (err) {
      console.error(`[sessions] could not save ${this.path} at exit: ${(err as Error).message}`)
    } finally {
      release()
    }
  }

  // ------------------------------------------------------------------ internals

  /** Applies one mutator to the cache. Throws (nothing applied) when the mutator throws or returns junk. */
  private apply(key: string, mutator: SessionMutator, shared: boolean): { result: SessionEntry | undefined; changed: boolean } {
    const cur = this.entries.get(key)
    // entries are plain JSON (normalized / parsed): a plain copy is a full private copy
    const next = mutator(cur && !shared ? privateCopy(cur) : cur, this.entries)
    if (next === undefined) return { result: cur, changed: false }
    if (next === null) {
      if (!cur) return { result: undefined, changed: false }
      this.entries.delete(key)
      this.members.delete(key)
      return { result: undefined, changed: true }
    }
    const stored = normalize(next)
    this.entries.set(key, stored)
    this.members.delete(key) // re-encoded by the next write only (several updates often land between writes)
    return { result: stored, changed: true }
  }

  /** Loads the file (id = its identity) and replays every unwritten update on top of it. */
  private reload(id: WrittenFileStat | undefined): void {
    const text = id ? readStoreText(this.path) : ''
    let entries = new Map<string, SessionEntry>()
    try {
      const decoded = decodeStore(text)
      entries = decoded.entries
      if (decoded.invalidKeys.length) this.backup(`has unusable entries (${decoded.invalidKeys.slice(0, 5).join(', ')})`)
    } catch (err) {
      // Never lose what was saved: keep a copy of the unreadable file, then start from an empty store.
      this.backup(`is unreadable (${(err as Error).message})`)
    }
    this.entries = entries
    this.members.clear()
    this.diskId = id
    if (this.log.length) this.replay()
  }

  private replay(): void {
    const kept: LoggedOp[] = []
    for (const op of this.log) {
      try {
        op.result = this.apply(op.key, op.mutator, op.shared).result
        kept.push(op)
      } catch (err) {
        // The update no longer applies to the fresher data: it fails, and only it.
        if (op.waiter) op.waiter.reject(err)
        else console.warn(`[sessions] deferred update of ${op.key} dropped: ${(err as Error).message}`)
      }
    }
    this.log = kept
  }

  private schedule(delayMs: number): void {
    if (this.flushing) {
      // The running flush picks up durable work itself; deferred work is rescheduled when it ends.
      if (delayMs === 0) this.flushAgain = true
      return
    }
    if (delayMs === 0) {
      // A microtask (not a timer turn) is enough to batch updates issued in the same tick.
      if (this.microtaskQueued) return
      this.microtaskQueued = true
      queueMicrotask(() => {
        this.microtaskQueued = false
        void this.runFlush()
      })
      return
    }
    const due = Date.now() + delayMs
    if (this.timer !== undefined && this.timerDue <= due) return
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timerDue = due
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.timerDue = Infinity
      void this.runFlush()
    }, delayMs)
  }

  private async runFlush(): Promise<void> {
    if (this.flushing) {
      this.flushAgain = true
      return
    }
    this.flushing = true
    if (this.timer !== undefined) {
      clearTimeout(this.timer)
      this.timer = undefined
      this.timerDue = Infinity
    }
    let failed = false
    try {
      do {
        this.flushAgain = false
        if (this.log.length === 0) break
        failed = !(await this.flushOnce())
      } while (this.flushAgain && !failed)
    } finally {
      this.flushing = false
      if (this.log.length) {
        if (failed) this.schedule(RETRY_AFTER_FAILURE_MS)
        else this.schedule(this.log.some((o) => o.waiter) ? 0 : this.deferMs)
      }
      if (this.log.length === 0 || failed) {
        const waiters = this.idleWaiters
        this.idleWaiters = []
        for (const w of waiters) w()
      }
    }
  }

  /** One locked write of everything logged. Returns false when it failed. */
  private async flushOnce(): Promise<boolean> {
    let release: () => Promise<void>
    try {
      release = await acquireWriteLock(this.path, { timeoutMs: this.lockTimeoutMs, staleMs: STORE_LOCK_STALE_MS })
    } catch (err) {
      this.failLogged(this.log.length, toStorageError(this.path, err))
      return false
    }
    let count = 0
    try {
      this.syncFromDisk() // catch up with other processes (replays our log on their data)
      count = this.log.length
      if (count === 0) return true
      // Updates made while the fsync runs are not in this text; they stay logged for the next flush.
      // get()/update() during the rename and the directory fsync must not take our own new file for
      // another process's write and re-read it: its identity is known before the rename starts.
      try {
        await writeFileAtomic(this.path, this.snapshot(), {
          fsync: this.fsync,
          mode: 0o600,
          onIdentity: (id) => (this.ownWrite = id),
        })
        this.settleWritten(count)
        this.adoptOwnWrite()
      } finally {
        this.ownWrite = undefined
      }
      return true
    } catch (err) {
      this.failLogged(count || this.log.length, toStorageError(this.path, err))
      return false
    } finally {
      await release()
    }
  }

  /** After our write: our file's identity becomes the cache's, unless the file was replaced since (then the next read reloads). */
  private adoptOwnWrite(): void {
    try {
      const id = statIdentity(this.path)
      if (id && this.ownWrite && sameIdentity(id, this.ownWrite)) this.diskId = id
    } catch {
      // the next get()/update() looks again
    }
  }

  /** Under the lock, synchronously (exit path). */
  private writeLocked(): void {
    this.syncFromDisk()
    const count = this.log.length
    if (count === 0) return
    this.diskId = writeFileAtomicSync(this.path, this.snapshot(), { fsync: this.fsync, mode: 0o600 })
    this.settleWritten(count)
  }

  /** The whole file (what JSON.stringify(store, null, 2) + '\n' gives) as chunks for one vectored write. */
  private snapshot(): Uint8Array[] {
    const members: Buffer[] = []
    for (const [k, e] of this.entries) members.push(this.memberOf(k, e))
    return memberChunks(members)
  }

  private settleWritten(count: number): void {
    const written = this.log.splice(0, count)
    for (const op of written) op.waiter?.resolve(op.result)
  }

  /**
   * A write of the first `count` logged updates failed: the durable ones among them are rejected and
   * taken back out of the cache; deferred ones were already acknowledged, so they stay logged and retry.
   */
  private failLogged(count: number, err: ApiError): void {
    const attempted = this.log.slice(0, count)
    const durable = attempted.filter((o) => o.waiter)
    if (durable.length === 0) {
      console.warn(`[sessions] ${err.message}; ${count} deferred update(s) will be retried`)
      return
    }
    const failed = new Set(durable)
    this.log = this.log.filter((o) => !failed.has(o))
    for (const op of durable) op.waiter!.reject(err)
    try {
      this.reload(statIdentity(this.path))
    } catch {
      this.diskId = null // could not even read it: re-read next time
    }
  }

  private memberOf(key: string, entry: SessionEntry): Buffer {
    let m = this.members.get(key)
    if (m === undefined) this.members.set(key, (m = Buffer.from(encodeMember(key, entry), 'utf8')))
    return m
  }

  private backup(why: string): void {
    const { copy, error } = keepCorruptCopy(this.path)
    if (error === undefined) console.warn(`[sessions] ${this.path} ${why}; a copy was kept at ${copy}`)
    else console.warn(`[sessions] ${this.path} ${why}; backup failed: ${(error as Error).message}`)
  }
}

/** Stored entries are exactly what JSON keeps (no undefined, no functions), frozen, with updatedAt set. */
function normalize(next: SessionEntry): SessionEntry {
  if (!next || typeof next !== 'object' || Array.isArray(next)) throw invalid('session mutator must return an entry object, null or undefined')
  if (typeof (next as { then?: unknown }).then === 'function') throw invalid('session mutator must be synchronous')
  // plain data (what mutators return) is copied and frozen in one pass — values this function stored before
  // (a shared mutator's untouched members) are kept as they are; anything else takes the JSON round trip
  const plain = copyPlainJson(next, true, normalizedValues)
  if (plain !== NOT_PLAIN && typeof (plain as SessionEntry).updatedAt === 'number') {
    if (!isEntry(plain)) throw invalid('session entry needs a non-empty sessionId')
    return plain as SessionEntry
  }
  const stored = JSON.parse(JSON.stringify(next)) as SessionEntry
  if (typeof stored.updatedAt !== 'number') stored.updatedAt = Date.now()
  if (!isEntry(stored)) throw invalid('session entry needs a non-empty sessionId')
  return deepFreeze(stored)
}

/** every object and array normalize() made (frozen plain JSON): reused as they are by later normalizations */
const normalizedValues = new WeakSet<object>()

function privateCopy(entry: SessionEntry): SessionEntry {
  const c = copyPlainJson(entry)
  return (c === NOT_PLAIN ? JSON.parse(JSON.stringify(entry)) : c) as SessionEntry
}

function toStorageError(file: string, err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const e = err as NodeJS.ErrnoException
  return new ApiError('STORAGE_ERROR', `session store ${file}: ${e.code ? e.code + ' ' : ''}${e.message}`)
}

const cores = new Map<string, StoreCore>()
const liveCores = new Set<StoreCore>()
let exitHook = false

export function coreFor(file: string): StoreCore {
  const abs = path.resolve(file)
  let c = cores.get(abs)
  if (!c) cores.set(abs, (c = new StoreCore(abs)))
  if (!exitHook) {
    exitHook = true
    // Registered before any lock is taken, so it runs before the lock module's release-all hook.
    process.once('exit', flushAllStoresSync)
  }
  return c
}

/** Writes every store's deferred updates now (process exit). */
export function flushAllStoresSync(): void {
  for (const c of liveCores) c.flushSyncOnExit()
}
