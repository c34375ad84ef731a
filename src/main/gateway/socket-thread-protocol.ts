// Messages between the gateway's main thread and its socket thread (the default; socket-thread.ts),
// and the socket thread's own `agent` accept: which frames it may ack before the main thread has seen them.
import { validateParams } from '../api/dispatch'
import { parseCommand } from '../../shared/chat-commands'
import type { ParamsOf } from '../../shared/methods'
import { nestingProblem } from '../../shared/nesting-limit'
import { keyedTargetIn, refuseBlank, refuseUnsupportedAgentParams, rejectControlChars, type AgentDirectory } from '../runtime/agent-request-checks'
import { checkDelivery } from '../runtime/delivery'
import { normalizeThinking } from '../runtime/thinking'
import type { GatewayBind } from './server'
import type { UpgradeInfo } from './gateway-socket'
import { checkRequestFrame, type RequestFrame } from './protocol'
import { METHOD_SCOPES, hasScope, paramScope } from './scopes'

export interface SocketThreadData {
  port: number
  bind: GatewayBind
  fallback: boolean
  staticDir: string | undefined
  preauthMaxPayload: number
  /** the buffered-bytes cap after hello (a ping's pong is not queued past it, as connection.ts answerPing) */
  maxBufferedBytes: number
  dedupeTtlMs: number
  dedupeMax: number
  /** undefined: the host has no config to read, and the worker acks nothing itself */
  view: AcceptView | undefined
}

/**
 * What the worker knows of the runtime's state to accept an `agent` request as the runtime would: the
 * configured agents, and the archived sessions (which take no new work). Kept current by the main thread.
 */
export interface AcceptView extends AgentDirectory {
  archived: string[]
}

/** The view as the worker looks it up. */
export interface AcceptState extends AgentDirectory {
  archived: ReadonlySet<string>
}

export const acceptState = (view: AcceptView): AcceptState => ({ ...view, archived: new Set(view.archived) })

/** main → worker, in one ordered batch per flush (a frame's send before its connection's close) */
export type OutOp =
  | ['send', id: string, text: string]
  | ['close', id: string, code: number, reason: string]
  | ['terminate', id: string]
  /** past hello-ok: its frame-size limit, and its scopes (what the worker's accept checks) */
  | ['hello', id: string, maxPayload: number, scopes: string[]]
  /**
   * a run id the runtime has (any method's, the window's too), ahead of the first frame that names it: an `agent`
   * request reusing it is the runtime's to answer (a replay, or IDEMPOTENCY_KEY_IN_USE), never acked here
   */
  | ['run', runId: string]
  /** a run started: its id is kept however many keys come after it, until it ends (the runtime refuses it meanwhile) */
  | ['live', runId: string]
  /** a run ended: its id is kept as long as the gateway's dedupe keeps a finished run, from now */
  | ['ended', runId: string]

export type ToWorker =
  | { t: 'ops'; ops: OutOp[] }
  /** the main thread's verdict on an upgrade; admitted, the connection exists there already under `id` */
  | { t: 'admit'; uid: number; id?: string; reject?: { status: number; message: string } }
  /** the gateway is shutting down: no more acks from the worker */
  | { t: 'closing' }
  /** the configured agents or the archived sessions changed */
  | { t: 'view'; view: AcceptView }
  /** what the main thread took of each connection's frames since its last report (frameCost each) */
  | { t: 'taken'; conns: Array<[id: string, cost: number]> }
  | { t: 'terminate-all' }
  | { t: 'shutdown' }

export type FromWorker =
  | { t: 'listening'; port: number; fellBack: boolean }
  | { t: 'listen-error'; message: string; portInUse?: { port: number; host: string } }
  | { t: 'upgrade'; uid: number; info: UpgradeInfo }
  /** `acked`: the worker acked this `agent` request at that time (acceptedAt) */
  | { t: 'frame'; id: string; text: string; binary: boolean; acked?: number }
  /** per connection written to in the last batch: its bufferedAmount after it */
  | { t: 'sent'; conns: Array<[id: string, buffered: number]> }
  | { t: 'buffered'; id: string; buffered: number }
  | { t: 'closed'; id: string }
  | { t: 'stopped' }

/**
 * Flow control across the threads: the worker stops reading a socket once the frames it handed the main thread
 * and the main thread has not taken yet cost more than PAUSE_AT, and reads again below RESUME_AT. Without it the
 * worker read as fast as a peer wrote, and a flood queued on the main thread's port without bound (a burst of
 * `agent` requests grew the gateway past 1 GB, and its shutdown waited minutes for the backlog) where the
 * main-thread listener reads only as fast as it handles frames.
 */
export const FLOW = { pauseAt: 1024 * 1024, resumeAt: 256 * 1024 }
/** a frame's cost in that account: its text, and a little per frame (a flood of tiny frames costs too) */
export const frameCost = (text: string) => text.length + 64

/** The `agent` ack the main thread's accept sends (the runtime's answer: runId = idempotencyKey). */
export const workerAck = (id: string, runId: string, acceptedAt: number) =>
  JSON.stringify({ type: 'res', id, ok: true, payload: { runId, status: 'accepted', acceptedAt } })

/**
 * The keys the worker has acked (or seen), kept at least as long as the gateway's dedupe keeps a finished run:
 * a retry of a key seen before is never acked here — the main thread answers it exactly as without the thread.
 */
export class SeenKeys {
  private keys = new Map<string, number>()
  /** keys of runs under way: never pruned (a run can outlast any TTL, and the runtime refuses its key meanwhile) */
  private live = new Set<string>()
  constructor(private readonly ttlMs: number, private readonly max: number) {}

