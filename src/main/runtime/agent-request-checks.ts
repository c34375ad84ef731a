// The `agent` checks that need only the request and the configured agents. The runtime's handler makes them;
// the gateway's socket thread makes the same ones before it acks a request itself (socket-thread-protocol.ts),
// so a request it acks is one the runtime takes, and one it would refuse is handed over and refused in its
// first `res`, as OpenClaw does.
import { canonicalSessionKey, mainSessionKey, parseSessionKey } from '../../shared/session-key'
import { INVISIBLE_ONLY, isBlankMessage } from '../../shared/hidden-chars'
import type { ParamsOf } from '../../shared/methods'
import { invalid } from '../api/errors'

/** The configured agents (config.agents' ids, lower case) and the default one. */
export interface AgentDirectory {
  agentIds: readonly string[]
  defaultAgentId: string
}

export function assertAgentIn(dir: AgentDirectory, agentId: string): string {
  const id = agentId.trim().toLowerCase()
  if (!dir.agentIds.includes(id)) throw invalid(`unknown agent id "${agentId}"`)
  return id
}

/**
 * Canonical key (`agent:<id>:<rest>`) of a configured agent, or a clear INVALID_REQUEST. An `agentId` sent
 * next to the key (OpenClaw clients do) must be that key's agent: a mismatch is the caller's mistake.
 */
export function canonicalKeyIn(dir: AgentDirectory, key: string, expectedAgentId?: string): { key: string; agentId: string } {
  const trimmed = key.trim()
  const k = canonicalSessionKey(trimmed, dir.defaultAgentId)
  if (!k) throw invalid(trimmed.toLowerCase().startsWith('agent:') ? `malformed session key "${key}"` : `invalid session key "${key}"`)
  const agentId = parseSessionKey(k)!.agentId
  assertAgentIn(dir, agentId)
  if (expectedAgentId !== undefined && assertAgentIn(dir, expectedAgentId) !== agentId) {
    throw invalid(`agentId "${expectedAgentId}" does not match the agent of session key "${k}"`)
  }
  return { key: k, agentId }
}

/**
 * The session a request names by key and/or agent (no sessionId lookup: that needs the session stores):
 * an agentId that disagrees with the key's agent is refused; neither → the agent's (or default agent's) main.
 */
export function keyedTargetIn(dir: AgentDirectory, p: { sessionKey?: string; agentId?: string }): { key: string; agentId: string } {
  const agentId = p.agentId !== undefined ? assertAgentIn(dir, p.agentId) : undefined
  if (p.sessionKey !== undefined) {
    const r = canonicalKeyIn(dir, p.sessionKey)
    if (agentId && agentId !== r.agentId) throw invalid(`agentId "${agentId}" does not match the agent of session key "${r.key}"`)
    return r
  }
  const a = agentId ?? dir.defaultAgentId
  return { key: mainSessionKey(a), agentId: a }
}

/**
 * A message without attachments must show something: empty, whitespace or only invisible characters (a lone
 * U+200B, bidi controls — `shared/hidden-chars.ts`, the composer's check too) is refused with `empty`, the
 * call's empty-message error, and says why when the text was not plainly empty.
 */
export function refuseBlank(message: string, empty: string): void {
  if (!isBlankMessage(message)) return
  throw invalid(message.trim() ? `${empty}: ${INVISIBLE_ONLY}` : empty)
}

export function rejectControlChars(message: string): void {
  if (message.includes('\u0000')) throw invalid('message must not contain NUL characters')
}

/**
 * OpenClaw `agent` params the schema takes so the refusal can say why (ARCHITECTURE.md, deliberate differences);
 * checked before anything is written.
 */
export function refuseUnsupportedAgentParams(p: ParamsOf<'agent'>): void {
  if (p.promptMode !== undefined && p.promptMode !== 'full') {
    throw invalid(`promptMode "${p.promptMode}" is not supported: Loopdesk always sends the full system prompt`)
  }
  if (p.internalEvents !== undefined && p.internalEvents.length > 0) {
    throw invalid('internalEvents are not supported: Loopdesk has no background tasks (subagents, cron, media jobs) whose completions a run could relay')
  }
  if (p.cwd !== undefined) throw invalid("cwd is not supported: a run works in its agent's workspace, which its tools are confined to")
  if (p.modelRun !== undefined) throw invalid('modelRun is not supported: Loopdesk has no separate model-only runs')
  if (p.disableMessageTool === true) throw invalid('disableMessageTool is not supported: every run offers its message tool')
  if (p.suppressPromptPersistence === true) {
    throw invalid("suppressPromptPersistence is not supported: a run's message is stored in the session's transcript")
  }
  if (p.sessionEffects === 'internal') throw invalid('sessionEffects "internal" is not supported: every run updates its session')
}
