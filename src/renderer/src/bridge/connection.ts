// Bridges with a connection of their own (the WebSocket bridge) report its state; IPC has none.
import type { Bridge } from '../../../shared/bridge'
import { PAIRING_REJECTED_REASON, PAIRING_REJECTION_MS } from '../../../shared/pairing'

/** Connection status of bridges that have one (the WebSocket bridge reconnects on its own). */
export interface ConnectionAware {
  readonly connection: { state: string; error?: { message: string; details?: unknown } }
  onConnectionChange(listener: (s: { state: string; error?: { message: string; details?: unknown } }) => void): () => void
}

/** Connect failures that mean the credentials this page holds are no longer good (token rotated). */
export const TOKEN_CHANGED_CODES: ReadonlySet<string> = new Set(['AUTH_TOKEN_MISSING', 'AUTH_TOKEN_MISMATCH', 'AUTH_DEVICE_TOKEN_MISMATCH'])

/** The gateway refused this page's token (and device token): a new link is needed. */
export function isTokenChanged(error: { details?: unknown } | undefined): boolean {
  const code = (error?.details as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && TOKEN_CHANGED_CODES.has(code)
}

export function isConnectionAware(b: Bridge): b is Bridge & ConnectionAware {
  return typeof (b as Partial<ConnectionAware>).onConnectionChange === 'function'
}

/**
 * A refusal because the gateway does not know this browser (PAIRING_REQUIRED): the request to approve — or,
 * with `details.reason: 'rejected'`, that its request was rejected lately (no request then; `rejectedForMs`
 * is how long the gateway refuses it before it may ask again).
 */
export interface PairingRefusal {
  requestId?: string
  deviceId?: string
  message: string
  rejectedForMs?: number
}

export function pairingRequiredOf(error: { message: string; details?: unknown } | undefined): PairingRefusal | undefined {
  const d = error?.details as { code?: unknown; requestId?: unknown; deviceId?: unknown; reason?: unknown; retryAfterMs?: unknown } | undefined
  if (d?.code !== 'PAIRING_REQUIRED') return undefined
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined)
  const refusal: PairingRefusal = { requestId: str(d.requestId), deviceId: str(d.deviceId), message: error!.message }
  if (d.reason === PAIRING_REJECTED_REASON) {
    refusal.rejectedForMs = typeof d.retryAfterMs === 'number' && Number.isFinite(d.retryAfterMs) && d.retryAfterMs >= 0 ? Math.min(d.retryAfterMs, PAIRING_REJECTION_MS) : PAIRING_REJECTION_MS
  }
  return refusal
}