  /** the keys remembered */
  known(): IterableIterator<string> {
    return this.keys.keys()
  }

  /** true the first time a key is seen */
  firstTime(key: string, now: number): boolean {
    if (this.keys.has(key) || this.live.has(key)) return false
    this.keys.set(key, now)
    this.prune(now)
    return true
  }

  private prune(now: number): void {
    for (const [k, ts] of this.keys) {
      // the gateway's dedupe counts a run's TTL from its end: keep twice the TTL and cap, so none is forgotten first
      if (this.keys.size <= this.max * 2 && now - ts <= this.ttlMs * 2) break
      this.keys.delete(k)
    }
  }

  /** a run under way: kept until `ended` (at most twice the cap of them: one that never ends is not kept forever) */
  started(key: string, now: number): void {
    this.keys.delete(key)
    this.live.add(key)
    if (this.live.size <= this.max * 2) return
    const oldest = this.live.values().next().value!
    this.live.delete(oldest)
    this.keys.set(oldest, now)
    this.prune(now)
  }

  /** a run ended: kept for the TTL from now, as the gateway's dedupe keeps a finished run from its end */
  ended(key: string, now: number): void {
    this.live.delete(key)
    this.keys.delete(key)
    this.keys.set(key, now)
    // runs the worker is told only started and ended (no key of theirs seen first) must not grow it either
    this.prune(now)
  }
}

type AckableRequest = RequestFrame & { params: { idempotencyKey: string } }

/**
 * The worker's reading of a text frame past hello, with one JSON parse: `ack`, the `agent` request it may ack
 * itself (fastAckable's checks); else `handedKey`, the idempotencyKey of an `agent` or `chat.send` request it hands
 * over. It remembers that key, so an `agent` request right behind it with the same key (on any connection) is handed
 * over too: the main thread takes the first one first, and answers the second as the runtime does then — a replay,
 * or IDEMPOTENCY_KEY_IN_USE in its first `res` (acked here, it was refused after the ack).
 */
export function readForAccept(text: string, scopes: ReadonlySet<string>, state: AcceptState): { ack?: AckableRequest; handedKey?: string } {
  // cheap prefilter: neither kind is on most frames of a busy connection (a key name written with JSON escapes
  // has a backslash)
  if (!text.includes('dempotency') && !text.includes('\\')) return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return {}
  }
  const ack = text.includes('"agent"') ? ackable(value, scopes, state) : undefined
  return ack ? { ack } : { handedKey: requestKey(value) }
}

/**
 * What the worker checks before acking an `agent` frame of a connection past hello: the same frame, params
 * and scope checks the main thread makes before the runtime's handler, a key it has not seen, and the runtime's
 * own checks that need only the request and the view of its state (acceptableHere). Returns the request to ack, or undefined:
 * hand it over, and the main thread answers it as without the thread — a refusal in its first `res`.
 */
export const fastAckable = (text: string, scopes: ReadonlySet<string>, state: AcceptState): AckableRequest | undefined =>
  readForAccept(text, scopes, state).ack

function ackable(value: unknown, scopes: ReadonlySet<string>, state: AcceptState): AckableRequest | undefined {
  if (checkRequestFrame(value) !== undefined) return undefined
  const req = value as RequestFrame
  if (req.method !== 'agent' || nestingProblem(req.params) || !hasScope(scopes, METHOD_SCOPES.agent)) return undefined
  const extra = paramScope('agent', req.params)
  if (extra && !hasScope(scopes, extra.scope)) return undefined
  if (validateParams('agent', req.params ?? {}) !== undefined) return undefined
  if (!acceptableHere(req.params as ParamsOf<'agent'>, state)) return undefined
  return req as AckableRequest
}

/** The idempotencyKey of an `agent` or `chat.send` request frame, else undefined. */
function requestKey(value: unknown): string | undefined {
  const req = value as { type?: unknown; method?: unknown; params?: { idempotencyKey?: unknown } } | null
  if (req?.type !== 'req' || (req.method !== 'agent' && req.method !== 'chat.send')) return undefined
  const key = req.params?.idempotencyKey
  return typeof key === 'string' ? key : undefined
}

/**
 * Whether the runtime's `agent` handler takes these params, as far as they and the view tell. What needs the
 * main thread's state or work is handed over: attachments (decoded and saved there), a sessionId (looked up in
 * the session stores) or an expected one, a model override (the model registry), `/new` and `/reset` (a reset).
 * Whatever is left — a disk that fails the session write, a session archived in the instant between — ends
 * the acked run as a failed run ends (handlers-runs.ts failAckedRun), its error in the second `res`.
 */
export function acceptableHere(p: ParamsOf<'agent'>, state: AcceptState): boolean {
  if ((p.attachments !== undefined && p.attachments.length > 0) || p.sessionId !== undefined || p.expectedExistingSessionId !== undefined) return false
  if (p.model !== undefined || p.provider !== undefined) return false
  const command = parseCommand(p.message)?.command
  if (command === 'new' || command === 'reset') return false
  try {
    // the runtime's order (handlers-runs.ts agent); each throws the refusal the main thread will send
    rejectControlChars(p.message)
    checkDelivery(p)
    refuseUnsupportedAgentParams(p)
    refuseBlank(p.message, 'message must not be empty')
    normalizeThinking(p.thinking)
    return !state.archived.has(keyedTargetIn(state, p).key)
  } catch {
    return false
  }
}
