// The gateway's device pairing: list / approve / reject / remove over the paired devices (paired-devices.ts)
// and the remote devices' requests (pending-pairings.ts), and the device.pair.requested / resolved events
// (and Loopdesk's loopdesk.device.pair.rejectionLifted).
// One object serves both ways in: the gateway's device.pair.* methods (device-pair-methods.ts) and the
// desktop window's IPC (GatewayHandle.pairing → src/main/shell/ipc.ts). Params arrive unchecked from
// either and are checked here against the same closed schemas, so the two cannot drift.
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import { schemaProblem, type Validator } from '../api/dispatch'
import type { DevicePairResolved } from '../../shared/events'
import type { ErrorShape, Result } from '../../shared/methods'
import {
  PAIRING_REJECTION_NOT_FOUND,
  PAIRING_REQUEST_NOT_FOUND,
  REJECTION_LIFTED_EVENT,
  type PairingLiftRejectionResult,
  type PairingApproveResult,
  type PairingEvent,
  type PairingListResult,
  type PairingRejectResult,
  type PairingRemoveResult,
} from '../../shared/pairing'
import type { PairedDevices } from './paired-devices'
import type { PairingRequest, PendingPairings } from './pending-pairings'

const ListParams = Compile(Type.Object({}, { additionalProperties: false }))
const RemoveParams = Compile(Type.Object({ deviceId: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))
const DecisionParams = Compile(Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))

/** A refused device method: INVALID_REQUEST, with OpenClaw's detail code when there is one. */
export const pairingError = (message: string, code?: string): Result<never> => ({
  ok: false,
  error: (code ? { code: 'INVALID_REQUEST', message, details: { code } } : { code: 'INVALID_REQUEST', message }) satisfies ErrorShape,
})

/** Params that fail the method's schema, worded like every other method ("invalid X params: /requestId: must be string"). */
const badParams = (method: string, v: Validator, params: unknown): Result<never> =>
  pairingError(`invalid ${method} params: ${schemaProblem(v, params) ?? 'invalid params'}`)

/** Absent params are {} (as in dispatch); null and other non-objects are refused by the schema. */
const orEmpty = (params: unknown): unknown => (params === undefined ? {} : params)

/** What the desktop shell may do with pairing (the IPC handlers call exactly these). */
export interface PairingApi {
  list(params: unknown): Result<PairingListResult>
  approve(params: unknown): Result<PairingApproveResult>
  reject(params: unknown): Result<PairingRejectResult>
  liftRejection(params: unknown): Result<PairingLiftRejectionResult>
  /** device.pair.requested / resolved, loopdesk.device.pair.rejectionLifted; returns the unsubscribe function */
  subscribe(listener: (ev: PairingEvent) => void): () => void
}

export interface DevicePairingDeps {
  paired: PairedDevices
  pending: PendingPairings
  /** device ids with an open connection (device.pair.list's `connected`) */
  connectedDevices: () => Iterable<string>
  now?: () => number
}

export class DevicePairing implements PairingApi {
  private listeners = new Set<(ev: PairingEvent) => void>()
  private readonly now: () => number

  constructor(private readonly deps: DevicePairingDeps) {
    this.now = deps.now ?? Date.now
  }

  get pending(): PendingPairings {
    return this.deps.pending
  }

