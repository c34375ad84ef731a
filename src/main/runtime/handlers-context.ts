// What the method handlers share: the runtime's parts plus session-resolution helpers.
import { normalizeChatText } from '../../shared/chat-commands'
import type { AnyEvent, QueueItem, SessionsChangedEvent } from '../../shared/events'
import type { AgentFinal, ConfigIssue, Prefs, SessionRow } from '../../shared/methods'
export { CHAT_COMMANDS, parseCommand } from '../../shared/chat-commands'
import { canonicalSessionKey } from '../../shared/session-key'
import { ApiError, invalid } from '../api/errors'
import type { CredentialStore, ResolvedConfig, SessionEntry } from './contracts'
import type { MergePatchOptions } from './config/merge-patch'
import type { ProviderRename } from './config/rename-provider'
import type { EventBus, RunRegistry } from './events'
import type { EventLog } from './events/event-log'
import type { ChatSubmit } from './queue/chat-queue'
import type { CommandQueue } from './lanes'
import type { ModelRegistry } from './models'
import type { ChatProjection } from './runner/chat-projection'
import type { EmbeddedRunner, RunOutcome, RunRequest } from './runner/embedded-runner'
import type { FollowupQueue } from './runner/followup-queue'
import type { RuntimeHooks } from './runner/hooks'
import type { AcceptedJournal } from './runner/accepted-journal'
import type { Accepting } from './accepting'
import type { MediaJanitor } from './media/media-janitor'
import type { IdempotencyCache } from './runner/idempotency'
import { toSessionRow, type SessionStore } from './sessions'
import type { ApprovalBroker } from './tools'
import { assertAgentIn, canonicalKeyIn, keyedTargetIn, rejectControlChars, type AgentDirectory } from './agent-request-checks'

/** The config source the runtime reads (implemented by the config module's ConfigManager). */
export interface ConfigSource {
  readonly current: ResolvedConfig
  readonly path: string
  readonly hash: string
  readonly issues: ConfigIssue[]
  redacted(): Record<string, unknown>
  /** while the file has problems: its own content, redacted (config.get's `fileConfig`) */
  fileRedacted?(): Record<string, unknown> | undefined
  /** the secrets the file holds when other users can read it (status's `configFileExposed`) */
  exposure?(): { path: string; mode: string; secrets: string[] } | undefined
  /** 'set' / 'not set' per provider (credential store, env, file) and gateway.auth.token */
  secretsStatus(): Record<string, 'set' | 'not set'>
  /** RFC 7396 merge patch; throws on a stale baseHash (INVALID_REQUEST, details.code CONFLICT) or an invalid result (INVALID_REQUEST) */
  patch(
    patch: Record<string, unknown>,
    baseHash?: string,
    opts?: { beforeWrite?: () => void; merge?: MergePatchOptions; renameProvider?: ProviderRename },
  ): { hash: string; movedRefs?: string[] }
}

/** Queue modes for a chat message that arrives while its session is busy (queue/chat-queue.ts). */
export interface QueueModesHandle {
  /** starts now when idle, else steers / queues / interrupts per mode; throws QueueFullError when dropped */
  submit(p: ChatSubmit): Promise<{ runId: string; status: 'started' } | { runId: string; status: 'queued' | 'steered'; queueItemId: string }>
  list(sessionKey: string): QueueItem[]
  /** the item of the message accepted as `runId`; its runId is the run carrying it once it left the queue */
  itemFor?(sessionKey: string, runId: string): QueueItem | undefined
  /** the message accepted as `runId` is still waiting (its run has not started) */
  isQueued?(runId: string): boolean
  remove(sessionKey: string, id: string): boolean
  /** removes every waiting message; returns the run ids they would have had */
  clear(sessionKey: string, reason?: string): string[]
  /** holds every waiting message (they stay queued, not started on their own); returns their ids */
  hold(sessionKey: string): string[]
  /** releases held messages (these ids, else all); returns the ids released */
  release(sessionKey: string, ids?: string[]): string[]
  /** puts waiting messages in the order of `ids`; returns the waiting ids in their order now */
  reorder(sessionKey: string, ids: string[]): string[]
  /** a message paused before the runtime stopped, back in its queue and held; returns its item id */
  restoreHeld?(p: ChatSubmit & { enqueuedAt?: number }): string
  /** a provider was renamed: waiting messages' recorded models follow it; returns how many moved */
  renameProvider?(from: string, to: string): number
}

export interface PrefsProvider {
  get(): Prefs
  set(patch: Partial<Prefs>): Prefs
}

/** A run the runtime knows about: queued in a lane or running. */
export interface TrackedRun {
  runId: string
  sessionKey: string
  agentId: string
  controller: AbortController
  /** resolves with the runner's outcome */
  done: Promise<RunOutcome>
  source: 'agent' | 'chat'
  /** a message collected into another run's batch (queue modes): that run's id, which carries its text */
  foldedInto?: string
  /** the request the runner got: while the run waits in its lanes a provider rename still rewrites its models */
  request?: RunRequest
}

