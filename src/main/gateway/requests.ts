// Handling of request frames after hello-ok: frame validation, scope checks, dispatch through the
// method table, and the two-response `agent` method.
import { dispatch, isMethodName, validateParams } from '../api/dispatch'
import type { RuntimeHost } from '../api/host'
import type { AgentFinal, ErrorShape, MethodName, Result } from '../../shared/methods'
import { AgentDedupe, type CachedResponse } from './agent-dedupe'
import type { GatewayConnection } from './connection'
import { CLOSE, SCOPES, checkRequestFrame, type RequestFrame, type Scope } from './protocol'
import { CONTROL_PLANE_WRITE_METHODS, type SlidingWindowLimiter } from './rate-limit'
import { RUN_STARTING_METHODS, RunOwners } from './run-owners'
import { wireError } from './wire-error'
import { nestingProblem } from '../../shared/nesting-limit'
import { METHOD_SCOPES, hasScope, paramScope } from './scopes'

/** A method the gateway answers itself (its own state, e.g. device tokens), outside the runtime's table. */
export interface LocalMethod {
  scope: Scope
  handle(conn: GatewayConnection, params: unknown): CachedResponse | Promise<CachedResponse>
}

/** Routing side effects around runtime methods (who gets which events, decorated results). */
export interface RequestHooks {
  /** before the handler runs */
  before?(conn: GatewayConnection, method: MethodName, params: unknown): void
  /** after the handler answered, before the response goes out; returns the result to send */
  after?(conn: GatewayConnection, method: MethodName, params: unknown, res: Result<unknown>): Result<unknown>
  /** after the response went out, with the handler's own result (before `after` reshaped it) and the one sent */
  sent?(conn: GatewayConnection, method: MethodName, params: unknown, res: Result<unknown>, answered: Result<unknown>): void
}

export interface RequestContext {
  host: RuntimeHost
  dedupe: AgentDedupe
  maxUnauthorizedStreak: number
  log: (level: 'debug' | 'warn' | 'error', msg: string) => void
  local?: Readonly<Record<string, LocalMethod>>
  hooks?: RequestHooks
  /** a reason while the gateway cannot take requests (shutting down), else undefined */
  unavailable?: () => string | undefined
  /** control-plane write limiter (config.patch …), keyed by device or connection */
  writeLimiter?: SlidingWindowLimiter
  /** who started which run: connections without operator.admin stop only their own */
  runOwners: RunOwners
}

/** sessions.messages.subscribe keys one connection may hold */
export const MAX_MESSAGE_SUBSCRIPTIONS = 256
/**
 * agent.wait requests one connection may have pending (each holds a timer and a waiter for up to a day): a
 * client sending waits it never needs answered grew the gateway ~3 KB a wait without end
 */
export const MAX_PENDING_WAITS = 1024

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
  // every method's params, the gateway's own included, before a handler walks them (see nesting-limit.ts)
  const deep = nestingProblem((value as RequestFrame).params)
  if (deep) {
    conn.respond(frameId(value), invalidRequest(`invalid ${(value as RequestFrame).method} params: ${deep}`, { code: 'TOO_DEEP' }))
    return undefined
  }
  return value as RequestFrame
}

/**
 * OpenClaw's order (§1.5): role/scope → unavailable → control-plane rate limit → handler lookup.
 * A method nobody classified needs admin, so a lesser client learns nothing about which names exist.
 */