  subscribe(listener: (ev: PairingEvent) => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  private emit(ev: PairingEvent) {
    for (const l of [...this.listeners]) {
      try {
        l(ev)
      } catch {
        // one broken listener (a closed window) must not keep the others from hearing it
      }
    }
  }

  /** A connect opened a new request (handshake.ts): tell the approvers. */
  requested(request: PairingRequest) {
    this.emit({ event: 'device.pair.requested', payload: request })
  }

  list(raw: unknown): Result<PairingListResult> {
    const params = orEmpty(raw)
    if (!ListParams.Check(params)) return badParams('device.pair.list', ListParams, params)
    const online = new Set(this.deps.connectedDevices())
    const paired = this.deps.paired.list().map((d) => ({
      deviceId: d.deviceId,
      publicKey: d.publicKey,
      clientId: d.clientId,
      createdAtMs: d.pairedAt,
      approvedAtMs: d.pairedAt,
      lastSeenAtMs: d.lastSeenAt,
      connected: online.has(d.deviceId),
      roles: d.tokens.map((t) => t.role),
      tokens: d.tokens.map((t) => ({ role: t.role, scopes: t.scopes, createdAtMs: t.issuedAtMs })),
    }))
    const now = this.now()
    const isPaired = new Set(paired.map((d) => d.deviceId))
    const loopdeskRejected = this.deps.pending.rejections(now).filter((r) => !isPaired.has(r.deviceId))
    return { ok: true, data: { pending: this.deps.pending.list(now), paired, loopdeskRejected } }
  }

  approve(raw: unknown): Result<PairingApproveResult> {
    const taken = this.take('device.pair.approve', raw)
    if (!taken.ok) return taken
    const r = taken.data
    const now = this.now()
    this.deps.paired.pair(r.deviceId, r.publicKey, r.clientId, now)
    this.resolved(r, 'approved', now)
    const device = { deviceId: r.deviceId, publicKey: r.publicKey, clientId: r.clientId, platform: r.platform, roles: [r.role], scopes: r.scopes, createdAtMs: now, approvedAtMs: now }
    return { ok: true, data: { requestId: r.requestId, device } }
  }

  /** Drops the request; its device is refused for a while without a new request (pending-pairings.ts). */
  reject(raw: unknown): Result<PairingRejectResult> {
    const taken = this.take('device.pair.reject', raw, 'reject')
    if (!taken.ok) return taken
    this.resolved(taken.data, 'rejected', this.now())
    return { ok: true, data: { requestId: taken.data.requestId, deviceId: taken.data.deviceId } }
  }

  /**
   * Forgets a device: a paired one and its tokens (the caller closes its connections), its open request,
   * and a rejection still in force — lifted early, the device may ask again on its next connect. A dropped
   * request is answered `device.pair.resolved` "rejected" (OpenClaw's clients know approved and rejected
   * only; not approved is what it is), so every prompt lets its card go; no rejection is remembered.
   */
  remove(raw: unknown): Result<PairingRemoveResult> {
    const params = orEmpty(raw)
    if (!RemoveParams.Check(params)) return badParams('device.pair.remove', RemoveParams, params)
    const deviceId = params.deviceId.toLowerCase()
    const now = this.now()
    const { dropped, lifted } = this.deps.pending.forgetDevice(deviceId, now)
    const removed = this.deps.paired.remove(deviceId)
    if (!removed && !lifted && !dropped) {
      return pairingError(`device ${deviceId.slice(0, 64)} is not paired (nor asking to pair, nor rejected lately)`, 'DEVICE_NOT_PAIRED')
    }
    if (dropped) this.resolved(dropped, 'rejected', now)
    if (lifted) this.rejectionLifted(deviceId, now)
    return {
      ok: true,
      data: {
        ok: true,
        deviceId,
        removed: true,
        ...(lifted ? { loopdeskRejectionLifted: true as const } : {}),
        ...(dropped ? { loopdeskRequestDropped: dropped.requestId } : {}),
      },
    }
  }

  /**
   * A device connected from this machine, which pairs it (handshake.ts): a request it left from elsewhere is
   * answered "approved" and a rejection of it lifted, so no prompt keeps a card or a "Recently rejected" line
   * for a device that is paired now.
   */
  pairedOnLoopback(deviceId: string): void {
    const now = this.now()
    const { dropped, lifted } = this.deps.pending.forgetDevice(deviceId, now)
    if (dropped) this.resolved(dropped, 'approved', now)
    if (lifted) this.rejectionLifted(deviceId, now)
  }

  /** A rejected device may ask again now: only its rejection goes (not a pairing, not a request). */
  liftRejection(raw: unknown): Result<PairingLiftRejectionResult> {
    const params = orEmpty(raw)
    if (!RemoveParams.Check(params)) return badParams('loopdesk.device.pair.liftRejection', RemoveParams, params)
    const deviceId = params.deviceId.toLowerCase()
    const now = this.now()
    if (!this.deps.pending.liftRejection(deviceId, now)) {
      return pairingError(`device ${deviceId.slice(0, 64)} is not refused (never rejected, already lifted, or its time is up)`, PAIRING_REJECTION_NOT_FOUND)
    }
    this.rejectionLifted(deviceId, now)
    return { ok: true, data: { deviceId, lifted: true } }
  }

  private take(method: string, raw: unknown, how: 'take' | 'reject' = 'take'): Result<PairingRequest> {
    const params = orEmpty(raw)
    if (!DecisionParams.Check(params)) return badParams(method, DecisionParams, params)
    const r = how === 'reject' ? this.deps.pending.reject(params.requestId, this.now()) : this.deps.pending.take(params.requestId, this.now())
    if (!r) {
      return pairingError(
        `unknown pairing request: ${params.requestId.slice(0, 64)} (answered or expired; the device asks again when it reconnects)`,
        PAIRING_REQUEST_NOT_FOUND,
      )
    }
    return { ok: true, data: r }
  }

  private resolved(r: PairingRequest, decision: DevicePairResolved['decision'], now: number) {
    this.emit({ event: 'device.pair.resolved', payload: { requestId: r.requestId, deviceId: r.deviceId, decision, ts: now } })
  }

  /** other windows drop the device's "Recently rejected" line (the one that lifted it knows already) */
  private rejectionLifted(deviceId: string, now: number) {
    this.emit({ event: REJECTION_LIFTED_EVENT, payload: { deviceId, ts: now } })
  }
}
