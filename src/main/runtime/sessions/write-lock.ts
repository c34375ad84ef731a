// Cross-process write locks (OpenClaw §9.5): `<file>.lock` created with O_EXCL and holding
// {pid, createdAt, starttime, tid}. Re-entrant within a process (ref-counted); waiting callers retry with
// backoff; a lock whose holder is dead (or not refreshed for staleMs) is reclaimed; every lock this process
// holds is removed on exit. kill -9 cannot run exit hooks, which is exactly what the dead-pid reclaim is for.
// A holder refreshes its lock file's mtime (heartbeat) while it holds it, so a run longer than the stale
// threshold (30 min) is not taken for abandoned: age is measured from the last refresh, not from createdAt.
import fs from 'node:fs'
import path from 'node:path'
import { threadId } from 'node:worker_threads'
import { ApiError } from '../../api/errors'
import { readSmallRegularFile, SmallFileError } from '../read-small-file'
import { isPidAlive, ownProcessStartTime, processStartTime } from './process-info'

export interface WriteLockOptions {
  /** give up after this long (default 10 s) → ApiError UNAVAILABLE (retryable) */
  timeoutMs?: number
  /** a live holder's lock not refreshed for this long is considered abandoned (default 30 min) */
  staleMs?: number
  /** how often a held lock's mtime is refreshed (default: staleMs / 3, at most every 60 s) */
  heartbeatMs?: number
}

export type ReleaseLock = () => Promise<void>

interface LockPayload {
  pid: number
  createdAt: number
  starttime?: string
  tid?: number
}

interface HeldLock {
  lockPath: string
  payload: string
  refs: number
  heartbeat?: ReturnType<typeof setInterval>
  heartbeatMs?: number
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000
export const DEFAULT_LOCK_STALE_MS = 30 * 60_000
/** errno codes meaning the lock directory cannot be written at all */
const UNWRITABLE = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM'])
/** A lock file that never got its payload (holder died between create and write) is stale after this. */
const UNREADABLE_LOCK_GRACE_MS = 2_000
/** far above a payload (a pid, a time, a thread id) */
const MAX_LOCK_BYTES = 64 * 1024
const MAX_HEARTBEAT_MS = 60_000

// Shared through globalThis so duplicated copies of this module (bundled chunks) agree on what is held.
const HELD_KEY = Symbol.for('loopdesk.runtime.writeLocks')
const globalRef = globalThis as unknown as Record<symbol, Map<string, HeldLock> | undefined>
const held: Map<string, HeldLock> = (globalRef[HELD_KEY] ??= new Map())

let exitHookInstalled = false
function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', releaseAllLocksSync)
}

/** Takes `<file>.lock`, waiting for another holder if needed. Returns an idempotent release function. */
export async function acquireWriteLock(file: string, opts: WriteLockOptions = {}): Promise<ReleaseLock> {
  const lockPath = `${path.resolve(file)}.lock`
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS
  const staleMs = opts.staleMs ?? DEFAULT_LOCK_STALE_MS
  const beatMs = heartbeatInterval(staleMs, opts.heartbeatMs)
  const deadline = Date.now() + timeoutMs
  for (let attempt = 0; ; attempt++) {
    const lock = take(lockPath, beatMs)
    if (lock) return releaser(lock)
    if (reclaimIfStale(lockPath, staleMs)) continue
    const now = Date.now()
    if (now >= deadline) {
      const holder = readPayload(lockPath)
      throw new ApiError(
        'UNAVAILABLE',
        `timed out after ${timeoutMs} ms waiting for ${lockPath}` + (holder ? ` (held by pid ${holder.pid})` : ''),
        { lockPath, holderPid: holder?.pid },
        true,
      )
    }
    // Quick retries first (store writes hold the lock for ~1 ms), then back off up to 250 ms, with jitter.
    const delay = Math.min(250, 2 * 1.6 ** Math.min(attempt, 12)) * (0.5 + Math.random())
    await new Promise((r) => setTimeout(r, Math.max(1, Math.min(delay, deadline - now))))
  }
}

/**
 * Synchronous variant for exit handlers: tries for at most timeoutMs (default 500 ms) and returns a
 * release function, or undefined when the lock could not be taken.
 */