export async function handleRequest(ctx: RequestContext, conn: GatewayConnection, req: RequestFrame, acked?: number): Promise<void> {
  const { id, method } = req
  if (method === 'connect') {
    conn.respond(id, invalidRequest('connect is only valid as the first request'))
    return
  }
  // the socket thread acked it, having made the checks below itself (socket-thread-protocol.ts)
  if (acked !== undefined && method === 'agent') return handleAgent(ctx, conn, id, req.params, acked)
  const local = ctx.local && Object.prototype.hasOwnProperty.call(ctx.local, method) ? ctx.local[method] : undefined
  const known = local !== undefined || isMethodName(method)
  const required: Scope | null = local ? local.scope : isMethodName(method) ? METHOD_SCOPES[method] : SCOPES.admin
  if (!hasScope(conn.scopes, required)) {
    conn.respond(id, missingScope(conn, required!))
    conn.unauthorizedStreak++
    if (conn.unauthorizedStreak >= ctx.maxUnauthorizedStreak) conn.close(CLOSE.policy, 'repeated unauthorized calls')
    return
  }
  conn.unauthorizedStreak = 0

  const down = ctx.unavailable?.()
  if (down) {
    conn.respond(id, { ok: false, error: { code: 'UNAVAILABLE', message: down, retryable: true, retryAfterMs: 500 } })
    return
  }

  let slot: { release(): void } | undefined
  if (ctx.writeLimiter && CONTROL_PLANE_WRITE_METHODS.has(method)) {
    const decision = ctx.writeLimiter.take(conn.deviceId ? `device:${conn.deviceId}` : `conn:${conn.id}`, Date.now())
    if (!decision.ok) {
      const secs = Math.ceil(decision.retryAfterMs / 1000)
      conn.respond(id, {
        ok: false,
        error: {
          code: 'UNAVAILABLE',
          message: `rate limit exceeded for ${method.slice(0, 100)}: too many configuration writes, retry in ${secs} s`,
          details: { code: 'RATE_LIMITED', method: method.slice(0, 100) },
          retryable: true,
          retryAfterMs: decision.retryAfterMs,
        },
      })
      return
    }
    slot = decision
  }

  if (!known) {
    slot?.release()
    conn.respond(id, invalidRequest(`unknown method: ${method.slice(0, 200)}`))
    return
  }
  if (local) {
    const out = await local.handle(conn, req.params)
    if (!out.ok) slot?.release()
    conn.respond(id, out)
    return
  }
  const name = method as MethodName
  // params that need more than the method's scope (scopes.ts): refused before anything runs
  const extra = paramScope(name, req.params)
  if (extra && !hasScope(conn.scopes, extra.scope)) {
    slot?.release()
    conn.respond(id, extra.message ? invalidRequest(extra.message, missingScopeDetails(extra.scope)) : missingScope(conn, extra.scope))
    return
  }
  if (name === 'agent') return handleAgent(ctx, conn, id, req.params)

  const isWait = name === 'agent.wait'
  if (isWait && conn.pendingWaits >= MAX_PENDING_WAITS) {
    conn.respond(id, {
      ok: false,
      error: { code: 'INVALID_REQUEST', message: `too many agent.wait requests pending on this connection (max ${MAX_PENDING_WAITS})`, details: { code: 'TOO_MANY_WAITS' } },
    })
    return
  }
  ctx.hooks?.before?.(conn, name, req.params)
  if (isWait) conn.pendingWaits++
  let res: Result<unknown>
  // a replay (a key already seen, a run already in flight) started nothing: its caller does not own the run
  let replayed = false
  try {
    res = await dispatch(ctx.host.handlers, name, req.params, { ...ctx.runOwners.callContext(conn), replayed: () => void (replayed = true) })
  } finally {
    if (isWait) conn.pendingWaits--
  }
  // a refused write changed nothing: it does not count against the limit
  if (!res.ok) slot?.release()
  if (res.ok && RUN_STARTING_METHODS.has(name) && !replayed) ctx.runOwners.record((res.data as { runId?: unknown }).runId, conn)
  if (res.ok && name === 'sessions.subscribe') conn.sessionsSubscribed = true
  if (res.ok && name === 'sessions.unsubscribe') conn.sessionsSubscribed = false
  if (res.ok && name === 'sessions.messages.subscribe') {
    // bounded: each key costs a set entry per connection
    const key = (res.data as { key: string }).key
    if (!conn.messageSubs.has(key) && conn.messageSubs.size >= MAX_MESSAGE_SUBSCRIPTIONS) {
      slot?.release()
      res = { ok: false, error: { code: 'INVALID_REQUEST', message: `too many sessions.messages subscriptions (max ${MAX_MESSAGE_SUBSCRIPTIONS})` } }
    } else {
      conn.messageSubs.add(key)
      // an upgrade only: a later plain subscribe keeps the approval feed (unsubscribe ends both)
      if ((res.data as { approvalReplay?: unknown }).approvalReplay) conn.approvalSubs.add(key)
    }
  }
  if (res.ok && name === 'sessions.messages.unsubscribe') {
    const key = (res.data as { key: string }).key
    conn.messageSubs.delete(key)
    conn.approvalSubs.delete(key)
  }
  const handled = res
  if (ctx.hooks?.after) res = ctx.hooks.after(conn, name, req.params, res)
  conn.respond(id, res.ok ? { ok: true, payload: res.data } : { ok: false, error: forProtocol(conn, wireError(res.error)) })
  ctx.hooks?.sent?.(conn, name, req.params, handled, res)
}

