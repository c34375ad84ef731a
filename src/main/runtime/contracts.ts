// Interfaces between the runtime's modules. Each folder implements its part; the runner and the
// Runtime facade depend only on these shapes, so the modules can be built and tested separately.
import type { AgentTool } from '@earendil-works/pi-agent-core'
import type { Model } from '@earendil-works/pi-ai'
import type {
  AgentEvent,
  AgentStream,
  ApprovalDecision,
  ExecApprovalRequest,
  ExecApprovalResolved,
} from '../../shared/events'
import type { FastMode, ModelChoice, PermissionMode, ReplyPayload, SessionStatus, ThinkingLevel, ToolInfo } from '../../shared/methods'
import type { SessionOrganisation } from '../../shared/session-organisation'

// ------------------------------------------------------------------ config (<stateDir>/loopdesk.json)


/** a queue mode as loopdesk.json may name it: the four modes and April's retired names (config/schema.ts) */
export type ConfigQueueMode = 'steer' | 'followup' | 'collect' | 'interrupt' | 'queue' | 'steer-backlog' | 'steer+backlog'
export type ProviderApi =
  | 'openai-completions'
  | 'openai-responses'
  | 'anthropic-messages'
  | 'google-generative-ai'
  | (string & {})

export interface ModelConfig {
  id: string
  name?: string
  /** default DEFAULT_CONTEXT_WINDOW (models/registry.ts) */
  contextWindow?: number
  /** default min(DEFAULT_MAX_TOKENS, contextWindow) */
  maxTokens?: number
  reasoning?: boolean
  input?: Array<'text' | 'image'>
  cost?: { input: number; output: number; cacheRead?: number; cacheWrite?: number }
  /** openai-completions only: what the server does not take (`supportsUsageInStreaming: false`: no `stream_options`) */
  compat?: ModelCompat
}

export interface ModelCompat {
  supportsUsageInStreaming?: boolean
  /** false: a reasoning model is sent no `reasoning_effort` (default: pi-ai decides by the URL) */
  supportsReasoningEffort?: boolean
  /** which field carries the reply limit (default: pi-ai decides by the URL, mostly max_completion_tokens) */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens'
}

export interface ProviderConfig {
  baseUrl?: string
  api?: ProviderApi
  /** literal key (discouraged; prefer apiKeyEnv or the secure credential store) */
  apiKey?: string
  /** name of an environment variable holding the key */
  apiKeyEnv?: string
  headers?: Record<string, string>
  models?: ModelConfig[]
}

export interface AgentDefaults {
  model?: { primary?: string }
  thinkingDefault?: ThinkingLevel
  verboseDefault?: 'off' | 'on' | 'full'
  reasoningDefault?: 'off' | 'on' | 'stream'
  timeoutSeconds?: number
  workspace?: string
  compaction?: { reserveTokens?: number; keepRecentTurns?: number }
  blockStreamingDefault?: 'off' | 'on'
  blockStreamingBreak?: 'text_end' | 'message_end'
  bootstrapMaxChars?: number
  maxConcurrent?: number
  /**
   * the model stream: `idleTimeoutSeconds` of silence mid-reply fails the call (0 = never; OpenClaw's key),
   * `silenceNoticeSeconds` of silence before the run says so (0 = never)
   */
  llm?: { idleTimeoutSeconds?: number; silenceNoticeSeconds?: number }
}

export interface AgentEntry {
  id: string
  workspace?: string
  model?: string
  default?: boolean
}

