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

const detailsOf = (e: ErrorShape): Record<string, unknown> =>
  e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : {}

export function wireError(e: ErrorShape): ErrorShape {
  // OpenClaw's own approval handlers say it in `details.reason` (under INVALID_REQUEST): both, so either reading works
  if (e.code === 'APPROVAL_NOT_FOUND') return { ...e, details: { reason: 'APPROVAL_NOT_FOUND', ...detailsOf(e) } }
  const code = WIRE_CODE[e.code]
  if (!code) return e
  return { ...e, code: code as ErrorShape['code'], details: { code: e.code, ...detailsOf(e) } }
}
