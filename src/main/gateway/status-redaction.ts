// `status` for a connection without operator.admin, as OpenClaw's status handler builds it with includeSensitive
// off (its summary.ts: store paths "[redacted]", no session paths, no recent session rows): a read-scoped client
// (a remote dashboard, a third-party tool) learns counts and health, not the user's home path, the state dir's
// layout or which sessions ran lately. Admin connections (the window, the CLI) get everything.
import type { Results } from '../../shared/methods'

export const REDACTED = '[redacted]'

type Status = Results['status']

export function statusWithoutPaths(s: Status): Status {
  return {
    ...s,
    stateDir: REDACTED,
    sessions: {
      ...s.sessions,
      paths: [],
      recent: [],
      byAgent: s.sessions.byAgent.map((a) => ({ ...a, path: REDACTED, recent: [] })),
    },
    ...(s.configFileExposed ? { configFileExposed: { ...s.configFileExposed, path: REDACTED } } : {}),
    ...(s.credentials?.store === 'file' ? { credentials: { store: 'file' as const, path: REDACTED } } : {}),
  }
}

type Health = Results['health']

/**
 * `health` (and hello-ok's `snapshot.health`) for a connection without operator.read. OpenClaw sends the store
 * paths and recent session keys to every read-scoped client (its health collector ignores the audience for them:
 * kept, a known exposure — ARCHITECTURE.md) but `health` needs operator.read there; Loopdesk serves it with no
 * scope (a liveness probe), so a caller below read gets the counts only.
 */
export function healthWithoutPaths(h: Health): Health {
  const sessions = (s: Health['sessions']): Health['sessions'] => (s ? { ...s, path: REDACTED, recent: [] } : s)
  return {
    ...h,
    ...(h.sessions ? { sessions: sessions(h.sessions) } : {}),
    ...(Array.isArray(h.agents) ? { agents: h.agents.map((a) => ({ ...a, sessions: sessions(a.sessions) })) } : {}),
  }
}
