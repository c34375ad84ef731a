// Method → required operator scope (OpenClaw §1.5, method-scopes.ts). admin satisfies everything,
// write satisfies read; approvals is separate. `health` needs no scope, so a device-less shared-token
// client (whose scopes are cleared) can still probe liveness.
import type { EventName } from '../../shared/events'
import { REJECTION_LIFTED_EVENT, type PairingEventName } from '../../shared/pairing'
import type { MethodName } from '../../shared/methods'
import { modelCommandChanges, normalizeChatText, parseCommand } from '../../shared/chat-commands'
import { SCOPES, type Scope } from './protocol'

const R = SCOPES.read
const W = SCOPES.write
const A = SCOPES.admin
const AP = SCOPES.approvals
const PAIR = SCOPES.pairing

export const METHOD_SCOPES: Record<MethodName, Scope | null> = {
  health: null,
  status: R,
  agent: W,
  'agent.wait': W,
  'chat.send': W,
  'chat.history': R,
  'chat.abort': W,
  'sessions.list': R,
  'sessions.subscribe': R,
  'sessions.unsubscribe': R,
  'sessions.create': W,
  'sessions.fork': W,
  'sessions.patch': A,
  'sessions.reset': A,
  'sessions.delete': A,
  'sessions.abort': W,
  'sessions.compact': A,
  'sessions.send': W,
  'sessions.steer': W,
  'sessions.messages.subscribe': R,
  'sessions.messages.unsubscribe': R,
  'agent.identity.get': R,
  'models.list': R,
  'agents.list': R,
  'commands.list': R,
  'tools.catalog': R,
  'config.get': R,
  'config.patch': A,
  'exec.approval.resolve': AP,
  'loopdesk.events.recent': R,
  'loopdesk.sessions.search': R,
  'loopdesk.chat.find': R,
  // it makes the runtime send requests (with a saved key, to that provider's own URL): as config.patch
  'loopdesk.models.probe': A,
  // a config write, as config.patch
  'loopdesk.config.renameProvider': A,
  'loopdesk.queue.list': R,
  'loopdesk.queue.remove': W,
  'loopdesk.queue.hold': W,
  'loopdesk.queue.release': W,
  'loopdesk.queue.reorder': W,
  'loopdesk.prefs.get': R,
  'loopdesk.prefs.set': W,
}

/**
 * A scope some params need beyond their method's (OpenClaw): `message` set = refused as OpenClaw refuses it
 * (INVALID_REQUEST with that message, which its clients recognize), else the usual missing-scope error.
 * - sessions.messages.subscribe `includeApprovals`: the feed carries commands → operator.approvals
 * - chat.send `systemInputProvenance` / a non-empty `systemProvenanceReceipt`: they vouch for who sent the
 *   message → operator.admin ("system provenance fields require admin scope")
 * - chat.send `originating*` (where a reply is delivered) → operator.admin
 * - agent `provider` / `model`, and a `/new` or `/reset` message → operator.admin (OpenClaw §2.2: what
 *   sessions.patch and sessions.reset, both admin methods, would do; chat.send's /new stays a writer's)
 * - chat.send, sessions.send, sessions.steer and sessions.create's first message `/model <model>` → operator.admin
 *   (sessions.patch's `model`); a bare `/model` only shows it
 */
export function paramScope(method: MethodName, params: unknown): { scope: Scope; message?: string } | undefined {
  const p = params && typeof params === 'object' ? (params as Record<string, unknown>) : {}
  const given = (k: string) => p[k] !== undefined && p[k] !== null
  if (method === 'sessions.messages.subscribe' && p.includeApprovals === true) return { scope: AP }
  if (method === 'agent') {
    if (given('provider') || given('model')) return { scope: A, message: 'provider/model overrides are not authorized for this caller.' }
    const cmd = typeof p.message === 'string' ? parseCommand(p.message) : undefined
    if (cmd && (cmd.command === 'new' || cmd.command === 'reset')) return { scope: A, message: `/${cmd.command} through agent requires admin scope (chat.send takes it from a writer)` }
  }
  // sessions.send / sessions.steer hand their message to chat.send's handler as is: the same commands act there
  // so does sessions.create's first message (`message`, else `task`)
  const commandText = (method === 'chat.send' && p.suppressCommandInterpretation !== true) || method === 'sessions.send' || method === 'sessions.steer'
  const text = commandText ? p.message : method === 'sessions.create' ? (p.message ?? p.task) : undefined
  if (typeof text === 'string') {
    // choosing a model is what sessions.patch (admin) does; showing it is a reader's
    // parsed as the runtime will read it (control characters removed), not as sent
    const cmd = parseCommand(normalizeChatText(text))
    if (cmd?.command === 'model' && modelCommandChanges(cmd.rest)) return { scope: A, message: '/model <model> requires admin scope (it is what sessions.patch does)' }
  }
  if (method === 'chat.send' && ['originatingChannel', 'originatingTo', 'originatingAccountId', 'originatingThreadId'].some(given)) return { scope: A, message: 'originating route fields require admin scope' }
  if (method === 'chat.send' && (given('systemInputProvenance') || (typeof p.systemProvenanceReceipt === 'string' && p.systemProvenanceReceipt !== ''))) {
    return { scope: A, message: 'system provenance fields require admin scope' }
  }
  return undefined
}

/** Scopes an operator may request; anything else is dropped at connect. */
export const KNOWN_SCOPES: readonly Scope[] = [R, W, A, AP, PAIR]

export function hasScope(granted: ReadonlySet<string>, required: Scope | null): boolean {
  if (required === null) return true
  if (granted.has(A)) return true
  if (granted.has(required)) return true
  if (required === R && granted.has(W)) return true
  return false
}

/**
 * Scope a connection needs to receive an event. Approval events carry commands and need approvals;
 * pairing events need pairing (as OpenClaw's event guards; Loopdesk's rejectionLifted too);
 * session/run events need read (OpenClaw does not guard agent/chat; we do, so a scope-less
 * device-less client sees nothing but `tick`/`shutdown`).
 */
export function eventScope(event: EventName | PairingEventName): Scope | null {
  switch (event) {
    case 'exec.approval.requested':
    case 'exec.approval.resolved':
      return AP
    case 'device.pair.requested':
    case 'device.pair.resolved':
    case REJECTION_LIFTED_EVENT:
      return PAIR
    case 'tick':
    case 'shutdown':
      return null
    default:
      return R
  }
}
