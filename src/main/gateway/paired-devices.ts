// Devices that may connect from a non-loopback address, and the device tokens issued to them.
// A device is paired the first time it connects over loopback (auto-approved, as in OpenClaw); a remote
// connect from an unknown device is refused with NOT_PAIRED and waits for approval (pending-pairings.ts).
//
// Device tokens (OpenClaw hello-ok.auth.deviceToken): a device that authenticated with the shared token
// and a verified identity gets a token bound to its id + role; it may reconnect with that token instead
// of the shared secret. Only a SHA-256 of each token is stored (devices.json, 0600) — the token itself
// exists only in the hello-ok that delivered it, so a leaked state dir does not let anyone connect.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { join } from 'node:path'
import { keepCorruptCopy } from '../runtime/corrupt-copy'
import { readFailure, readSmallRegularFile } from '../runtime/read-small-file'
import { gatewayDir, writeFileAtomic } from './state-files'

export interface DeviceTokenRecord {
  /** hex SHA-256 of the token */
  hash: string
  scopes: string[]
  issuedAtMs: number
}

export interface PairedDevice {
  deviceId: string
  publicKey: string
  clientId: string
  pairedAt: number
  lastSeenAt: number
  /** one live token per role */
  tokens?: Record<string, DeviceTokenRecord>
}

export interface IssuedDeviceToken {
  token: string
  role: string
  scopes: string[]
  issuedAtMs: number
}

const MAX_DEVICES = 500
// Rewriting the file on every loopback connect is wasteful; refresh lastSeenAt at most this often.
const TOUCH_INTERVAL_MS = 60 * 60_000

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

function validRecord(r: unknown): r is DeviceTokenRecord {
  const v = r as DeviceTokenRecord
  return !!v && typeof v.hash === 'string' && /^[0-9a-f]{64}$/.test(v.hash) && Array.isArray(v.scopes) && typeof v.issuedAtMs === 'number'
}

export class PairedDevices {
  private devices = new Map<string, PairedDevice>()
  private readonly path: string

  constructor(stateDir: string, private readonly onError: (err: unknown) => void = () => {}) {
    this.path = join(gatewayDir(stateDir), 'devices.json')
    let text: string
    try {
      text = readSmallRegularFile(this.path, 4 * 1024 * 1024)
    } catch (err) {
      // absent: nothing paired yet; unreadable (a folder, a FIFO, too large): start empty, said once — the next
      // pairing writes a new file under that name
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') console.warn(`[gateway] cannot read ${this.path} (${readFailure(err)}); paired devices will have to pair again`)
      return
    }
    let list: { devices?: unknown } | undefined
    try {
      list = JSON.parse(text) as { devices?: unknown }
    } catch {
      list = undefined
    }
    if (!list || typeof list !== 'object' || Array.isArray(list) || (list.devices !== undefined && !Array.isArray(list.devices))) {
      // damaged (a power loss's NULs, cut short, another shape): the next pairing replaces it, so keep a copy first
      this.keepDamaged()
      return
    }
    for (const d of (list.devices ?? []) as PairedDevice[]) {
      if (!d || typeof d.deviceId !== 'string' || typeof d.publicKey !== 'string') continue
      const tokens: Record<string, DeviceTokenRecord> = {}
      for (const [role, rec] of Object.entries(d.tokens ?? {})) if (validRecord(rec)) tokens[role] = rec
      this.devices.set(d.deviceId, { ...d, tokens })
    }
  }

  private keepDamaged() {
    const { copy, error } = keepCorruptCopy(this.path)
    const kept = error === undefined ? `a copy was kept at ${copy}` : `no copy could be kept: ${readFailure(error)}`
    console.warn(`[gateway] ${this.path} is damaged; paired devices will have to pair again (${kept})`)
  }

  /** Known device with this exact key (a device id bound to another key is not paired). */
  isPaired(deviceId: string, publicKey: string): boolean {
    const d = this.devices.get(deviceId)
    return !!d && d.publicKey === publicKey
  }

