// Who receives a run's tool events, and with how much (OpenClaw §4.1):
// - only connections that declared the `tool-events` cap AND either started the run (`agent` /
//   `chat.send`) or joined its session (sent to it, or opened it with `chat.history` — how a UI watches
//   a session, also mid-run). Joining lasts for the connection (bounded), so later runs in that session
//   reach it too;
// - unless the session's verbose level is `full`, `data.result` / `data.partialResult` are stripped.
//   A client that renders tool output asks for it with the `loopdesk.tool-results` cap; Loopdesk's own
//   browser UI (client id `openclaw-control-ui`) gets it implicitly — its tool cards show results, and
//   its read scope could fetch the same results through chat.history anyway;
// - every `sessions.subscribe` subscriber also gets the event mirrored as `session.tool` (same rules for
//   results), whatever its caps.
import { TOOL_EVENTS_CAP, TOOL_RESULTS_CAP, type AgentEvent, type SessionsChangedEvent } from '../../shared/events'
import { canonicalSessionKey, DEFAULT_AGENT_ID } from '../../shared/session-key'
import type { GatewayConnection } from './connection'

export { TOOL_EVENTS_CAP, TOOL_RESULTS_CAP }

/** client ids whose UI shows tool results (Loopdesk's renderer connects as the OpenClaw control UI) */
const RESULT_RENDERING_CLIENTS = new Set(['openclaw-control-ui'])

const MAX_JOINED_RUNS = 1000
const MAX_JOINED_SESSIONS = 200
const MAX_TRACKED_SESSIONS = 5000

type Verbose = 'off' | 'on' | 'full'
const isVerbose = (v: unknown): v is Verbose => v === 'off' || v === 'on' || v === 'full'

/** A Set that forgets its oldest entries beyond `max`. */
export class BoundedSet<T> {
  private items = new Set<T>()
  constructor(private readonly max: number) {}
  add(v: T) {
    if (this.items.has(v)) return
    this.items.add(v)
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value as T)
  }
  has(v: T) {
    return this.items.has(v)
  }
  get size() {
    return this.items.size
  }
}

/** Per-connection routing state. */
export interface ToolAudience {
  /** runs this connection started */
  runs: BoundedSet<string>
  /** sessions it sent to or opened */
  sessions: BoundedSet<string>
  /** receives tool results regardless of the session's verbose level */
  fullResults: boolean
}

export function toolAudienceFor(clientId: string, caps: ReadonlySet<string>): ToolAudience {
  return {
    runs: new BoundedSet(MAX_JOINED_RUNS),
    sessions: new BoundedSet(MAX_JOINED_SESSIONS),
    fullResults: caps.has(TOOL_RESULTS_CAP) || RESULT_RENDERING_CLIENTS.has(clientId),
  }
}

/** The event without tool output (start events and metadata stay). */
export function stripToolOutput(ev: AgentEvent): AgentEvent {
  const data = ev.data as Record<string, unknown>
  if (!('result' in data) && !('partialResult' in data)) return ev
  const { result: _r, partialResult: _p, ...rest } = data
  return { ...ev, data: rest }
}

/** Best-effort canonical key of a session named in request params (bare keys → the default agent). */
export function paramSessionKey(p: { sessionKey?: unknown; agentId?: unknown }): string | undefined {
  if (typeof p.sessionKey !== 'string') return undefined
  const agentId = typeof p.agentId === 'string' ? p.agentId.toLowerCase() : DEFAULT_AGENT_ID
  return canonicalSessionKey(p.sessionKey, agentId)
}

export class ToolRouter {
  private verbose = new Map<string, Verbose>()

  /**
   * configuredVerbose: agents.defaults.verboseDefault of the runtime's validated config (RuntimeHost.currentConfig —
   * the last good value while the file is invalid); undefined = off
   */
  constructor(private readonly configuredVerbose: () => unknown = () => undefined) {}

  /** Tracks each session's verbose level from the row snapshots the runtime sends. */
  onSessionsChanged(ev: SessionsChangedEvent) {
    if (ev.reason === 'delete') {
      this.verbose.delete(ev.sessionKey)
      return
    }
    if (!ev.session) return
    const v = ev.session.verboseLevel
    if (isVerbose(v)) {
      if (!this.verbose.has(ev.sessionKey) && this.verbose.size >= MAX_TRACKED_SESSIONS) {
        this.verbose.delete(this.verbose.keys().next().value as string)
      }
      this.verbose.set(ev.sessionKey, v)
    } else this.verbose.delete(ev.sessionKey)
  }

  /** The session's effective verbose level is `full` (its own level, else the configured default). */
  fullFor(sessionKey: string | undefined): boolean {
    const own = sessionKey === undefined ? undefined : this.verbose.get(sessionKey)
    return (own ?? this.defaultVerbose()) === 'full'
  }

  /** Does this connection get this run's tool stream as `agent` events? */
  wants(c: GatewayConnection, ev: AgentEvent): boolean {
    if (!c.caps.has(TOOL_EVENTS_CAP)) return false
    const a = c.tools
    if (a.runs.has(ev.runId)) {
      // a run it started without naming the session (agent {agentId}) joins that session once seen
      if (ev.sessionKey !== undefined) a.sessions.add(ev.sessionKey)
      return true
    }
    return ev.sessionKey !== undefined && a.sessions.has(ev.sessionKey)
  }

  private defaultVerbose(): Verbose {
    const v = this.configuredVerbose()
    return isVerbose(v) ? v : 'off'
  }
}
