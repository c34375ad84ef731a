// OpenClaw v4 names a child session's parent on its `chat` and `agent` events (`spawnedBy`, server-chat.ts
// `resolveSpawnedBy`) — only for the kinds of session that have one: subagent (`…:subagent:…`), ACP (`…:acp:…`)
// and the Control UI's dashboard sessions (`agent:<id>:dashboard:…`), from the session entry's `spawnedBy`.
// The gateway learns it from the row each `sessions.changed` carries (a run's start sends one before its events),
// so no store read per event; v3 events never carry it (April's schemas are closed).
import type { SessionsChangedEvent } from '../../shared/events'
import { parseSessionKey } from '../../shared/session-key'

const MAX_TRACKED = 10_000

/** a session kind OpenClaw reports the parent of */
export function mayHaveSpawner(sessionKey: string): boolean {
  const k = sessionKey.trim().toLowerCase()
  if (k.startsWith('subagent:') || k.startsWith('acp:')) return true
  const rest = parseSessionKey(k)?.rest
  return !!rest && (rest.startsWith('subagent:') || rest.startsWith('acp:') || rest.startsWith('dashboard:'))
}

export class SpawnedByWire {
  private readonly parents = new Map<string, string>()

  onSessionsChanged(ev: SessionsChangedEvent): void {
    if (ev.reason === 'delete') {
      this.parents.delete(ev.sessionKey)
      return
    }
    if (!ev.session || !mayHaveSpawner(ev.sessionKey)) return
    const parent = ev.session.spawnedBy
    if (typeof parent !== 'string' || !parent) {
      this.parents.delete(ev.sessionKey)
      return
    }
    // the oldest first out when the bound is reached (a later row brings a dropped one back)
    if (!this.parents.has(ev.sessionKey) && this.parents.size >= MAX_TRACKED) this.parents.delete(this.parents.keys().next().value as string)
    this.parents.set(ev.sessionKey, parent)
  }

  /** the payload with its session's parent, for a v4 connection */
  with<T extends { sessionKey?: string; spawnedBy?: string }>(payload: T, protocol: number): T {
    if (protocol < 4 || payload.sessionKey === undefined || payload.spawnedBy !== undefined) return payload
    const parent = this.parents.get(payload.sessionKey)
    return parent ? { ...payload, spawnedBy: parent } : payload
  }
}
