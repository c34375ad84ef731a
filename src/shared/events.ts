// Event shapes shared by the runtime, the gateway, the preload bridge and the renderer.
// They follow the OpenClaw `agent` / `chat` event payloads (see shared/reference/openclaw-gateway.md §4–§5).

export type AgentStream =
  | 'lifecycle'
  | 'assistant'
  | 'thinking'
  | 'tool'
  | 'compaction'
  | 'block'
  | 'approval'
  | 'error'
  | 'reasoning'
  | 'lane'
  | 'silence'

/** One event of a run. `seq` is per run, starts at 1 and strictly increases. */
export interface AgentEvent<D = Record<string, unknown>> {
  runId: string
  seq: number
  stream: AgentStream
  ts: number
  data: D
  sessionKey?: string
  /** the session's agent: on the gateway's wire to protocol-4 connections only (OpenClaw v4 adds it) */
  agentId?: string
  /** a child session's parent: on the gateway's wire to protocol-4 connections only (spawned-by-wire.ts) */
  spawnedBy?: string
}

export type LifecycleData =
  | { phase: 'start'; startedAt: number }
  | {
      phase: 'end'
      endedAt: number
      startedAt?: number
      aborted?: boolean
      stopReason?: string
      /**
       * only when a plugin `message_sending` hook rewrote or withheld part of the final reply: the reply as
       * delivered (visible payload texts joined by a blank line; "" = all withheld). The `assistant` deltas
       * still carry what the model streamed.
       */
      replyText?: string
    }
  | { phase: 'error'; error: string; endedAt: number; startedAt?: number; errorKind?: ErrorKind; errorDetail?: ChatErrorDetail }

export type ErrorKind = 'refusal' | 'timeout' | 'rate_limit' | 'context_length' | 'unknown'

/**
 * OpenClaw v4's `errorDetail` on a failed run's chat error: bounded facts about the model request (each text
 * ≤ 300 chars), never the provider's own wording here.
 */
export interface ChatErrorDetail {
  provider?: string
  model?: string
  /** OpenClaw's failover reason: auth, billing, rate_limit, overloaded, server_error, timeout, format, model_not_found, context_overflow */
  failoverReason?: string
  httpStatus?: number
}

/** `text` is the cumulative visible text of the current assistant message, `delta` the new suffix. */
export interface AssistantData {
  text: string
  delta: string
  /**
   * Loopdesk: what the message showed so far is taken back (`text` and `delta` empty) — it was reasoning, not reply:
   * the model's text had a closing </think> tag with no opener (runtime streaming/think-tag-text.ts)
   */
  replace?: true
}

export interface ThinkingData {
  text: string
  delta: string
}

/**
 * Loopdesk's own stream (not OpenClaw's; the gateway sends it only to clients with REASONING_STATUS_CAP):
 * the model entered (`start`) or left (`end`) a reasoning block — at every reasoning level, so a window can
 * say "Thinking…" while the text stays hidden. `text` (the finished block) only at reasoning level `on`.
 */
export type ReasoningData = { phase: 'start' } | { phase: 'end'; text?: string }

/**
 * Loopdesk's own stream (the gateway sends it only to clients with RUN_WAIT_CAP): the run was accepted but
 * cannot start yet — its session's lane is busy with an earlier run, or every global slot
 * (`agents.defaults.maxConcurrent`) is taken (`running` of `limit`, `ahead` more queued before it). Lifecycle
 * `start` ends the wait. OpenClaw's clients learn it only from `agent.wait`'s `timeoutPhase: "queue"`.
 * `message`: the run's message (its attachment lines included), which the transcript gets only when the run
 * starts — a window reloaded meanwhile shows it from this event (the runtime's recent-event ring).
 */
export type LaneWaitData = (
  | { phase: 'waiting'; lane: 'session'; ahead: number }
  | { phase: 'waiting'; lane: 'global'; running: number; limit: number; ahead: number }
) & { message: string }

