// OpenClaw clients know a fixed set of error codes (reference §1: NOT_LINKED, NOT_PAIRED, AGENT_TIMEOUT,
// INVALID_REQUEST, APPROVAL_NOT_FOUND, UNAVAILABLE; FORBIDDEN from v4). The runtime's own finer codes
// (NOT_FOUND, CONFLICT, STORAGE_ERROR: the window's IPC path keeps them) go out on the wire as the
// OpenClaw code a client can act on, the finer one kept in `details.code`. An approval that no longer
// waits is answered as OpenClaw's own approval handlers answer it: INVALID_REQUEST with
// `details.reason: APPROVAL_NOT_FOUND` (its clients test that reason; the top-level code is the generic one).
import type { ErrorShape } from '../../shared/methods'

const WIRE_CODE: Partial<Record<string, 'INVALID_REQUEST' | 'UNAVAILABLE'>> = {
  NOT_FOUND: 'INVALID_REQUEST',
  APPROVAL_NOT_FOUND: 'INVALID_REQUEST',
  CONFLICT: 'INVALID_REQUEST',
  STORAGE_ERROR: 'UNAVAILABLE',
}

const detailsOf = (e: ErrorShape): Record<string, unknown> =>
  e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : {}

export function wireError(e: ErrorShape): ErrorShape {
  const reason = e.code === 'APPROVAL_NOT_FOUND' ? { reason: 'APPROVAL_NOT_FOUND' } : {}
  const code = WIRE_CODE[e.code]
  if (!code) return e
  return { ...e, code: code as ErrorShape['code'], details: { code: e.code, ...reason, ...detailsOf(e) } }
}
