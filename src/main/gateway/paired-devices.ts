// Devices that may connect from a non-loopback address. A device is paired the first time it connects
// over loopback (auto-approved, as in OpenClaw); a remote connect from an unknown device is refused with
// NOT_PAIRED. There is no remote approval flow: pair a device by connecting it locally once.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gatewayDir, writeFileAtomic } from './state-files'

export interface PairedDevice {
  deviceId: string
  publicKey: string
  clientId: string
  pairedAt: number
  lastSeenAt: number
}

const MAX_DEVICES = 500
// Rewriting the file on every loopback connect is wasteful; refresh lastSeenAt at most this often.
const TOUCH_INTERVAL_MS = 60 * 60_000

export class PairedDevices {
  private devices = new Map<string, PairedDevice>()
  private readonly path: string

  constructor(stateDir: string, private readonly onError: (err: unknown) => void = () => {}) {
    this.path = join(gatewayDir(stateDir), 'devices.json')
    try {
      const list = JSON.parse(readFileSync(this.path, 'utf8')) as { devices?: PairedDevice[] }
      for (const d of list.devices ?? []) {
        if (d && typeof d.deviceId === 'string' && typeof d.publicKey === 'string') this.devices.set(d.deviceId, d)
      }
    } catch {
      // absent or unreadable: start empty (a corrupt file is replaced on the next pairing)
    }
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
    this.devices.set(deviceId, { deviceId, publicKey, clientId, pairedAt: cur?.pairedAt ?? now, lastSeenAt: now })
    while (this.devices.size > MAX_DEVICES) {
      let oldest: PairedDevice | undefined
      for (const d of this.devices.values()) if (!oldest || d.lastSeenAt < oldest.lastSeenAt) oldest = d
      if (!oldest) break
      this.devices.delete(oldest.deviceId)
    }
    this.save()
  }

  private save() {
    try {
      writeFileAtomic(this.path, JSON.stringify({ version: 1, devices: [...this.devices.values()] }, null, 2) + '\n', 0o600)
    } catch (err) {
      this.onError(err)
    }
  }
}