export function tryAcquireWriteLockSync(file: string, opts: WriteLockOptions = {}): (() => void) | undefined {
  const lockPath = `${path.resolve(file)}.lock`
  const deadline = Date.now() + (opts.timeoutMs ?? 500)
  const staleMs = opts.staleMs ?? DEFAULT_LOCK_STALE_MS
  const beatMs = heartbeatInterval(staleMs, opts.heartbeatMs)
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    const lock = take(lockPath, beatMs)
    if (lock) return syncReleaser(lock)
    if (reclaimIfStale(lockPath, staleMs)) continue
    if (Date.now() >= deadline) return undefined
    Atomics.wait(pause, 0, 0, 5)
  }
}

/** Is `<file>.lock` currently held by this process? */
export function holdsWriteLock(file: string): boolean {
  return held.has(`${path.resolve(file)}.lock`)
}

/** Removes every lock this process holds (process exit; also safe to call from signal handlers). */
export function releaseAllLocksSync(): void {
  for (const lock of held.values()) {
    stopHeartbeat(lock)
    removeIfOurs(lock)
  }
  held.clear()
}

function heartbeatInterval(staleMs: number, requested?: number): number {
  if (requested !== undefined && Number.isFinite(requested) && requested > 0) return requested
  // three refreshes per stale period: one delayed or missed beat never makes a live lock look abandoned
  return Math.max(1, Math.min(MAX_HEARTBEAT_MS, Math.floor(staleMs / 3)))
}

/** Keeps the lock's mtime fresh while it is held (a re-entrant holder with a shorter period speeds it up). */
function startHeartbeat(lock: HeldLock, everyMs: number): void {
  if (lock.heartbeat && lock.heartbeatMs !== undefined && lock.heartbeatMs <= everyMs) return
  stopHeartbeat(lock)
  lock.heartbeatMs = everyMs
  lock.heartbeat = setInterval(() => refresh(lock), everyMs)
  lock.heartbeat.unref?.() // a held lock alone must not keep the process alive
}

function stopHeartbeat(lock: HeldLock): void {
  if (lock.heartbeat) clearInterval(lock.heartbeat)
  lock.heartbeat = undefined
  lock.heartbeatMs = undefined
}

/** Touches the lock file if it is still ours; stops beating once it is gone or someone else's. */
function refresh(lock: HeldLock): void {
  try {
    if (readLock(lock.lockPath) !== lock.payload) {
      stopHeartbeat(lock) // reclaimed by another holder: never keep their lock (or a stranger's) alive
      return
    }
    const now = new Date()
    fs.utimesSync(lock.lockPath, now, now)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') stopHeartbeat(lock)
    // other errors (a full or read-only disk): keep the lock, try again at the next beat
  }
}

/** The lock, beating: one more reference when this process holds it already, else a new one if it is free. */
function take(lockPath: string, beatMs: number): HeldLock | undefined {
  const mine = held.get(lockPath)
  if (mine) mine.refs++
  const lock = mine ?? tryCreate(lockPath)
  if (lock) startHeartbeat(lock, beatMs)
  return lock
}

function tryCreate(lockPath: string): HeldLock | undefined {
  const payload: LockPayload = { pid: process.pid, createdAt: Date.now(), tid: threadId }
  const starttime = ownProcessStartTime()
  if (starttime) payload.starttime = starttime
  const text = JSON.stringify(payload)
  let fd: number
  try {
    fd = fs.openSync(lockPath, 'wx', 0o600)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return undefined
    if (code === 'ENOENT') {
      fs.mkdirSync(path.dirname(lockPath), { recursive: true })
      return tryCreate(lockPath)
    }
    throw storageError(lockPath, err)
  }
  try {
    fs.writeSync(fd, text)
  } catch (err) {
    fs.closeSync(fd)
    fs.rmSync(lockPath, { force: true })
    throw storageError(lockPath, err)
  }
  fs.closeSync(fd)
  const lock: HeldLock = { lockPath, payload: text, refs: 1 }
  held.set(lockPath, lock)
  installExitHook()
  return lock
}

function releaser(lock: HeldLock): ReleaseLock {
  const release = syncReleaser(lock)
  return async () => release()
}

