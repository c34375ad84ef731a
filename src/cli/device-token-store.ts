// Device tokens the CLI received in hello-ok.auth.deviceToken, one per gateway URL, kept next to the
// CLI's device identity: <stateDir>/identity/device-tokens.json (0600). A device token only works with the
// identity it was issued to, so each entry records that identity's id; an entry for another identity is
// never sent.
// The gateway keeps one live token per device: each shared-token connect replaces it. Two CLIs of one state
// dir connecting at once each get a token and only the later-issued one works, whichever CLI writes last;
// so changes happen under the file's cross-process lock and an older-issued token never replaces a newer one.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomic } from '../main/gateway/state-files'
import { readSmallRegularFile } from '../main/runtime/read-small-file'
import { tryAcquireWriteLockSync } from '../main/runtime/sessions/write-lock'

export interface StoredDeviceToken {
  token: string
  deviceId: string
  role: string
  scopes: string[]
  issuedAtMs: number
}

interface StoreFile {
  version: 1
  /** by normalized gateway URL */
  gateways: Record<string, StoredDeviceToken>
}

const MAX_GATEWAYS = 100

export const deviceTokensPath = (stateDir: string) => join(stateDir, 'identity', 'device-tokens.json')

/** ws://LOCALHOST:18789/ and ws://localhost:18789 are the same gateway; query and fragment never matter. */
export function gatewayKey(url: string): string {
  try {
    const u = new URL(url)
    const path = u.pathname.replace(/\/+$/, '')
    return `${u.protocol}//${u.host.toLowerCase()}${path}`
  } catch {
    return url
  }
}

function valid(v: unknown): v is StoredDeviceToken {
  const e = v as StoredDeviceToken
  return (
    !!e &&
    typeof e.token === 'string' &&
    e.token.length > 0 &&
    typeof e.deviceId === 'string' &&
    typeof e.role === 'string' &&
    Array.isArray(e.scopes) &&
    typeof e.issuedAtMs === 'number'
  )
}

function read(stateDir: string): StoreFile {
  try {
    const v = JSON.parse(readSmallRegularFile(deviceTokensPath(stateDir), 1024 * 1024)) as Partial<StoreFile>
    const gateways: Record<string, StoredDeviceToken> = {}
    for (const [k, e] of Object.entries(v?.gateways ?? {})) if (valid(e)) gateways[k] = e
    return { version: 1, gateways }
  } catch {
    // absent, corrupt or no regular file (a FIFO is not waited on): nothing stored (a corrupt file is replaced on the next save)
    return { version: 1, gateways: {} }
  }
}

/** Read, change, write — under `<file>.lock`. `change` returns false to leave the file as it is. */
function update(stateDir: string, change: (file: StoreFile) => boolean): boolean {
  mkdirSync(join(stateDir, 'identity'), { recursive: true, mode: 0o700 })
  const path = deviceTokensPath(stateDir)
  const release = tryAcquireWriteLockSync(path, { timeoutMs: 2000 })
  if (!release) throw new Error(`${path} is locked by another process`)
  try {
    const file = read(stateDir)
    if (!change(file)) return false
    writeFileAtomic(path, JSON.stringify(file, null, 2) + '\n', 0o600)
    return true
  } finally {
    release()
  }
}

/** The token stored for this gateway and this identity, if any. */
export function loadDeviceToken(stateDir: string, url: string, deviceId: string): StoredDeviceToken | undefined {
  const e = read(stateDir).gateways[gatewayKey(url)]
  return e && e.deviceId === deviceId ? e : undefined
}

/**
 * Stores (replaces) the token for this gateway; rewrites the file only when something changed. False when
 * the stored token of this identity was issued later (another CLI connected after this one): that one is live.
 */
export function saveDeviceToken(stateDir: string, url: string, entry: StoredDeviceToken): boolean {
  const key = gatewayKey(url)
  return update(stateDir, (file) => {
    const cur = file.gateways[key]
    if (JSON.stringify(cur) === JSON.stringify(entry)) return false
    if (cur && cur.deviceId === entry.deviceId && cur.issuedAtMs > entry.issuedAtMs) return false
    delete file.gateways[key]
    file.gateways[key] = entry
    // bounded: the oldest entries go first (insertion order = least recently stored)
    const keys = Object.keys(file.gateways)
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_GATEWAYS))) delete file.gateways[k]
    return true
  })
}

/**
 * Forgets the token of this gateway; true when there was one. With `token`: only that token (the one the
 * gateway refused) — a newer one another CLI stored meanwhile stays.
 */
export function dropDeviceToken(stateDir: string, url: string, token?: string): boolean {
  const key = gatewayKey(url)
  return update(stateDir, (file) => {
    const cur = file.gateways[key]
    if (!cur || (token !== undefined && cur.token !== token)) return false
    delete file.gateways[key]
    return true
  })
}
