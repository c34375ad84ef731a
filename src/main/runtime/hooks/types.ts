// Plugin hook names, event/context shapes and return contracts (OpenClaw plugin hooks, reference §8.3).
// Handlers may be sync or async except `tool_result_persist`, which must be synchronous.

/** Minimal logger the hook machinery reports to (plugin errors, ignored results). */
export interface HookLogger {
  info?(msg: string): void
  warn(msg: string): void
  error(msg: string): void
}

export const consoleHookLogger: HookLogger = {
  info: (m) => console.info(m),
  warn: (m) => console.warn(m),
  error: (m) => console.error(m),
}

type MaybePromise<T> = T | Promise<T>

/** Context passed to agent-level hooks. */
export interface AgentHookContext {
  runId?: string
  agentId?: string
  sessionKey?: string
  sessionId?: string
  workspaceDir?: string
  modelProviderId?: string
  modelId?: string
  trigger?: string
}

export interface ToolHookContext {
  runId?: string
  agentId?: string
  sessionKey?: string
  sessionId?: string
  toolName: string
  toolCallId?: string
}

export interface MessageHookContext {
  sessionKey?: string
  channelId?: string
  runId?: string
}

export interface SessionHookContext {
  agentId?: string
  sessionId: string
  sessionKey?: string
}

/** A pi message as stored in the transcript (user | assistant | toolResult | system). */
export type HookMessage = { role: string; [k: string]: unknown }

// ------------------------------------------------------------------ events and results

export interface BeforeAgentStartEvent {
  prompt: string
  messages?: HookMessage[]
}
export interface BeforeAgentStartResult {
  /** replaces the system prompt; the highest-priority defined value wins */
  systemPrompt?: string
  /** prepended to the user prompt; concatenated across handlers in priority order */
  prependContext?: string
}

export interface AgentEndEvent {
  messages: HookMessage[]
  success: boolean
  error?: string
  durationMs?: number
}

export interface BeforeCompactionEvent {
  messageCount: number
  compactingCount?: number
  tokenCount?: number
  messages?: HookMessage[]
  reason?: 'threshold' | 'overflow' | 'manual'
}
export interface AfterCompactionEvent {
  messageCount: number
  tokenCount?: number
  compactedCount: number
  summary?: string
  reason?: 'threshold' | 'overflow' | 'manual'
}

export interface BeforeToolCallEvent {
  toolName: string
  params: unknown
  toolCallId?: string
  runId?: string
}
export interface BeforeToolCallResult {
  params?: unknown
  block?: boolean
  blockReason?: string
}

export interface AfterToolCallEvent {
  toolName: string
  params: unknown
  toolCallId?: string
  runId?: string
  result?: unknown
  error?: string
  durationMs?: number
}

export interface ToolResultPersistEvent {
  toolName?: string
  toolCallId?: string
  message: HookMessage
  isSynthetic?: boolean
}
export interface ToolResultPersistResult {
  message?: HookMessage
}

export interface MessageReceivedEvent {
  from: string
  content: string
  timestamp?: number
  metadata?: Record<string, unknown>
}
export interface MessageSendingEvent {
  to: string
  content: string
  metadata?: Record<string, unknown>
}
export interface MessageSendingResult {
  content?: string
  cancel?: boolean
}
export interface MessageSentEvent {
  to: string
  content: string
  success: boolean
  error?: string
  /** Loopdesk: { kind: "message" | "reply", runId } */
  metadata?: Record<string, unknown>
}

export type SessionEndReason = 'new' | 'reset' | 'deleted' | 'idle' | 'compaction' | 'unknown'

export interface SessionStartEvent {
  sessionId: string
  sessionKey?: string
  resumedFrom?: string
}
export interface SessionEndEvent {
  sessionId: string
  sessionKey?: string
  messageCount: number
  durationMs?: number
  reason?: SessionEndReason
  nextSessionId?: string
  /** deleted sessions: the transcript as it was when the session ended (it is archived or removed next) */
  sessionFile?: string
}

export interface GatewayStartEvent {
  port: number
}
export interface GatewayStopEvent {
  reason?: string
}

// ------------------------------------------------------------------ handler table

export interface PluginHookHandlers {
  before_agent_start: (
    event: BeforeAgentStartEvent,
    ctx: AgentHookContext,
  ) => MaybePromise<BeforeAgentStartResult | void | undefined>
  agent_end: (event: AgentEndEvent, ctx: AgentHookContext) => MaybePromise<void>
  before_compaction: (event: BeforeCompactionEvent, ctx: AgentHookContext) => MaybePromise<void>
  after_compaction: (event: AfterCompactionEvent, ctx: AgentHookContext) => MaybePromise<void>
  before_tool_call: (
    event: BeforeToolCallEvent,
    ctx: ToolHookContext,
  ) => MaybePromise<BeforeToolCallResult | void | undefined>
  after_tool_call: (event: AfterToolCallEvent, ctx: ToolHookContext) => MaybePromise<void>
  /** synchronous only: a returned Promise is ignored (with a warning) */
  tool_result_persist: (
    event: ToolResultPersistEvent,
    ctx: ToolHookContext,
  ) => ToolResultPersistResult | void | undefined
  message_received: (event: MessageReceivedEvent, ctx: MessageHookContext) => MaybePromise<void>
  message_sending: (
    event: MessageSendingEvent,
    ctx: MessageHookContext,
  ) => MaybePromise<MessageSendingResult | void | undefined>
  message_sent: (event: MessageSentEvent, ctx: MessageHookContext) => MaybePromise<void>
  session_start: (event: SessionStartEvent, ctx: SessionHookContext) => MaybePromise<void>
  session_end: (event: SessionEndEvent, ctx: SessionHookContext) => MaybePromise<void>
  gateway_start: (event: GatewayStartEvent, ctx: Record<string, never>) => MaybePromise<void>
  gateway_stop: (event: GatewayStopEvent, ctx: Record<string, never>) => MaybePromise<void>
}

export type HookName = keyof PluginHookHandlers

export const OBSERVE_HOOKS = [
  'agent_end',
  'before_compaction',
  'after_compaction',
  'after_tool_call',
  'message_received',
  'message_sent',
  'session_start',
  'session_end',
  'gateway_start',
  'gateway_stop',
] as const satisfies readonly HookName[]

export type ObserveHookName = (typeof OBSERVE_HOOKS)[number]

export const MODIFYING_HOOKS = [
  'before_agent_start',
  'before_tool_call',
  'tool_result_persist',
  'message_sending',
] as const satisfies readonly HookName[]

export const HOOK_NAMES: readonly HookName[] = [...MODIFYING_HOOKS, ...OBSERVE_HOOKS]

export function isHookName(name: unknown): name is HookName {
  return typeof name === 'string' && (HOOK_NAMES as readonly string[]).includes(name)
}

export type HookEventOf<K extends HookName> = Parameters<PluginHookHandlers[K]>[0]
export type HookContextOf<K extends HookName> = Parameters<PluginHookHandlers[K]>[1]

export interface RegisterOptions {
  /** higher runs first; default 0; equal priorities keep registration order */
  priority?: number
  /** the plugin that owns this handler (for logs and unregisterPlugin) */
  pluginId?: string
  /** time limit for each call of this handler in ms (default: the registry's, 10 s); 0 = none */
  timeoutMs?: number
}
