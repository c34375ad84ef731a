// Device pairing from the window: the Bridge's small pairing surface. Pairing requests are the gateway's
// own state (src/main/gateway/device-pairing.ts), not the runtime's, so they are not in the method table
// (which the runtime implements as Handlers): the WebSocket bridge calls the gateway's device.pair.*
// methods, the IPC bridge reaches the same gateway object in the main process. Both return these types.
import type { DevicePairRequested, DevicePairResolved } from './events'
import type { Result } from './methods'

/** A request nobody answered (or re-asked for) is gone after this long. */
export const PAIRING_REQUEST_TTL_MS = 5 * 60_000

/**
 * A device whose request was rejected is refused this long (NOT_PAIRED / PAIRING_REQUIRED with
 * `details.reason: 'rejected'` and `details.retryAfterMs`) without a new request, so a client that keeps
 * retrying does not ask again at once; afterwards its next connect opens a new request.
 */
export const PAIRING_REJECTION_MS = 10 * 60_000

/** `details.reason` of a connect refused because this device's pairing request was rejected lately. */
export const PAIRING_REJECTED_REASON = 'rejected'

/** device.pair.approve / device.pair.reject params */
export interface PairingDecisionParams {
  requestId: string
}

/** A paired device as device.pair.list shows it (never a token or its hash). */
export interface PairedDeviceInfo {
  deviceId: string
  publicKey: string
  clientId: string
  createdAtMs: number
  approvedAtMs: number
  /** refreshed at most hourly */
  lastSeenAtMs: number
  connected: boolean
  roles: string[]
  tokens: Array<{ role: string; scopes: string[]; createdAtMs: number }>
}

/**
 * A device refused for now because its pairing request was rejected (PAIRING_REJECTION_MS after it).
 * `device.pair.remove {deviceId}` lifts it: the device may ask again at once.
 */
export interface RejectedDeviceInfo {
  deviceId: string
  rejectedAtMs: number
  /** when its connects open a request again */
  untilMs: number
  /** what the rejected request said */
  clientId?: string
  platform?: string
  remoteIp?: string
}

export interface PairingListResult {
  /** newest first */
  pending: DevicePairRequested[]
  paired: PairedDeviceInfo[]
  /**
   * Loopdesk's own (OpenClaw's result has pending and paired only, hence the prefix): the rejected devices
   * still refused, latest rejection first; a paired device is never listed (a rejection does not stand against it).
   */
  loopdeskRejected: RejectedDeviceInfo[]
}

export interface PairingApproveResult {
  requestId: string
  device: {
    deviceId: string
    publicKey: string
    clientId: string
    platform?: string
    roles: string[]
    scopes: string[]
    createdAtMs: number
    approvedAtMs: number
  }
}

export interface PairingRejectResult {
  requestId: string
  deviceId: string
}

/** device.pair.remove params */
export interface PairingRemoveParams {
  deviceId: string
}

/**
 * device.pair.remove: `removed` as in OpenClaw; Loopdesk's own: `loopdeskRejectionLifted` when a rejection
 * still in force was forgotten — the device may ask to pair again now — and `loopdeskRequestDropped` (its
 * request id) when the device's pending request went (answered `device.pair.resolved` "rejected").
 */
export interface PairingRemoveResult {
  ok: true
  deviceId: string
  removed: true
  loopdeskRejectionLifted?: true
  loopdeskRequestDropped?: string
}

/** loopdesk.device.pair.liftRejection params and result (Loopdesk's own method: the window's "Allow to ask again"). */
export interface PairingLiftRejectionParams {
  deviceId: string
}
export interface PairingLiftRejectionResult {
  deviceId: string
  lifted: true
}

/** `details.code` of a liftRejection for a device that is not refused (never rejected, lifted elsewhere, or lapsed). */
export const PAIRING_REJECTION_NOT_FOUND = 'PAIRING_REJECTION_NOT_FOUND'

/** Bridge call name → gateway method. The IPC channels are `loopdesk:<call name>`, as for the method table's. */
export const PAIRING_CALLS = {
  pairingList: 'device.pair.list',
  pairingApprove: 'device.pair.approve',
  pairingReject: 'device.pair.reject',
  pairingLiftRejection: 'loopdesk.device.pair.liftRejection',
} as const
export type PairingCallName = keyof typeof PAIRING_CALLS
export const PAIRING_CALL_NAMES = Object.keys(PAIRING_CALLS) as PairingCallName[]

/**
 * Loopdesk's own event (OpenClaw has no rejections to lift): a device's rejection was lifted — by
 * loopdesk.device.pair.liftRejection or device.pair.remove, from any window or the CLI — so every
 * window drops its "Recently rejected" line. Guarded like the pair events (operator.pairing); sent
 * without a frame `seq`, so the numbering OpenClaw clients follow is the same as without it.
 */
export const REJECTION_LIFTED_EVENT = 'loopdesk.device.pair.rejectionLifted'
export interface PairingRejectionLifted {
  deviceId: string
  ts: number
}

export type PairingEvent =
  | { event: 'device.pair.requested'; payload: DevicePairRequested }
  | { event: 'device.pair.resolved'; payload: DevicePairResolved }
  | { event: typeof REJECTION_LIFTED_EVENT; payload: PairingRejectionLifted }
export type PairingEventName = PairingEvent['event']
export const PAIRING_EVENT_NAMES: readonly PairingEventName[] = ['device.pair.requested', 'device.pair.resolved', REJECTION_LIFTED_EVENT]

export const isPairingEventName = (name: unknown): name is PairingEventName => (PAIRING_EVENT_NAMES as readonly unknown[]).includes(name)

/** `details.code` of an approve/reject whose request is no longer pending (answered elsewhere, or expired). */
export const PAIRING_REQUEST_NOT_FOUND = 'PAIRING_REQUEST_NOT_FOUND'

export interface PairingBridge {
  pairingList(params: Record<string, never>): Promise<Result<PairingListResult>>
  pairingApprove(params: PairingDecisionParams): Promise<Result<PairingApproveResult>>
  pairingReject(params: PairingDecisionParams): Promise<Result<PairingRejectResult>>
  /** a rejected device may ask again now (device.pair.remove lifts it too, and forgets a paired device) */
  pairingLiftRejection(params: PairingLiftRejectionParams): Promise<Result<PairingLiftRejectionResult>>
  /** device.pair.requested / resolved and loopdesk.device.pair.rejectionLifted as they happen; returns the unsubscribe function */
  subscribePairing(listener: (event: PairingEvent) => void): () => void
}

/** The command that approves a request on the gateway's machine. */
export const approveCommand = (requestId: string) => `loopdesk devices approve ${requestId}`

/** A device id's short form for people (ids are 64 hex chars). */
export const shortDeviceId = (deviceId: string) => (deviceId.length > 12 ? `${deviceId.slice(0, 12)}…` : deviceId)
