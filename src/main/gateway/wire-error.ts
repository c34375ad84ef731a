// OpenClaw clients know a fixed set of error codes (reference §1: NOT_LINKED, NOT_PAIRED, AGENT_TIMEOUT,
// INVALID_REQUEST, APPROVAL_NOT_FOUND, UNAVAILABLE; FORBIDDEN from v4). The runtime's own finer codes
// (NOT_FOUND, CONFLICT, STORAGE_ERROR: the window's IPC path keeps them) go out on the wire as the
// OpenClaw code a client can act on, the finer one kept in `details.code`.
import type { ErrorShape } from '../../shared/methods'

const WIRE_CODE: Partial<Record<string, 'INVALID_REQUEST' | 'UNAVAILABLE'>> = {
  NOT_FOUND: 'INVALID_REQUEST',
  CONFLICT: 'INVALID_REQUEST',
  STORAGE_ERROR: 'UNAVAILABLE',
}

export function wireError(e: ErrorShape): ErrorShape {
  const code = WIRE_CODE[e.code]
  if (!code) return e
  const details = e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : {}
  return { ...e, code: code as ErrorShape['code'], details: { code: e.code, ...details } }
}