export interface LoopdeskConfig {
  models?: { providers?: Record<string, ProviderConfig> }
  agents?: { defaults?: AgentDefaults; list?: AgentEntry[] }
  gateway?: {
    port?: number
    bind?: 'loopback' | 'lan' | 'all'
    auth?: { token?: string }
    allowedOrigins?: string[]
  }
  messages?: {
    queue?: {
      /** also April's retired `queue` / `steer-backlog` / `steer+backlog` (read as steer / followup) */
      mode?: ConfigQueueMode
      /** per channel, OpenClaw's; Loopdesk reads `webchat` (config/defaults.ts MESSAGE_CHANNEL) */
      byChannel?: Record<string, ConfigQueueMode>
      debounceMsByChannel?: Record<string, number>
      /** April's global key (OpenClaw 2026.9 has only debounceMsByChannel); read after the channel's entry */
      debounceMs?: number
      cap?: number
      drop?: 'old' | 'new' | 'summarize'
    }
  }
  tools?: {
    exec?: {
      allowlist?: string[]
      approvalTimeoutMs?: number
      timeoutSeconds?: number
      maxOutputChars?: number
      /**
       * secret environment variables commands may still see (exact names, `PREFIX_*`, or `*` for all). By default
       * provider API keys, configured apiKeyEnv variables and Loopdesk's own tokens are removed from exec's env.
       */
      envPassthrough?: string[]
    }
    webFetch?: {
      maxBytes?: number
      timeoutMs?: number
      /** let web_fetch reach this machine (127.0.0.0/8, ::1, localhost), e.g. a local dev server; default false */
      allowLoopback?: boolean
      /** let web_fetch reach private networks (RFC 1918, CGNAT, fc00::/7); default false. Link-local is never allowed */
      allowPrivateNetwork?: boolean
    }
  }
  /** internal hook scripts: <stateDir>/hooks always (unless enabled:false); <workspace>/hooks only with workspace:true,
   *  because the agent's own write tool can create files in its workspace (that would bypass exec approval) */
  hooks?: {
    internal?: { enabled?: boolean; workspace?: boolean }
    /** limit per plugin / internal hook call in ms (default 10 000; 0 = none). Past it before_tool_call
     *  blocks the tool (fail closed); every other hook is skipped and logged. A plugin may set its own per handler.
     *  Loading a plugin or hook script has the same limit (its module's top level, register(api)). */
    timeoutMs?: number
  }
  plugins?: { enabled?: boolean; disabled?: string[] }
  session?: {
    /** archived transcripts (`<id>.jsonl.<reason>.<time>`) older than this are removed automatically
     *  (at start-up, then every 6 h; sessions/archive-prune.ts); default 30 as in OpenClaw; 0 keeps them */
    archiveRetentionDays?: number
  }
}

/** Config with every default filled in (what the runtime reads). */
export interface ResolvedConfig {
  raw: LoopdeskConfig
  defaultAgentId: string
  agents: Array<{ id: string; workspace: string; model?: string }>
  defaults: Required<Pick<AgentDefaults, 'timeoutSeconds' | 'thinkingDefault' | 'verboseDefault' | 'reasoningDefault'>> & {
    model?: string
    workspace: string
    compaction: { reserveTokens: number; keepRecentTurns: number }
    blockStreamingDefault: 'off' | 'on'
    blockStreamingBreak: 'text_end' | 'message_end'
    bootstrapMaxChars: number
    maxConcurrent: number
    llm: { idleTimeoutSeconds: number; silenceNoticeSeconds: number }
  }
  queue: { mode: 'steer' | 'followup' | 'collect' | 'interrupt'; debounceMs: number; cap: number; drop: 'old' | 'new' | 'summarize' }
  exec: { allowlist: string[]; approvalTimeoutMs: number; timeoutSeconds: number; maxOutputChars: number; env?: ExecEnvPolicy }
  webFetch: { maxBytes: number; timeoutMs: number; allowLoopback?: boolean; allowPrivateNetwork?: boolean }
  gateway: { port: number; bind: 'loopback' | 'lan' | 'all'; token?: string; allowedOrigins: string[] }
  session: { archiveRetentionDays: number }
}

/** Which secret variables exec strips from a command's environment (tools/exec-env.ts). */
export interface ExecEnvPolicy {
  /** names / `PREFIX_*` patterns the user allows through anyway; `*` = everything */
  passthrough: string[]
  /** extra secret names to strip (the configured providers' apiKeyEnv) */
  secretNames: string[]
}

// ------------------------------------------------------------------ credentials