/** v3 clients do not know FORBIDDEN (a handler's missing-scope refusal): the same message and details as INVALID_REQUEST */
const forProtocol = (conn: GatewayConnection, e: ErrorShape): ErrorShape => (e.code === 'FORBIDDEN' && conn.protocol < 4 ? { ...e, code: 'INVALID_REQUEST' } : e)

const missingScopeDetails = (required: Scope) => ({ code: 'MISSING_SCOPE', missingScope: required, requiredScopes: [required] })

/** v4 introduced FORBIDDEN for authz failures; v3 clients only know INVALID_REQUEST (same message and details). */
function missingScope(conn: GatewayConnection, required: Scope): CachedResponse {
  return {
    ok: false,
    error: {
      code: conn.protocol >= 4 ? 'FORBIDDEN' : 'INVALID_REQUEST',
      message: `missing scope: ${required}`,
      details: missingScopeDetails(required),
    },
  }
}

function finalResponse(final: AgentFinal): CachedResponse {
  if (final.status === 'ok') {
    return { ok: true, payload: { runId: final.runId, status: 'ok', summary: final.summary || 'completed', result: final.result } }
  }
  const summary = final.summary || 'agent run failed'
  return { ok: false, payload: { runId: final.runId, status: 'error', summary }, error: { code: 'UNAVAILABLE', message: summary } }
}

const isAck = (r: CachedResponse) => r.ok && (r.payload as { status?: unknown } | undefined)?.status === 'accepted'

/** A refusal of a request the socket thread already acked: the run's final, an error (as a failed run's). */
const refusedAfterAck = (runId: string, error: ErrorShape): CachedResponse => ({ ok: false, payload: { runId, status: 'error', summary: error.message }, error })

/**
 * `agent`: the first `res` is the accepted ack; a second `res` with the same id carries the final.
 * Retries with the same idempotencyKey get the ack only while the run is in flight, or the cached final.
 * `acked`: the socket thread sent the ack already (it never does for a key it saw before); what is refused
 * here then ends the run with an error in the second `res`.
 */
async function handleAgent(ctx: RequestContext, conn: GatewayConnection, id: string, params: unknown, acked?: number): Promise<void> {
  const p = params === undefined ? {} : params
  const problem = validateParams('agent', p)
  if (problem) {
    conn.respond(id, invalidRequest(`invalid agent params: ${problem}`))
    return
  }
  // also for a retry of a run already in flight (e.g. after a reconnect): the caller wants its events
  ctx.hooks?.before?.(conn, 'agent', p)
  const key = (p as { idempotencyKey: string }).idempotencyKey
  if (acked !== undefined) {
    const down = ctx.unavailable?.()
    if (down) {
      conn.respond(id, refusedAfterAck(key, { code: 'UNAVAILABLE', message: down, retryable: true, retryAfterMs: 500 }))
      return
    }
  }
  let claim = ctx.dedupe.claim(key, Date.now())
  while (claim.kind === 'existing') {
    const cached = await claim.response
    if (cached) {
      // a run in flight answers a retry with its ack only: one the socket thread acked has had it (a key it forgot,
      // its run going on past twice the dedupe's TTL) — a second `accepted` would read as its final
      if (!(acked !== undefined && isAck(cached))) conn.respond(id, cached)
      return
    }
    claim = ctx.dedupe.claim(key, Date.now())
  }
  const pending = claim
  let replayed = false
  const res = await dispatch(ctx.host.handlers, 'agent' as MethodName, p, {
    ...ctx.runOwners.callContext(conn),
    replayed: () => void (replayed = true),
    ...(acked !== undefined ? { ackedAt: acked } : {}),
  })
  if (!res.ok) {
    pending.failed()
    conn.respond(id, acked === undefined ? { ok: false, error: wireError(res.error) } : refusedAfterAck(key, wireError(res.error)))
    return
  }
  const ack: CachedResponse = { ok: true, payload: res.data }
  pending.accepted(ack)
  if (acked === undefined) conn.respond(id, ack)

  const runId = (res.data as { runId: string }).runId
  // a key of a run the runtime already has (a chat.send's, the window's): that run is not this caller's
  if (!replayed) ctx.runOwners.record(runId, conn)
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
