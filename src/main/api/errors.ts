import type { ErrorCode, ErrorShape } from '../../shared/methods'

/** An error that crosses the API boundary as a structured `{ code, message }`. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly retryable?: boolean,
  ) {
    super(message)
    this.name = 'ApiError'
  }
  toShape(): ErrorShape {
    const shape: ErrorShape = { code: this.code, message: this.message }
    if (this.details !== undefined) shape.details = this.details
    if (this.retryable !== undefined) shape.retryable = this.retryable
    return shape
  }
}

/**
 * OpenClaw's missing-scope refusal from inside a handler (the gateway answers a v3 client's FORBIDDEN as
 * INVALID_REQUEST, as its own scope check does)
 */
export const missingScopeError = (scope: string) =>
  new ApiError('FORBIDDEN', `missing scope: ${scope}`, { code: 'MISSING_SCOPE', missingScope: scope, requiredScopes: [scope] })

export const invalid = (message: string, details?: unknown) => new ApiError('INVALID_REQUEST', message, details)

/** Maps anything thrown by a handler to an ErrorShape without leaking stack traces. */
export function toErrorShape(err: unknown): ErrorShape {
  if (err instanceof ApiError) return err.toShape()
  const e = err as NodeJS.ErrnoException
  if (e && typeof e.code === 'string' && /^(EACCES|EROFS|ENOSPC|EPERM|EDQUOT|EMFILE)$/.test(e.code)) {
    return { code: 'STORAGE_ERROR', message: `storage error (${e.code}): ${e.message}` }
  }
  return { code: 'UNAVAILABLE', message: e instanceof Error ? e.message : String(err) }
}
