// Params OpenClaw added in protocol v4 that its v3 schemas (closed, like ours) do not have. The method table
// has one schema for both versions; a v3 connection that sends one of these is refused the way a v3 gateway
// refuses it, so a v3 client never believes a v4 behaviour (an approval feed, a grant term) was applied.
// (tools.catalog `includePlugins` is in v3's schema too, so it is not listed.)
import type { MethodName } from '../../shared/methods'

const V4_ONLY: Partial<Record<MethodName, readonly string[]>> = {
  'chat.abort': ['preserveSideRuns'],
  'sessions.messages.subscribe': ['includeApprovals'],
  'exec.approval.resolve': ['reviewer', 'grantExpiresInDays'],
}

/** The validation message (dispatch's wording) when a v3 connection sent a v4-only param, else undefined. */
export function v3ParamProblem(method: MethodName, params: unknown): string | undefined {
  const names = V4_ONLY[method]
  if (!names || !params || typeof params !== 'object') return undefined
  const extra = names.filter((n) => Object.prototype.hasOwnProperty.call(params, n))
  return extra.length ? `invalid ${method} params: /: unexpected property ${extra.map((x) => `'${x}'`).join(', ')}` : undefined
}
