// What a transport (IPC shell, gateway, CLI --local) needs from a running Loopdesk runtime.
import type { AnyEvent } from '../../shared/events'
import type { AgentFinal, SessionMessagePayload, SessionRow } from '../../shared/methods'
import type { ResolvedConfig } from '../runtime/contracts'
import type { Handlers } from './dispatch'

/**
 * A message appended to a session transcript: the gateway's `session.message` payload, and the session's row
 * as it is after the append (the snapshot OpenClaw's event carries; the gateway puts it on the wire).
 */
export type SessionMessageEvent = SessionMessagePayload & { session?: SessionRow }

export interface RuntimeHost {
  /** The method table, implemented by the runtime. Always call through `dispatch` (it validates). */
  readonly handlers: Handlers
  /** Every event the runtime produces (agent, chat, sessions.changed, approvals, queue). Listener errors are isolated. */
  subscribe(listener: (event: AnyEvent) => void): () => void
  /**
   * Resolves with the final result of an `agent` run (the gateway's second `res` frame).
   * Resolves immediately from the finished-run cache if the run already ended; rejects for unknown runIds.
   */
  agentFinal(runId: string): Promise<AgentFinal>
  readonly info: { version: string; stateDir: string; configPath: string; startedAt: number }
  /** Stop accepting runs, wait for active runs up to drainMs (then abort them), release locks. */
  shutdown(opts?: { drainMs?: number; reason?: string }): Promise<void>
  /**
   * Optional: the runtime's validated config (defaults filled in). While loopdesk.json is invalid this is
   * still the last good config. Transports read it here instead of parsing the file themselves.
   */
  currentConfig?(): ResolvedConfig
  /** Optional: told after the effective config changed (reload of the file, a config.patch); returns unsubscribe. */
  onConfigChange?(listener: (config: ResolvedConfig) => void): () => void
  /**
   * Optional: the keys of archived sessions (they take no new work). Read once by the gateway's socket thread,
   * which then follows `sessions.changed` rows.
   */
  archivedSessionKeys?(): string[]
  /**
   * Optional: told when `shutdown` begins (at once when it has) — the runtime takes no new runs from then on, while a
   * gateway still serves the drain (its socket thread stops acking `agent` itself). Returns unsubscribe.
   */
  onShutdownStart?(listener: () => void): () => void
  /**
   * Optional: told each idempotency key an `agent` or `chat.send` call took (as it takes it, before the call's
   * answer), whether or not it started a run — chat.send's `/stop` and `/model` start none, so no event names
   * their keys, yet an `agent` call reusing one is refused. The gateway's socket thread hands those over.
   */
  onIdempotencyKey?(listener: (key: string) => void): () => void
  /**
   * Optional: the keys taken before a gateway started (the window's calls, an earlier gateway's): `live`, the runs
   * under way (queued or running); `taken`, the other keys `agent` or `chat.send` calls took and the runtime still holds.
   */
  idempotencyKeysTaken?(): { live: string[]; taken: string[] }
  /**
   * Optional: told when a gateway over this host starts listening / stops (plugin `gateway_start` /
   * `gateway_stop` hooks). Installed by the runtime's extensions; never throws.
   */
  /**
   * Optional: told about every message appended to a session transcript (sessions.messages.subscribe).
   * Kept off `subscribe` so IPC/renderer subscribers never pay for transcript copies they do not use.
   */
  onSessionMessage?(listener: (event: SessionMessageEvent) => void): () => void
  gatewayLifecycle?(event: { phase: 'start'; port: number } | { phase: 'stop'; reason?: string }): void
}
