// Session keys are `agent:<agentId>:<rest>` (OpenClaw §9.4). The main session is `agent:main:main`.

export const DEFAULT_AGENT_ID = 'main'
export const MAIN_KEY = 'main'
/**
 * OpenClaw's session scope (`session.scope`) as Loopdesk keys sessions, reported by hello-ok
 * `snapshot.sessionDefaults.scope`, `agents.list` `scope` and chat.send's routing contract. OpenClaw's
 * "global" collapses the main session of every agent into the one key `global`; "per-sender" (its default)
 * keeps a main session per agent, `agent:<agentId>:<mainKey>`, which is what Loopdesk does ("main" resolves
 * to `agent:<default agent>:main`, never to `global`).
 */
export const SESSION_SCOPE = 'per-sender' as const
const AGENT_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/
const REST_RE = /^[a-z0-9_.:+@-]{1,400}$/

export interface ParsedSessionKey {
  agentId: string
  rest: string
}

/** Parses a canonical key; returns undefined when malformed. Keys are case-insensitive (lowercased). */
export function parseSessionKey(key: string): ParsedSessionKey | undefined {
  const k = key.trim().toLowerCase()
  if (!k.startsWith('agent:')) return undefined
  const parts = k.split(':')
  if (parts.length < 3) return undefined
  const agentId = parts[1]
  const rest = parts.slice(2).join(':')
  if (!AGENT_ID_RE.test(agentId) || !REST_RE.test(rest) || rest.split(':').some((p) => p === '')) return undefined
  return { agentId, rest }
}

/** Canonicalizes a key: `agent:` keys must parse; bare keys become `agent:<defaultAgent>:<key>`. */
export function canonicalSessionKey(key: string, defaultAgentId = DEFAULT_AGENT_ID): string | undefined {
  const k = key.trim().toLowerCase()
  if (k.startsWith('agent:')) {
    const p = parseSessionKey(k)
    return p ? `agent:${p.agentId}:${p.rest}` : undefined
  }
  if (!REST_RE.test(k) || k.split(':').some((p) => p === '')) return undefined
  return `agent:${defaultAgentId}:${k}`
}

export const mainSessionKey = (agentId = DEFAULT_AGENT_ID) => `agent:${agentId}:${MAIN_KEY}`

/** An agent's main session or the global one: where work lands by default, so never archived nor deleted. */
export function isProtectedSessionKey(key: string): boolean {
  const rest = parseSessionKey(key)?.rest
  return rest === MAIN_KEY || rest === 'global'
}
export const isValidAgentId = (id: string) => AGENT_ID_RE.test(id)
