// Hook points of a run. The runner calls these at fixed places; every one is optional and the default is
// a no-op, so the plugin-hook / queue-mode / compaction modules (issue 4) plug in without runner changes.
// Hook failures never break a run: the runner catches, logs through `onHookError`, and carries on.
import type { AgentEvent, AgentMessage, AgentTool } from '@earendil-works/pi-agent-core'
import type { ToolResultMessage } from '@earendil-works/pi-ai'
import type { EmitInput, ResolvedModel, SessionEntry, TranscriptEntry } from '../contracts'
import type { BootstrapHook } from '../prompt'

/** What every hook learns about the run it is called for. */
export interface RunHookContext {
  runId: string
  sessionKey: string
  sessionId: string
  agentId: string
  workspaceDir: string
  model: ResolvedModel
  /** aborted when the run is cancelled or times out */
  signal: AbortSignal
  /** emit an agent event for this run (e.g. `compaction` start/end) with the run's seq numbering */
  emit(stream: EmitInput['stream'], data: Record<string, unknown>): void
  /** append an entry (e.g. a `compaction` entry) to the session transcript; the write lock is held */
  appendTranscript(entry: TranscriptEntry): Promise<void>
  /** transcript entry id of a message of this run's conversation (compaction's firstKeptEntryId) */
  entryIdOf?(message: AgentMessage): string | undefined
}

/** Handle of a live run, for queue modes (steer) and /stop. */
export interface ActiveRunHandle {
  runId: string
  sessionKey: string
  sessionId: string
  startedAt: number
  /** true while the model is producing output or tools run (steering is possible) */
  isStreaming(): boolean
  /** inject a user message after the current turn's tools finish (pi `agent.steer`) */
  steer(text: string): void
  /** queue a user message to run when the agent would otherwise stop (pi `agent.followUp`) */
  followUp(text: string): void
  abort(reason?: 'abort' | 'timeout' | 'shutdown'): void
  /** partial assistant text streamed so far in this run */
  partialText(): string
}

export interface BeforeAgentStartResult {
  /** replaces the system prompt */
  systemPrompt?: string
  /** prepended to the user's message */
  prependContext?: string
}

export interface BeforeToolCallResult {
  /** replacement params (validated by the tool again is not guaranteed — keep the schema) */
  params?: unknown
  block?: boolean
  blockReason?: string
}

export interface RunEndInfo {
  messages: AgentMessage[]
  success: boolean
  aborted: boolean
  error?: string
  durationMs: number
}