/**
 * Loopdesk's own stream (the gateway sends it only to clients with MODEL_SILENCE_CAP): nothing has come from
 * the model server for `silentMs` — since the request went out (`since: "request"`: no first token yet) or since
 * its last data mid-reply (`"reply"`; `idleTimeoutMs`: the silence after which the call fails). `resumed`: data
 * came again, or the call ended. Runtime `runner/model-silence.ts`.
 */
export type SilenceData =
  | { phase: 'silent'; since: 'request' | 'reply'; silentMs: number; provider: string; idleTimeoutMs?: number }
  | { phase: 'resumed' }

export type ToolData =
  | { phase: 'start'; name: string; toolCallId: string; args: unknown }
  | { phase: 'update'; name: string; toolCallId: string; partialResult: unknown }
  | { phase: 'result'; name: string; toolCallId: string; result: unknown; isError: boolean; meta?: string }

export type CompactionData = { phase: 'start' } | { phase: 'end'; willRetry: boolean; completed: boolean }

/** A partial reply emitted by block streaming (`agents.defaults.blockStreamingBreak`). */
export interface BlockData {
  text: string
  isReasoning?: boolean
  /** "message": sent by the `message` tool; "stream": a block-streaming chunk of the assistant text */
  source?: 'message' | 'stream'
}

/** Chat projection of a run (OpenClaw `chat` event). */
export interface ChatEvent {
  runId: string
  sessionKey: string
  seq: number
  state: 'delta' | 'final' | 'aborted' | 'error'
  message?: { role: 'assistant'; content: Array<{ type: 'text'; text: string }>; timestamp: number }
  /** delta only (protocol 4): the text added since the previous delta, or the whole text with `replace` */
  deltaText?: string
  /** delta only: the text is not an extension of the previous delta's; replace it with deltaText */
  replace?: true
  errorMessage?: string
  errorKind?: ErrorKind
  /** error only, protocol 4 (v3's ChatEvent schema is closed): what is known of the failed model request */
  errorDetail?: ChatErrorDetail
  usage?: UsageTotals
  stopReason?: string
  /** the session's agent: on the gateway's wire to protocol-4 connections only (OpenClaw v4 adds it) */
  agentId?: string
  /** a child session's parent: on the gateway's wire to protocol-4 connections only (spawned-by-wire.ts) */
  spawnedBy?: string
}

export interface UsageTotals {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  totalTokens: number
  costUsd: number
}

export interface ExecApprovalRequest {
  id: string
  runId: string
  sessionKey: string
  toolCallId: string
  command: string
  cwd: string
  createdAt: number
  expiresAt: number
}

export interface ExecApprovalResolved {
  id: string
  runId: string
  sessionKey: string
  decision: ApprovalDecision
  resolvedBy: 'user' | 'timeout' | 'abort'
  ts: number
  /** who resolved it, as the resolving client stated it (OpenClaw v4 `exec.approval.resolve` `reviewer`) */
  reviewer?: ApprovalReviewer
  /** allow-always with a term (`grantExpiresInDays`): the command runs without asking until then (ms) */
  grantExpiresAt?: number
}

/** A channel sender a client resolved an approval for (OpenClaw ApprovalChannelReviewer). */
export interface ApprovalReviewer {
  channel: string
  accountId: string
  senderId: string
}

export type ApprovalDecision = 'allow-once' | 'allow-always' | 'deny'

/** One message waiting in a session's queue (queue modes, issue 4), observable by the UI. */
export interface QueueItem {
  id: string
  sessionKey: string
  mode: QueueMode
  text: string
  enqueuedAt: number
  status: 'queued' | 'steered' | 'started' | 'collected' | 'dropped' | 'removed' | 'failed'
  runId?: string
  detail?: string
  /** waiting but not started on its own: the user stopped the run it waited behind (loopdesk.queue.release) */
  held?: true
}

export type QueueMode = 'steer' | 'followup' | 'collect' | 'interrupt'

export interface SessionsChangedEvent {
  sessionKey: string
  reason: 'create' | 'send' | 'start' | 'end' | 'error' | 'patch' | 'reset' | 'delete' | 'compact' | 'queue'
  runId?: string
  ts: number
  session?: import('./methods').SessionRow
}

