// OpenClaw's session-addressed chat methods (sessions.send / sessions.steer), transcript subscriptions
// (sessions.messages.*) and agent.identity.get. send/steer reuse chat.send so both paths queue, dedupe
// and run identically.
import crypto from 'node:crypto'
import { invalid } from '../api/errors'
import type { Handler, Handlers } from '../api/dispatch'
import type { ParamsOf } from '../../shared/methods'
import { agentIdentity } from './agent-identity'
import { assertAgent, canonicalKey, type RuntimeCore } from './handlers-context'
import { abortSessionRuns } from './handlers-sessions'
import { pendingApprovalSnapshot } from '../../shared/session-approval'

type SessionSendHandlers = Pick<
  Handlers,
  'sessions.send' | 'sessions.steer' | 'sessions.messages.subscribe' | 'sessions.messages.unsubscribe' | 'agent.identity.get'
>

/** The key, checked against an optional agentId (a mismatch is the caller's mistake, not a new session). */
function sessionFor(core: RuntimeCore, key: string, agentId?: string): { key: string; agentId: string } {
  const r = canonicalKey(core, key)
  if (agentId !== undefined && assertAgent(core, agentId) !== r.agentId) {
    throw invalid(`agentId "${agentId}" does not match the agent of session key "${r.key}"`)
  }
  return r
}

/** sessions.send/steer address a session that exists (OpenClaw): a mistyped key must not start a stray one. */
function existingSession(core: RuntimeCore, key: string, agentId?: string): { key: string; agentId: string } {
  const r = sessionFor(core, key, agentId)
  if (!core.store(r.agentId).get(r.key)) throw invalid(`session not found: ${r.key}`)
  return r
}

export function sessionSendHandlers(core: RuntimeCore, chatSend: Handler<'chat.send'>): SessionSendHandlers {
  async function send(p: ParamsOf<'sessions.send'>, ctx: Parameters<Handler<'chat.send'>>[1], key: string) {
    const res = await chatSend(
      {
        sessionKey: key,
        message: p.message,
        // OpenClaw generates one when absent; a retry without a key is then a new message
        idempotencyKey: p.idempotencyKey ?? crypto.randomUUID(),
        ...(p.thinking ? { thinking: p.thinking } : {}),
        ...(p.attachments?.length ? { attachments: p.attachments } : {}),
        ...(p.timeoutMs !== undefined ? { timeoutMs: Math.min(p.timeoutMs, 31_536_000_000) } : {}),
      },
      ctx,
    )
    // messageSeq is left out: the user turn is written when the run starts (it may wait in the lane),
    // so its transcript position is not known when the send is acknowledged.
    return { ...res, key }
  }

  return {
    async 'sessions.send'(p, ctx) {
      const { key } = existingSession(core, p.key, p.agentId)
      return send(p, ctx, key)
    },

    async 'sessions.steer'(p, ctx) {
      const { key } = existingSession(core, p.key, p.agentId)
      // interrupt only the running turn; what is queued behind it stays queued (it runs after this one)
      const interrupted = abortSessionRuns(core, key, { reason: 'steer', mayAbort: ctx.mayAbort })
      // the aborted run must be gone before chat.send, or the message would be queued behind it
      await Promise.all(interrupted.map((id) => core.tracked.get(id)?.done.catch(() => undefined)))
      const res = await send(p, ctx, key)
      return { ...res, interruptedActiveRun: interrupted.length > 0 }
    },

    async 'sessions.messages.subscribe'(p) {
      // delivery is per connection (the gateway records it from this result's canonical key)
      const { key } = sessionFor(core, p.key, p.agentId)
      if (!p.includeApprovals) return { subscribed: true, key }
      // the session's own approvals: Loopdesk has no agent-spawned descendant sessions to include
      const approvals = core.approvals.pending(key).map(pendingApprovalSnapshot)
      return { subscribed: true, key, approvalReplay: { sessionKey: key, updatedAtMs: Date.now(), approvals, truncated: false } }
    },

    async 'sessions.messages.unsubscribe'(p) {
      const { key } = sessionFor(core, p.key, p.agentId)
      return { subscribed: false, key }
    },

    async 'agent.identity.get'(p) {
      let agentId = p.agentId ? assertAgent(core, p.agentId) : undefined
      if (p.sessionKey) {
        const fromKey = sessionFor(core, p.sessionKey).agentId
        if (agentId && agentId !== fromKey) throw invalid(`agentId "${agentId}" does not match the agent of session key "${p.sessionKey}"`)
        agentId = fromKey
      }
      const cfg = core.config.current
      const id = agentId ?? cfg.defaultAgentId
      return agentIdentity(id, cfg.agents.find((a) => a.id === id)?.workspace)
    },
  }
}