export interface RunHooks {
  /** `agent:bootstrap` internal hook: add/remove bootstrap files before the system prompt is final */
  bootstrap?: BootstrapHook
  /** plugin `before_agent_start`: override the system prompt / prepend context to the prompt */
  beforeAgentStart?(
    event: { prompt: string; systemPrompt: string; messages: AgentMessage[] },
    ctx: RunHookContext,
  ): Promise<BeforeAgentStartResult | void> | BeforeAgentStartResult | void
  /** plugin `before_tool_call`: change params or block the call */
  beforeToolCall?(
    event: { toolName: string; toolCallId: string; params: unknown },
    ctx: RunHookContext,
  ): Promise<BeforeToolCallResult | void> | BeforeToolCallResult | void
  /** plugin `after_tool_call` (observe) */
  afterToolCall?(
    event: { toolName: string; toolCallId: string; params: unknown; result: unknown; isError: boolean; durationMs: number },
    ctx: RunHookContext,
  ): Promise<void> | void
  /** plugin `tool_result_persist`: SYNC transform of a tool result before it is written to the transcript */
  toolResultPersist?(message: ToolResultMessage, ctx: RunHookContext): ToolResultMessage | void
  /**
   * Called before EVERY model request with the messages about to be sent (pi `transformContext`):
   * the place for compaction. Return replacement messages (keep the leading system message!). An error with
   * `refusesRequest: true` fails the model call instead of sending it (any other error: sent unchanged).
   */
  transformContext?(messages: AgentMessage[], ctx: RunHookContext): Promise<AgentMessage[]> | AgentMessage[]
  /**
   * Every pi event of the run, delivered before the run bridge sees it (block streaming flushes its
   * pending text here before a tool's start event goes out). Awaited; failures are isolated.
   */
  agentEvent?(event: AgentEvent, ctx: RunHookContext): Promise<void> | void
  /**
   * The model request failed. Return `{retry: true}` (after compacting) to drop the failed assistant message
   * and continue the run once more; the compaction module allows one such retry per run.
   */
  onContextOverflow?(
    event: { messages: AgentMessage[]; errorMessage: string },
    ctx: RunHookContext,
  ): Promise<{ retry: boolean } | void> | { retry: boolean } | void
  /**
   * plugin `message_sending`: text about to be delivered to the user — by the `message` tool (kind "message")
   * or as the run's final reply (kind "reply"); may rewrite it (`content`) or stop it (`cancel`)
   */
  messageSending?(
    event: { content: string; kind?: 'message' | 'reply' },
    ctx: RunHookContext,
  ): Promise<{ content?: string; cancel?: boolean } | void> | { content?: string; cancel?: boolean } | void
  /** plugin `message_sent` (observe): text was delivered (the `message` tool, or kind "reply": the final reply) */
  messageSent?(event: { content: string; success: boolean; error?: string; kind?: 'message' | 'reply' }, ctx: RunHookContext): void
  /** plugin `agent_end` (observe): the run's messages and outcome */
  agentEnd?(info: RunEndInfo, ctx: RunHookContext): Promise<void> | void
  /** the run is live (register it for steer / interrupt) */
  runStarted?(handle: ActiveRunHandle): void
  /** the run finished (any outcome) */
  runEnded?(handle: ActiveRunHandle): void
  /** extra tools for this run (plugins) */
  extraTools?(ctx: RunHookContext): AgentTool<any, any>[]
}

/** Hook points of the runtime outside a run (internal command hooks, compaction on demand, queue modes). */
export interface CommandHookEvent {
  command: 'new' | 'reset' | 'stop'
  sessionKey: string
  agentId: string
  /** session id before the command (reset/new: the archived one) */
  sessionId?: string
  /** new session id (reset/new) */
  nextSessionId?: string
  /** /stop: runs that were aborted */
  abortedRunIds?: string[]
}

export interface CompactRequest {
  sessionKey: string
  agentId: string
  entry: SessionEntry
  instructions?: string
}

export interface CompactOutcome {
  compacted: boolean
  reason?: string
  tokensBefore?: number
  tokensAfter?: number
}

export interface RuntimeHooks extends RunHooks {
  /** internal command hooks `command:new` / `command:reset` / `command:stop`; returned strings go to the user */
  command?(event: CommandHookEvent): Promise<string[] | void> | string[] | void
  /** plugin `message_received` (observe): a chat message arrived for a session */
  messageReceived?(event: { sessionKey: string; agentId: string; content: string; runId?: string }): void
  /**
   * sessions.delete removed the session's entry; its transcript is still in place (it is archived or
   * removed right after). Plugins' session_end fires from here, for any session the store held — also
   * ones created before this process started.
   */
  sessionDeleted?(event: { sessionKey: string; agentId: string; sessionId: string; sessionFile: string }): void
  /** `sessions.compact` (manual compaction). Without it the runtime answers compacted:false. */
  compact?(request: CompactRequest): Promise<CompactOutcome>
}

/** Calls a hook, isolating failures (a broken plugin must not break the run). */
export async function callHook<T>(
  name: string,
  fn: (() => T | Promise<T>) | undefined,
  onError: (name: string, err: unknown) => void,
): Promise<T | undefined> {
  if (!fn) return undefined
  try {
    return await fn()
  } catch (err) {
    onError(name, err)
    return undefined
  }
}

export const defaultHookErrorReporter = (name: string, err: unknown) =>
  console.warn(`[runtime] hook ${name} failed: ${err instanceof Error ? err.message : String(err)}`)
