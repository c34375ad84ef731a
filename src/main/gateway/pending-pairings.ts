// Pairing requests of remote devices (OpenClaw §1.4 "Pairing"): a device that connects from another
// machine with the gateway token but an identity this gateway has not paired is refused with NOT_PAIRED,
// and a request waits here until someone with operator.pairing approves or rejects it
// (device.pair.approve / reject, `loopdesk devices approve`). Approval pairs the device; it connects on its
// next try. Requests live in memory for a few minutes: one that nobody answered is simply gone, and the
// device asks again by reconnecting. A rejection is remembered (in memory too, per device id, for
// PAIRING_REJECTION_MS): meanwhile the device is refused without a new request, so a client that keeps
// retrying does not reappear in the approvers' prompt seconds after it was rejected.
import { randomUUID } from 'node:crypto'
import type { DevicePairRequested } from '../../shared/events'
import { PAIRING_REJECTION_MS, PAIRING_REQUEST_TTL_MS, type RejectedDeviceInfo } from '../../shared/pairing'

/** the device.pair.requested payload */
export type PairingRequest = DevicePairRequested

// the window's prompt re-lists when a request's time is up (a device that asks again refreshes it)
export { PAIRING_REQUEST_TTL_MS, PAIRING_REJECTION_MS }
const MAX_PENDING = 100
/** rejected device ids remembered at once; beyond it the oldest rejections are forgotten first */
export const MAX_REJECTED = 1000

export class PendingPairings {
  private byId = new Map<string, PairingRequest>()
  /** device id → when its request was rejected (and what it said it was), oldest first */
  private rejectedAt = new Map<string, { at: number; clientId: string; platform?: string; remoteIp: string }>()

  constructor(
    private readonly ttlMs = PAIRING_REQUEST_TTL_MS,
    private readonly rejectionMs = PAIRING_REJECTION_MS,
  ) {}

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

  /** Removes and returns a live request, and refuses its device for a while (rejectedFor). */
  reject(requestId: string, now: number): PairingRequest | undefined {
    const r = this.take(requestId, now)
    if (!r) return undefined
    this.expireRejections(now)
    this.rejectedAt.delete(r.deviceId)
    this.rejectedAt.set(r.deviceId, { at: now, clientId: r.clientId, platform: r.platform, remoteIp: r.remoteIp })
    while (this.rejectedAt.size > MAX_REJECTED) this.rejectedAt.delete(this.rejectedAt.keys().next().value!)
    return r
  }

  /** How much longer a device whose request was rejected is refused (ms); 0 when it may ask again. */
  rejectedFor(deviceId: string, now: number): number {
    const at = this.rejectedAt.get(deviceId)?.at
    if (at === undefined) return 0
    const left = at + this.rejectionMs - now
    if (left > 0) return left
    this.rejectedAt.delete(deviceId)
    return 0
  }

  /**
   * Drops a device's request and any rejection (device.pair.remove): `dropped` is the live request that
   * went (its approvers are to be told), `lifted` whether a rejection still in force went, so the device
   * may ask again now.
   */
  forgetDevice(deviceId: string, now: number): { dropped?: PairingRequest; lifted: boolean } {
    this.expire(now)
    let dropped: PairingRequest | undefined
    for (const r of this.byId.values()) {
      if (r.deviceId !== deviceId) continue
      this.byId.delete(r.requestId)
      dropped = r // one request per device (request())
    }
    const lifted = this.liftRejection(deviceId, now)
    return { ...(dropped ? { dropped } : {}), lifted }
  }

  /** Forgets a device's rejection only; true when one was still in force. */
  liftRejection(deviceId: string, now: number): boolean {
    const lifted = this.rejectedFor(deviceId, now) > 0
    this.rejectedAt.delete(deviceId)
    return lifted
  }

  /** The devices refused for now because their request was rejected, latest rejection first. */
  rejections(now: number): RejectedDeviceInfo[] {
    this.expireRejections(now)
    return [...this.rejectedAt]
      .map(([deviceId, r]) => ({
        deviceId,
        rejectedAtMs: r.at,
        untilMs: r.at + this.rejectionMs,
        clientId: r.clientId,
        ...(r.platform ? { platform: r.platform } : {}),
        remoteIp: r.remoteIp,
      }))
      .reverse()
  }

  list(now: number): PairingRequest[] {
    this.expire(now)
    return [...this.byId.values()].sort((a, b) => b.ts - a.ts)
  }

  private expire(now: number) {
    for (const r of this.byId.values()) if (now - r.ts > this.ttlMs) this.byId.delete(r.requestId)
  }

  /** rejectedAt is in time order: lapsed rejections are at its front */
  private expireRejections(now: number) {
    for (const [deviceId, { at }] of this.rejectedAt) {
      if (now - at < this.rejectionMs) break
      this.rejectedAt.delete(deviceId)
    }
  }
}