/** Provider API keys. Electron: safeStorage-backed; headless: a 0600 file in the state dir. Never logged. */
export interface CredentialStore {
  get(provider: string): string | undefined
  has(provider: string): boolean
  set(provider: string, key: string): void
  delete(provider: string): void
  /** providers with a stored key */
  list(): string[]
  /** where keys go, as the settings screen tells the user (default: a file, location unknown) */
  readonly location?: CredentialLocation
}

/** `system`: the OS keychain (Electron safeStorage); `file`: a file only the user's account can read */
export type CredentialLocation = { store: 'system' } | { store: 'file'; path: string }

// ------------------------------------------------------------------ sessions

/** One row of sessions.json (OpenClaw SessionEntry subset + Loopdesk fields). */
export interface SessionEntry extends SessionOrganisation {
  sessionId: string
  updatedAt: number
  createdAt?: number
  /** opaque, minted when the entry is created and again on every reset (OpenClaw's stale-mutation fence) */
  lifecycleRevision?: string
  status?: SessionStatus
  activeRunId?: string
  startedAt?: number
  endedAt?: number
  runtimeMs?: number
  label?: string
  /** presentation title given at creation (sessions.create); unlike label, not unique */
  displayName?: string
  /** the session this one was created from (sessions.create parentSessionKey) */
  spawnedBy?: string
  /** spawn lineage depth (sessions.create spawnDepth); absent = a root session */
  spawnDepth?: number
  /**
   * a fork's origin (OpenClaw's row field): the parent session and transcript it copied, and for sessions.fork the
   * user message it was cut before; gone on reset (the conversation it describes is gone)
   */
  forkSource?: { sessionKey: string; sessionId: string; entryId?: string }
  /** model id the last run used (display) */
  model?: string
  modelProvider?: string
  /** "<provider>/<model>" chosen for this session (sessions.patch / sessions.create); runs use it over the defaults */
  modelOverride?: string
  thinkingLevel?: ThinkingLevel
  verboseLevel?: 'off' | 'on' | 'full'
  reasoningLevel?: 'off' | 'on' | 'stream'
  /** as stored: an older file may hold an alias or a retired name (`steer-backlog`); read it with normalizeQueueMode */
  queueMode?: string
  queueDebounceMs?: number
  queueCap?: number
  queueDrop?: 'old' | 'new' | 'summarize'
  /** OpenClaw fast mode (sessions.patch / sessions.create); a chat.send fastMode overrides it per message (runner/fast-mode.ts) */
  fastMode?: FastMode
  /** what the session's runs may do (sessions.patch / sessions.create); absent = guarded (tools/permission-mode.ts) */
  permissionMode?: PermissionMode
  inputTokens?: number
  outputTokens?: number
  cacheRead?: number
  cacheWrite?: number
  totalTokens?: number
  estimatedCostUsd?: number
  compactionCount?: number
  lastMessagePreview?: string
  lastError?: string
  skillsSnapshot?: SkillsSnapshot
  systemPromptReport?: SystemPromptReport
  lastRunTiming?: { acceptedAt: number; startedAt?: number; firstDeltaAt?: number; firstToolAt?: number; endedAt?: number }
}

export interface SkillsSnapshot {
  /** hash of the SKILL.md files it was built from; rebuilt when it changes */
  fingerprint: string
  skills: Array<{ name: string; description: string; path: string }>
}

export interface SystemPromptReport {
  builtAt: number
  chars: number
  sections: Array<{ name: string; chars: number }>
  bootstrapFiles: Array<{ name: string; chars: number; truncated: boolean; missing?: boolean }>
  skills: string[]
}

/** Lines of a session transcript (JSONL). Line 1 is the header. */
export type TranscriptEntry =
  | { type: 'session'; version: 1; id: string; timestamp: string; cwd: string; sessionKey: string }
  | {
      type: 'message'
      id: string
      timestamp: number
      runId?: string
      /** a pi AgentMessage: user | assistant | toolResult (| system) */
      message: { role: string; [k: string]: unknown }
    }
  | {
      type: 'compaction'
      id: string
      timestamp: number
      runId?: string
      summary: string
      /** id of the first message entry kept verbatim after the summary */
      firstKeptEntryId: string
      tokensBefore: number
      tokensAfter?: number
    }
  | { type: 'run'; id: string; timestamp: number; runId: string; phase: 'start' | 'end' | 'interrupted'; status?: string }

