// Gateway files in the state dir: the shared token (0600) and gateway.json (where the running gateway
// listens, so the CLI finds it even when the desktop app had to pick another port).
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { readSmallRegularFile } from '../runtime/read-small-file'
import { isPidAlive } from '../runtime/sessions/process-info'
import { tryAcquireWriteLockSync } from '../runtime/sessions/write-lock'
import { writeFileAtomicSync } from '../runtime/sessions/atomic-write'
import { recordedProcessAlive } from './record-alive'
import { GATEWAY_TOKEN_RULE, isValidGatewayToken } from '../runtime/config/gateway-token'

export const gatewayDir = (stateDir: string) => join(stateDir, 'gateway')
export const tokenPath = (stateDir: string) => join(gatewayDir(stateDir), 'token')
export const infoPath = (stateDir: string) => join(gatewayDir(stateDir), 'gateway.json')

export interface GatewayInfo {
  port: number
  pid: number
  url: string
  startedAt: number
  /** the process's kernel start time (Linux): a pid reused by another process does not match it */
  pidStart?: string
  /** what started it: `loopdesk gateway run` or the desktop app (older records: unknown) */
  launchedBy?: 'cli' | 'app'
}

function ensureDir(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
}

/**
 * Writes atomically with exactly `mode` (the stores' temp file, fsync, rename): a crash never leaves a half-written
 * file, and a write the disk refuses leaves no temp file behind. The folder must exist (a `--state-dir` that does
 * not is never created by a write).
 */
export function writeFileAtomic(path: string, data: string, mode: number) {
  writeFileAtomicSync(path, data, { mode, exactMode: true, createDir: false })
}

export { isValidGatewayToken }

/** Reads the stored token; undefined when absent or unusable (a FIFO or device there too: never waited on). */
export function readGatewayToken(stateDir: string): string | undefined {
  try {
    const t = readSmallRegularFile(tokenPath(stateDir), 4096).trim()
    return isValidGatewayToken(t) ? t : undefined
  } catch {
    return undefined
  }
}

/** A new shared gateway token: 256 random bits, base64url (first start and `loopdesk gateway rotate-token`). */
export const newGatewayToken = (): string => randomBytes(32).toString('base64url')

/** Returns the stored token, generating one on first start. Fixes loose permissions. */
export function ensureGatewayToken(stateDir: string): string {
  ensureDir(gatewayDir(stateDir))
  const existing = readGatewayToken(stateDir)
  if (existing) {
    try {
      if ((statSync(tokenPath(stateDir)).mode & 0o077) !== 0) chmodSync(tokenPath(stateDir), 0o600)
    } catch {
      // best effort: the token is still valid
    }
    return existing
  }
  const token = newGatewayToken()
  writeFileAtomic(tokenPath(stateDir), token + '\n', 0o600)
  return token
}

/** Stores an explicitly configured token so local clients (CLI, dashboard) can find it. */
export function storeGatewayToken(stateDir: string, token: string) {
  if (!isValidGatewayToken(token)) throw new Error(`gateway token must be ${GATEWAY_TOKEN_RULE}`)
  ensureDir(gatewayDir(stateDir))
  writeFileAtomic(tokenPath(stateDir), token + '\n', 0o600)
}

export function writeGatewayInfo(stateDir: string, info: GatewayInfo) {
  ensureDir(gatewayDir(stateDir))
  writeFileAtomic(infoPath(stateDir), JSON.stringify(info, null, 2) + '\n', 0o600)
}

/** gateway.json's record; undefined when absent or damaged (not a regular file, over 64 KiB, not the shape). */
export function readGatewayInfo(stateDir: string): GatewayInfo | undefined {
  try {
    const v = JSON.parse(readSmallRegularFile(infoPath(stateDir), 64 * 1024)) as Partial<GatewayInfo>
    if (typeof v.port !== 'number' || typeof v.url !== 'string' || typeof v.pid !== 'number') return undefined
    const info: GatewayInfo = { port: v.port, url: v.url, pid: v.pid, startedAt: typeof v.startedAt === 'number' ? v.startedAt : 0 }
    if (typeof v.pidStart === 'string') info.pidStart = v.pidStart
    if (v.launchedBy === 'cli' || v.launchedBy === 'app') info.launchedBy = v.launchedBy
    return info
  } catch {
    return undefined
  }
}

/**
 * Writes this gateway's record and returns the record of another gateway, still running, that it replaces
 * (two on one state dir: `gateway run` then gives way). Read and write happen under the record lock, so of
 * two gateways starting at the same moment the second always sees the first.
 */
export function claimGatewayInfo(stateDir: string, info: GatewayInfo): GatewayInfo | undefined {
  ensureDir(gatewayDir(stateDir))
  return withGatewayRecordLock(stateDir, () => {
    const before = readGatewayInfo(stateDir)
    writeGatewayInfo(stateDir, info)
    return before && before.pid !== info.pid && gatewayProcessAlive(before) ? before : undefined
  })
}

/**
 * A check-then-write on the state dir's runtime records (gateway.json here, `gateway/runtimes/` in
 * embedded-runtimes.ts) as one step across processes (`gateway.json.lock`, the session stores' lock kind: a dead
 * holder's is taken over). Held for a read and a write, so a wait is milliseconds; past 3 s it goes ahead without
 * (a record written late beats a runtime that cannot start).
 */
export function withGatewayRecordLock<T>(stateDir: string, fn: () => T): T {
  const release = tryAcquireWriteLockSync(infoPath(stateDir), { timeoutMs: 3000, staleMs: 10_000 })
  try {
    return fn()
  } finally {
    release?.()
  }
}

/**
 * Removes gateway.json only if it still describes this process (another gateway may have replaced it). When
 * this gateway had replaced one that still runs (`previous`: two gateways on one state dir), that one's
 * record is put back: the CLI, `status` and `restore`'s in-use check must still find it.
 */
export function removeGatewayInfo(stateDir: string, pid = process.pid, port?: number, previous?: GatewayInfo) {
  if (!readGatewayInfo(stateDir)) return
  withGatewayRecordLock(stateDir, () => {
    const cur = readGatewayInfo(stateDir)
    if (!cur || cur.pid !== pid || (port !== undefined && cur.port !== port)) return
    if (previous && previous.pid !== pid && gatewayProcessAlive(previous)) writeGatewayInfo(stateDir, previous)
    else rmSync(infoPath(stateDir), { force: true })
  })
}

/** True when a process with this pid exists (the lock holders' probe). */
export const pidAlive = isPidAlive

/**
 * True when the process a gateway record names still runs and is the gateway that wrote it: the runtime records'
 * rule (record-alive.ts) — on Linux its start time must match, or (older records without one) precede the record.
 */
export function gatewayProcessAlive(info: GatewayInfo): boolean {
  return recordedProcessAlive(info)
}
