// Pairing requests of remote devices (OpenClaw §1.4 "Pairing"): a device that connects from another
// machine with the gateway token but an identity this gateway has not paired is refused with NOT_PAIRED,
// and a request waits here until someone with operator.pairing approves or rejects it
// (device.pair.approve / reject, `loopdesk devices approve`). Approval pairs the device; it connects on its
// next try. Requests live in memory for a few minutes: one that nobody answered is simply gone, and the
// device asks again by reconnecting.
import { randomUUID } from 'node:crypto'
import type { DevicePairRequested } from '../../shared/events'
import { PAIRING_REQUEST_TTL_MS } from '../../shared/pairing'

/** the device.pair.requested payload */
export type PairingRequest = DevicePairRequested

// the window's prompt re-lists when a request's time is up (a device that asks again refreshes it)
export { PAIRING_REQUEST_TTL_MS }
const MAX_PENDING = 100

export class PendingPairings {
  private byId = new Map<string, PairingRequest>()

  constructor(private readonly ttlMs = PAIRING_REQUEST_TTL_MS) {}

  /**
   * The device's open request, refreshed, or a new one (`created`: tell the approvers). A device that asks
   * again keeps its request id, so an approval already on its way still applies; with another key it is
   * another device claiming the id, and the old request goes.
   */
  request(r: Omit<PairingRequest, 'requestId' | 'ts'>, now: number): { request: PairingRequest; created: boolean } {
    this.expire(now)
    const open = [...this.byId.values()].find((x) => x.deviceId === r.deviceId)
    if (open && open.publicKey === r.publicKey) {
      const refreshed = { ...open, ...r, ts: now }
      this.byId.set(open.requestId, refreshed)
      return { request: refreshed, created: false }
    }
    if (open) this.byId.delete(open.requestId)
    const request = { ...r, requestId: randomUUID(), ts: now }
    this.byId.set(request.requestId, request)
    // a flood of identities must not grow this without bound: the oldest requests go first
    while (this.byId.size > MAX_PENDING) this.byId.delete(this.byId.keys().next().value!)
    return { request, created: true }
  }

  /** Removes and returns a live request. */
  take(requestId: string, now: number): PairingRequest | undefined {
    this.expire(now)
    const r = this.byId.get(requestId)
    this.byId.delete(requestId)
    return r
  }

  /** Drops a device's request (the device was paired or removed another way). */
  forgetDevice(deviceId: string) {
    for (const r of this.byId.values()) if (r.deviceId === deviceId) this.byId.delete(r.requestId)
  }

  list(now: number): PairingRequest[] {
    this.expire(now)
    return [...this.byId.values()].sort((a, b) => b.ts - a.ts)
  }

  private expire(now: number) {
    for (const r of this.byId.values()) if (now - r.ts > this.ttlMs) this.byId.delete(r.requestId)
  }
}