// ------------------------------------------------------------------ events

export interface EmitInput {
  runId: string
  stream: AgentStream
  data: Record<string, unknown>
  sessionKey?: string
}

export interface EventBusLike {
  /** assigns seq (per run, from 1) and ts; delivers to listeners (errors isolated); keeps a per-session ring */
  emit(input: EmitInput): AgentEvent
  subscribe(listener: (ev: AgentEvent) => void): () => void
  recent(sessionKey: string, limit?: number): AgentEvent[]
  /** forget seq counters of a finished run */
  clearRun(runId: string): void
}

// ------------------------------------------------------------------ models

export interface ResolvedModel {
  ref: string // "<provider>/<id>"
  provider: string
  id: string
  model: Model<any>
}

export interface ModelRegistryLike {
  /** resolve "<provider>/<model>" (or the default when undefined); throws ApiError INVALID_REQUEST when unknown */
  resolve(ref?: string): ResolvedModel
  /** pi stream function bound to the registry's Models collection */
  streamFn: (...args: any[]) => any
  /** key for a provider: credential store → apiKeyEnv → apiKey → built-in env var → dummy for keyless local */
  getApiKey(provider: string): string | undefined
  list(): ModelChoice[]
  /** how pi retries a failed model request (what the run tells the user while it waits) */
  readonly retryPolicy?: { maxRetries: number; maxRetryDelayMs: number }
}

// ------------------------------------------------------------------ tools

export interface ApprovalBrokerLike {
  /** emits exec.approval.requested, waits for resolve() / timeout (deny) / abort (deny) */
  request(
    req: Omit<ExecApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>,
    signal?: AbortSignal,
  ): Promise<ApprovalDecision>
  resolve(id: string, decision: ApprovalDecision, opts?: { reviewer?: ExecApprovalResolved['reviewer']; grantExpiresInDays?: number }): ExecApprovalResolved
  pending(sessionKey?: string): ExecApprovalRequest[]
}

export interface ToolRunContext {
  workspaceDir: string
  /** Loopdesk's state dir: file tools refuse it even when the workspace contains it (tools/paths.ts privateFences) */
  stateDir?: string
  /** the desktop app's Electron userData (settings, stored keys): refused like the state dir; none without the app */
  userDataDir?: string
  /** the config file (LOOPDESK_CONFIG_PATH may put it outside the state dir): refused like the state dir */
  configPath?: string
  runId: string
  sessionKey: string
  approvals: ApprovalBrokerLike
  /** commands that run without approval (exact command or prefix patterns like "git status*") */
  execAllowlist: string[]
  execTimeoutSeconds: number
  execMaxOutputChars: number
  /** secret env variables kept from commands (default: the built-in secret rules only) */
  execEnv?: ExecEnvPolicy
  /** allowLoopback / allowPrivateNetwork: opt-ins to the web_fetch network policy (both default false) */
  webFetch: { maxBytes: number; timeoutMs: number; allowLoopback?: boolean; allowPrivateNetwork?: boolean }
  /** grep: time one file's regex search may take (default 5 s) before the pattern is judged runaway */
  grep?: { regexTimeoutMs?: number }
  /** `message` tool: deliver visible text to the session now; (a Promise of) `false` = a plugin cancelled it */
  sendMessage(text: string): unknown
}

export type ToolFactory = (ctx: ToolRunContext) => AgentTool<any, any>[]

// ------------------------------------------------------------------ reply shaping

export interface PayloadInput {
  assistantTexts: string[]
  reasoningTexts: string[]
  reasoningMode: 'off' | 'on' | 'stream'
  verbose: 'off' | 'on' | 'full'
  toolSummaries: string[]
  /** texts already delivered by the `message` tool */
  messagingSent: string[]
  lastToolError?: { toolName: string; meta?: string; error: string }
  /** the model's error text when the run failed */
  errorText?: string
}

export type BuildPayloads = (input: PayloadInput) => ReplyPayload[]
export type { ToolInfo }