/** Every event a client can receive, keyed by the gateway event name. */
export interface EventMap {
  agent: AgentEvent
  chat: ChatEvent
  'sessions.changed': SessionsChangedEvent
  'exec.approval.requested': ExecApprovalRequest
  'exec.approval.resolved': ExecApprovalResolved
  'queue.changed': { sessionKey: string; items: QueueItem[] }
  tick: { ts: number }
  shutdown: { reason: string; restartExpectedMs?: number }
}

/** A remote device asks to be paired with the gateway (OpenClaw's pairing request). The gateway's own
 *  event, not the runtime's (so not in EventMap): the Bridge delivers it through `subscribePairing`
 *  (src/shared/pairing.ts). */
export interface DevicePairRequested {
  requestId: string
  deviceId: string
  publicKey: string
  clientId: string
  clientMode: string
  platform?: string
  role: string
  scopes: string[]
  remoteIp: string
  ts: number
}

export interface DevicePairResolved {
  requestId: string
  deviceId: string
  decision: 'approved' | 'rejected'
  ts: number
}

export type EventName = keyof EventMap

export type AnyEvent = { [K in EventName]: { event: K; payload: EventMap[K] } }[EventName]

/** What a subscriber wants to see. Empty filter = everything. */
export interface EventFilter {
  sessionKey?: string
  runId?: string
  events?: EventName[]
}

export function eventMatches(filter: EventFilter, ev: AnyEvent): boolean {
  if (filter.events && !filter.events.includes(ev.event)) return false
  const p = ev.payload as { sessionKey?: string; runId?: string }
  if (filter.sessionKey && p.sessionKey !== undefined && p.sessionKey !== filter.sessionKey) return false
  if (filter.runId && p.runId !== undefined && p.runId !== filter.runId) return false
  return true
}

/** Gateway caps a client may declare: `tool-events` (OpenClaw) and Loopdesk's "this client shows tool
 *  results" — without the latter the gateway strips tool results unless the session is verbose full. */
export const TOOL_EVENTS_CAP = 'tool-events'
export const TOOL_RESULTS_CAP = 'loopdesk.tool-results'
/** Loopdesk's "this client reads chat commands' answers": a bare `/new` / `/reset` through `chat.send`
 *  answers `{status: "command", ok, messages}`. Without it the gateway answers as OpenClaw does —
 *  `{runId, status: "started"}`, then a chat `final` carrying the messages — so an OpenClaw UI's send ends. */
export const CHAT_COMMANDS_CAP = 'loopdesk.chat-commands'
/** Loopdesk's "this client reads the `reasoning` agent stream" (ReasoningData). OpenClaw clients never get it. */
export const REASONING_STATUS_CAP = 'loopdesk.reasoning-status'
/** Loopdesk's "this client subscribes (`sessions.subscribe`) for the session list only": the gateway sends it no
 *  transcript or tool copies through that subscription (`session.message`, `sessions.changed` {phase: "message"},
 *  `session.tool`) — the window follows runs through `agent`/`chat` and reads transcripts with chat.history. */
export const SESSION_LIST_ONLY_CAP = 'loopdesk.session-list-only'
/** Loopdesk's "this client reads the lifecycle end `{aborted, stopReason: "removed"}` of a queued message removed
 *  before it ran" (`loopdesk.queue.remove`). OpenClaw has no such removal: its clients get only the chat `aborted`. */
export const QUEUE_REMOVED_CAP = 'loopdesk.queue-removed'

/** The lifecycle end the runtime closes a removed queued message's run id with (it never started). */
export function isRemovedQueuedEnd(ev: AgentEvent): boolean {
  if (ev.stream !== 'lifecycle' || !ev.data || typeof ev.data !== 'object') return false
  const d = ev.data as { phase?: unknown; stopReason?: unknown }
  return d.phase === 'end' && d.stopReason === 'removed'
}
/** Loopdesk's "this client reads the `lane` agent stream" (LaneWaitData: a run waiting for a slot). */
export const RUN_WAIT_CAP = 'loopdesk.run-wait'
/** Loopdesk's "this client reads the `silence` agent stream" (SilenceData: no data from the model for a while). */
export const MODEL_SILENCE_CAP = 'loopdesk.model-silence'
