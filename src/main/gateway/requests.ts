// Handling of request frames after hello-ok: frame validation, scope checks, dispatch through the
// method table, and the two-response `agent` method.
import { dispatch, isMethodName, validateParams } from '../api/dispatch'
import type { RuntimeHost } from '../api/host'
import type { AgentFinal, MethodName } from '../../shared/methods'
import { AgentDedupe, type CachedResponse } from './agent-dedupe'
import type { GatewayConnection } from './connection'
import { CLOSE, checkRequestFrame, type RequestFrame } from './protocol'
import { METHOD_SCOPES, hasScope } from './scopes'

export interface RequestContext {
  host: RuntimeHost
  dedupe: AgentDedupe
  maxUnauthorizedStreak: number
  log: (level: 'debug' | 'warn' | 'error', msg: string) => void
}

const invalidRequest = (message: string, details?: unknown): CachedResponse => ({
  ok: false,
  error: details === undefined ? { code: 'INVALID_REQUEST', message } : { code: 'INVALID_REQUEST', message, details },
})

/** Echoable id of a malformed frame, or "invalid" when it has none. */
export function frameId(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id
    if (typeof id === 'string' && id.length > 0 && id.length <= 256) return id
  }
  return 'invalid'
}

/** Parses one text frame into a request, or answers it with a structured error. */
export function parseRequest(conn: GatewayConnection, text: string): RequestFrame | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    conn.respond('invalid', invalidRequest('invalid request frame: malformed JSON'))
    return undefined
  }
  const problem = checkRequestFrame(value)
  if (problem) {
    conn.respond(frameId(value), invalidRequest(`invalid request frame: ${problem}`))
    return undefined
  }
  return value as RequestFrame
}

export async function handleRequest(ctx: RequestContext, conn: GatewayConnection, req: RequestFrame): Promise<void> {
  const { id, method } = req
  if (method === 'connect') {
    conn.respond(id, invalidRequest('connect is only valid as the first request'))
    return
  }
  if (!isMethodName(method)) {
    conn.respond(id, invalidRequest(`unknown method: ${method.slice(0, 200)}`))
    return
  }
  const required = METHOD_SCOPES[method]
  if (!hasScope(conn.scopes, required)) {
    conn.respond(id, {
      ok: false,
      error: {
        code: 'FORBIDDEN',
        message: `missing scope: ${required}`,
        details: { code: 'MISSING_SCOPE', missingScope: required, requiredScopes: [required] },
      },
    })
    conn.unauthorizedStreak++
    if (conn.unauthorizedStreak >= ctx.maxUnauthorizedStreak) conn.close(CLOSE.policy, 'repeated unauthorized calls')
    return
  }
  conn.unauthorizedStreak = 0

  if (method === 'agent') return handleAgent(ctx, conn, id, req.params)

  const res = await dispatch(ctx.host.handlers, method, req.params, { transport: 'ws', connId: conn.id })
  if (res.ok && method === 'sessions.subscribe') conn.sessionsSubscribed = true
  conn.respond(id, res.ok ? { ok: true, payload: res.data } : { ok: false, error: res.error })
}

function finalResponse(final: AgentFinal): CachedResponse {
  if (final.status === 'ok') {
    return { ok: true, payload: { runId: final.runId, status: 'ok', summary: final.summary || 'completed', result: final.result } }
  }
  const summary = final.summary || 'agent run failed'
  return { ok: false, payload: { runId: final.runId, status: 'error', summary }, error: { code: 'UNAVAILABLE', message: summary } }
}

/**
 * `agent`: the first `res` is the accepted ack; a second `res` with the same id carries the final.
 * Retries with the same idempotencyKey get the ack only while the run is in flight, or the cached final.
 */
async function handleAgent(ctx: RequestContext, conn: GatewayConnection, id: string, params: unknown): Promise<void> {
  const p = params === undefined ? {} : params
  const problem = validateParams('agent', p)
  if (problem) {
    conn.respond(id, invalidRequest(`invalid agent params: ${problem}`))
    return
  }
  const key = (p as { idempotencyKey: string }).idempotencyKey
  let claim = ctx.dedupe.claim(key, Date.now())
  while (claim.kind === 'existing') {
    const cached = await claim.response
    if (cached) {
      conn.respond(id, cached)
      return
    }
    claim = ctx.dedupe.claim(key, Date.now())
  }
  const pending = claim
  const res = await dispatch(ctx.host.handlers, 'agent' as MethodName, p, { transport: 'ws', connId: conn.id })
  if (!res.ok) {
    pending.failed()
    conn.respond(id, { ok: false, error: res.error })
    return
  }
  const ack: CachedResponse = { ok: true, payload: res.data }
  pending.accepted(ack)
  conn.respond(id, ack)

  const runId = (res.data as { runId: string }).runId
  let final: CachedResponse
  try {
    final = finalResponse(await ctx.host.agentFinal(runId))
  } catch (err) {
    const summary = err instanceof Error ? err.message : String(err)
    final = finalResponse({ runId, status: 'error', summary: summary || 'agent run failed' })
  }
  ctx.dedupe.complete(key, final, Date.now())
  conn.respond(id, final)
}