export interface RuntimeCore {
  readonly stateDir: string
  readonly env: NodeJS.ProcessEnv
  readonly startedAt: number
  readonly version: string
  readonly config: ConfigSource
  readonly credentials: CredentialStore
  readonly bus: EventBus
  /** the sessions' agent events on disk, for the Inspector after a restart */
  readonly eventLog: EventLog
  readonly runs: RunRegistry
  readonly queue: CommandQueue
  readonly runner: EmbeddedRunner
  readonly approvals: ApprovalBroker
  readonly projection: ChatProjection
  readonly followups: FollowupQueue
  /** chat.send queue modes (steer / followup / collect / interrupt), installed by the extensions module */
  queueModes?: QueueModesHandle
  readonly hooks: RuntimeHooks
  readonly prefs: PrefsProvider
  readonly dedupe: IdempotencyCache<unknown>
  /** runs queued or running, by runId */
  readonly tracked: Map<string, TrackedRun>
  /** messages between their call and its ack (accepting.ts): aborts and chat.send retries wait for them */
  readonly accepting: Accepting
  /** durable record of acknowledged messages of an agent (written before the ack; crash recovery) */
  accepted(agentId: string): AcceptedJournal
  /** removes inbound media nothing references any more (absent when switched off) */
  media?: MediaJanitor
  models(): ModelRegistry
  /** rebuild the model registry (credentials or config changed) */
  refreshModels(): Promise<void>
  store(agentId: string): SessionStore
  emit(event: AnyEvent): void
  sessionChanged(sessionKey: string, reason: SessionsChangedEvent['reason'], runId?: string): void
  /** queue a run (does not wait for it); the final is available through agentFinal */
  startRun(req: Omit<RunRequest, 'signal' | 'onStart'> & { onStart?: () => void }, source: 'agent' | 'chat'): TrackedRun
  recordFinal(final: AgentFinal): void
  isShuttingDown(): boolean
}

export function agentIds(core: RuntimeCore): string[] {
  return core.config.current.agents.map((a) => a.id)
}

export const agentDirectory = (core: RuntimeCore): AgentDirectory => ({ agentIds: agentIds(core), defaultAgentId: core.config.current.defaultAgentId })

export const assertAgent = (core: RuntimeCore, agentId: string): string => assertAgentIn(agentDirectory(core), agentId)

/** Canonical key of a configured agent's session (agent-request-checks.ts canonicalKeyIn). */
export const canonicalKey = (core: RuntimeCore, key: string, expectedAgentId?: string): { key: string; agentId: string } =>
  canonicalKeyIn(agentDirectory(core), key, expectedAgentId)

/** A precondition on the session's current sessionId (OpenClaw expectedSessionId and the like). */
export function checkExpectedSession(core: RuntimeCore, key: string, agentId: string, expected: string | undefined): void {
  if (expected === undefined) return
  const current = core.store(agentId).get(key)?.sessionId
  if (current === expected) return
  throw invalid(
    current ? `session ${key} is now ${current}, not the expected ${expected}` : `session ${key} does not exist (expected ${expected})`,
    { expectedSessionId: expected, currentSessionId: current ?? null },
  )
}

/**
 * sessionKey | sessionId | agentId → the session to use. An agentId that disagrees with the key's agent is
 * rejected; a sessionId without a key finds its session (or names a new one); nothing → the agent's main.
 */
export function resolveTarget(
  core: RuntimeCore,
  p: { sessionKey?: string; sessionId?: string; agentId?: string },
): { key: string; agentId: string; sessionId?: string } {
  if (p.sessionKey !== undefined || p.sessionId === undefined) {
    const r = keyedTargetIn(agentDirectory(core), p)
    return p.sessionId ? { ...r, sessionId: p.sessionId } : r
  }
  const agentId = p.agentId !== undefined ? assertAgent(core, p.agentId) : undefined
  const owners = agentId ? [agentId] : agentIds(core)
  for (const a of owners) {
    for (const [key, entry] of core.store(a).list()) if (entry.sessionId === p.sessionId) return { key, agentId: a, sessionId: p.sessionId }
  }
  const a = agentId ?? core.config.current.defaultAgentId
  const rest = p.sessionId.toLowerCase()
  const k = canonicalSessionKey(`agent:${a}:${rest}`, a)
  if (!k) throw invalid(`invalid sessionId "${p.sessionId}"`)
  return { key: k, agentId: a, sessionId: p.sessionId }
}

export function rowOf(core: RuntimeCore, key: string, agentId: string, entry?: SessionEntry): SessionRow | undefined {
  const e = entry ?? core.store(agentId).get(key)
  return e ? toSessionRow(key, e, agentId) : undefined
}

export function requireEntry(core: RuntimeCore, key: string, agentId: string): SessionEntry {
  const e = core.store(agentId).get(key)
  if (!e) throw new ApiError('NOT_FOUND', `session not found: ${key}`)
  return e
}

/**
 * chat.send's text as OpenClaw takes it (`sanitizeChatSendMessageInput`): NUL refused, NFC-normalized, the other
 * control characters except tab and line breaks removed. `agent` takes its message as sent (OpenClaw does too).
 */
export function sanitizeChatMessage(message: string): string {
  rejectControlChars(message)
  return normalizeChatText(message)
}