  pair(deviceId: string, publicKey: string, clientId: string, now = Date.now()) {
    const cur = this.devices.get(deviceId)
    if (cur && cur.publicKey === publicKey && now - cur.lastSeenAt < TOUCH_INTERVAL_MS) return
    this.devices.delete(deviceId)
    // A device id that shows up with another key is a different device: its old tokens do not carry over.
    const tokens = cur && cur.publicKey === publicKey ? cur.tokens : {}
    this.devices.set(deviceId, { deviceId, publicKey, clientId, pairedAt: cur?.pairedAt ?? now, lastSeenAt: now, tokens })
    while (this.devices.size > MAX_DEVICES) {
      let oldest: PairedDevice | undefined
      for (const d of this.devices.values()) if (!oldest || d.lastSeenAt < oldest.lastSeenAt) oldest = d
      if (!oldest) break
      this.devices.delete(oldest.deviceId)
    }
    this.save()
  }

  /**
   * Issues a new token for a paired device + role, replacing the previous one (which stops working).
   * Undefined when the device is not paired with this key.
   */
  issueToken(deviceId: string, publicKey: string, role: string, scopes: string[], now = Date.now()): IssuedDeviceToken | undefined {
    const d = this.devices.get(deviceId)
    if (!d || d.publicKey !== publicKey) return undefined
    const token = randomBytes(32).toString('base64url')
    // strictly increasing per device + role: a client holding two tokens can tell which one is live
    const prev = d.tokens?.[role]?.issuedAtMs
    if (prev !== undefined && now <= prev) now = prev + 1
    d.tokens = { ...d.tokens, [role]: { hash: hashToken(token), scopes: [...scopes], issuedAtMs: now } }
    this.save()
    return { token, role, scopes: [...scopes], issuedAtMs: now }
  }

  /** The token record when `token` is the live token of this device (with this key) and role. */
  verifyToken(deviceId: string, publicKey: string, role: string, token: string): DeviceTokenRecord | undefined {
    const d = this.devices.get(deviceId)
    const rec = d && d.publicKey === publicKey ? d.tokens?.[role] : undefined
    if (!rec) return undefined
    const a = Buffer.from(hashToken(token), 'hex')
    const b = Buffer.from(rec.hash, 'hex')
    return a.length === b.length && timingSafeEqual(a, b) ? rec : undefined
  }

  /** Token metadata (never the token) of a device + role. */
  tokenInfo(deviceId: string, role: string): DeviceTokenRecord | undefined {
    return this.devices.get(deviceId)?.tokens?.[role]
  }

  /** Public key a device was paired with. */
  publicKeyOf(deviceId: string): string | undefined {
    return this.devices.get(deviceId)?.publicKey
  }

  /** Removes the token of a device + role; false when there was none. */
  revokeToken(deviceId: string, role: string): boolean {
    const d = this.devices.get(deviceId)
    if (!d?.tokens?.[role]) return false
    const { [role]: _gone, ...rest } = d.tokens
    d.tokens = rest
    this.save()
    return true
  }

  /** Every paired device, newest first, as device.pair.list shows it: token metadata, never a token's hash. */
  list(): Array<Omit<PairedDevice, 'tokens'> & { tokens: Array<{ role: string; scopes: string[]; issuedAtMs: number }> }> {
    return [...this.devices.values()]
      .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
      .map(({ tokens, ...d }) => ({
        ...d,
        tokens: Object.entries(tokens ?? {}).map(([role, t]) => ({ role, scopes: [...t.scopes], issuedAtMs: t.issuedAtMs })),
      }))
  }

  /** Forgets a device and its tokens; false when it was not paired. */
  remove(deviceId: string): boolean {
    if (!this.devices.delete(deviceId)) return false
    this.save()
    return true
  }

  private save() {
    try {
      writeFileAtomic(this.path, JSON.stringify({ version: 1, devices: [...this.devices.values()] }, null, 2) + '\n', 0o600)
    } catch (err) {
      this.onError(err)
    }
  }
}
