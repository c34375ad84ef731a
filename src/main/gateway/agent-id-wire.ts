// OpenClaw v4 gateways name the agent on a session's `chat` and `agent` events (`agentId`, reference §4 and §5.1
// "[v4]"): the agent whose session it is, i.e. the session key's. v3 events never carry it (v3's ChatEvent schema
// is closed and has no such field), so only connections that negotiated protocol 4 get it.
import { parseSessionKey } from '../../shared/session-key'

export function withAgentId<T extends { sessionKey?: string; agentId?: string }>(payload: T, protocol: number): T {
  if (protocol < 4 || payload.sessionKey === undefined || payload.agentId !== undefined) return payload
  const agentId = parseSessionKey(payload.sessionKey)?.agentId
  return agentId ? { ...payload, agentId } : payload
}