function syncReleaser(lock: HeldLock): () => void {
  let released = false
  return () => {
    if (released) return
    released = true
    if (--lock.refs > 0) return
    stopHeartbeat(lock)
    if (held.get(lock.lockPath) === lock) held.delete(lock.lockPath)
    removeIfOurs(lock)
  }
}

/** Deletes the lock file only if it is still ours (a reclaimer may have replaced it). */
function removeIfOurs(lock: HeldLock): void {
  try {
    if (readLock(lock.lockPath) === lock.payload) fs.unlinkSync(lock.lockPath)
  } catch {
    // already gone
  }
}

/** a lock's text, read non-blocking: a FIFO under a lock's name made every writer of its file hang in open() */
function readLock(lockPath: string): string {
  return readSmallRegularFile(lockPath, MAX_LOCK_BYTES)
}

function readPayload(lockPath: string): LockPayload | undefined {
  try {
    return parsePayload(readLock(lockPath))
  } catch {
    return undefined
  }
}

function parsePayload(raw: string): LockPayload | undefined {
  try {
    const p = JSON.parse(raw) as LockPayload
    return p && Number.isInteger(p.pid) && typeof p.createdAt === 'number' ? p : undefined
  } catch {
    return undefined
  }
}

function isStale(lockPath: string, raw: string, staleMs: number): boolean {
  const p = parsePayload(raw)
  if (!p) {
    try {
      return Date.now() - fs.statSync(lockPath).mtimeMs > Math.min(staleMs, UNREADABLE_LOCK_GRACE_MS)
    } catch {
      return true
    }
  }
  if (p.pid === process.pid && (p.tid ?? 0) === threadId) return true // ours by pid, but not in `held`: a dead predecessor
  if (!isPidAlive(p.pid)) return true
  if (p.starttime) {
    const now = processStartTime(p.pid)
    if (now && now !== p.starttime) return true // the pid was recycled by another process
  }
  // a live holder refreshes the file's mtime (heartbeat): age counts from the later of creation and refresh
  let refreshedAt = p.createdAt
  try {
    refreshedAt = Math.max(refreshedAt, fs.statSync(lockPath).mtimeMs)
  } catch {
    // gone meanwhile: judged by createdAt
  }
  return Date.now() - refreshedAt > staleMs
}

/**
 * Removes a stale lock so the caller can retry. Returns true when the slot may be free now.
 * Two waiters can judge the same lock stale; the rename makes sure only the one that moved the
 * stale file deletes it, and a fresh lock moved by mistake is put back.
 */
function reclaimIfStale(lockPath: string, staleMs: number): boolean {
  let raw: string
  try {
    raw = readLock(lockPath)
  } catch (err) {
    // not a regular file (a FIFO, a folder planted under the name) is no holder's: judged as an unreadable one
    if (err instanceof SmallFileError) raw = ''
    else return (err as NodeJS.ErrnoException).code === 'ENOENT'
  }
  if (!isStale(lockPath, raw, staleMs)) return false
  const grave = `${lockPath}.stale-${process.pid}-${threadId}-${Math.random().toString(36).slice(2)}`
  try {
    fs.renameSync(lockPath, grave)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // a read-only or full disk can never free the slot: say so now instead of timing out on "a holder"
    if (code && UNWRITABLE.has(code)) throw storageError(lockPath, err)
    return code === 'ENOENT'
  }
  let moved = ''
  try {
    moved = readLock(grave)
  } catch {
    // unreadable: treat as the stale one
  }
  // not the file we judged, or its holder refreshed it between our check and the rename: put it back
  if (moved !== raw || !isStale(grave, moved, staleMs)) {
    try {
      fs.linkSync(grave, lockPath) // put the fresh lock back unless someone else already took the slot
    } catch {
      // slot already taken again
    }
    fs.rmSync(grave, { force: true })
    return false
  }
  fs.rmSync(grave, { force: true })
  return true
}

function storageError(lockPath: string, err: unknown): ApiError {
  const e = err as NodeJS.ErrnoException
  return new ApiError('STORAGE_ERROR', `cannot create lock ${lockPath}: ${e.code ?? ''} ${e.message}`.trim())
}
