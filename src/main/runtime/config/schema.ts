// The TypeBox schema of loopdesk.json (mirrors LoopdeskConfig in ../contracts). Objects are closed so a
// typo (`timeoutSecs`) is reported instead of silently ignored. `x-message` overrides the generic
// description of what a value must be.
import Type, { type TSchema } from 'typebox'
import { THINKING_LEVELS } from '../../../shared/methods'

const Closed = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: false })
const Opt = Type.Optional
const Literals = <const L extends readonly string[]>(values: L) => Type.Union(values.map((v) => Type.Literal(v)))
const Int = (min: number, max?: number) => Type.Integer(max === undefined ? { minimum: min } : { minimum: min, maximum: max })
const NonEmpty = (opts: Record<string, unknown> = {}) => Type.String({ minLength: 1, ...opts })

// the four modes and April's retired names, which OpenClaw 2026.9's doctor rewrites (queue → steer,
// steer-backlog / steer+backlog → followup) and Loopdesk reads as that (config/defaults.ts)
const QueueMode = Literals(['steer', 'followup', 'collect', 'interrupt', 'queue', 'steer-backlog', 'steer+backlog'] as const)

export const AGENT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$'
export const MODEL_REF_PATTERN = '^[^/\\s]+/\\S+$'
const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$'

export const ModelConfigSchema = Closed({
  id: NonEmpty(),
  name: Opt(Type.String()),
  // optional: registry.ts fills in DEFAULT_CONTEXT_WINDOW / DEFAULT_MAX_TOKENS
  contextWindow: Opt(Int(1)),
  maxTokens: Opt(Int(1)),
  reasoning: Opt(Type.Boolean()),
  input: Opt(Type.Array(Literals(['text', 'image'] as const))),
  cost: Opt(
    Closed({
      input: Type.Number({ minimum: 0 }),
      output: Type.Number({ minimum: 0 }),
      cacheRead: Opt(Type.Number({ minimum: 0 })),
      cacheWrite: Opt(Type.Number({ minimum: 0 })),
    }),
  ),
  // what the server does not take (openai-completions only); handed to pi-ai's model.compat
  compat: Opt(
    Closed({
      // false: no `stream_options: {include_usage: true}` in the request (older vLLM, LiteLLM, some Azure)
      supportsUsageInStreaming: Opt(Type.Boolean()),
      // false: no `reasoning_effort` for a reasoning model (servers that refuse it); default: by URL
      supportsReasoningEffort: Opt(Type.Boolean()),
      // the reply limit's field: `max_tokens` for servers that predate `max_completion_tokens`
      maxTokensField: Opt(Literals(['max_tokens', 'max_completion_tokens'] as const)),
    }),
  ),
})

export const ProviderConfigSchema = Closed({
  baseUrl: Opt(NonEmpty({ pattern: '^https?://\\S+$', 'x-message': 'must be an http:// or https:// URL' })),
  api: Opt(NonEmpty()),
  apiKey: Opt(NonEmpty()),
  apiKeyEnv: Opt(NonEmpty({ pattern: ENV_NAME_PATTERN, 'x-message': 'must be an environment variable name' })),
  headers: Opt(Type.Record(Type.String(), Type.String())),
  models: Opt(Type.Array(ModelConfigSchema)),
})

const ModelRef = (what: string) => NonEmpty({ pattern: MODEL_REF_PATTERN, 'x-message': `must be "<provider>/<model>" (${what})` })

export const AgentDefaultsSchema = Closed({
  model: Opt(Closed({ primary: Opt(ModelRef('e.g. "openai/gpt-4o"')) })),
  thinkingDefault: Opt(Literals(THINKING_LEVELS)),
  verboseDefault: Opt(Literals(['off', 'on', 'full'] as const)),
  reasoningDefault: Opt(Literals(['off', 'on', 'stream'] as const)),
  timeoutSeconds: Opt(Int(0)),
  workspace: Opt(NonEmpty()),
  compaction: Opt(Closed({ reserveTokens: Opt(Int(0)), keepRecentTurns: Opt(Int(0)) })),
  blockStreamingDefault: Opt(Literals(['off', 'on'] as const)),
  blockStreamingBreak: Opt(Literals(['text_end', 'message_end'] as const)),
  bootstrapMaxChars: Opt(Int(0)),
  maxConcurrent: Opt(Int(1, 256)),
  // OpenClaw's llm.idleTimeoutSeconds; silenceNoticeSeconds is Loopdesk's (seconds, fractions allowed)
  llm: Opt(Closed({ idleTimeoutSeconds: Opt(Type.Number({ minimum: 0 })), silenceNoticeSeconds: Opt(Type.Number({ minimum: 0 })) })),
})

export const AgentEntrySchema = Closed({
  id: NonEmpty({ pattern: AGENT_ID_PATTERN, 'x-message': 'must be a lowercase agent id ([a-z0-9_-], max 64)' }),
  workspace: Opt(NonEmpty()),
  model: Opt(ModelRef('the agent model')),
  default: Opt(Type.Boolean()),
})

export const LoopdeskConfigSchema = Closed({
  $schema: Opt(Type.String()),
  models: Opt(Closed({ providers: Opt(Type.Record(Type.String(), ProviderConfigSchema)) })),
  agents: Opt(Closed({ defaults: Opt(AgentDefaultsSchema), list: Opt(Type.Array(AgentEntrySchema)) })),
  gateway: Opt(
    Closed({
      port: Opt(Int(0, 65535)),
      bind: Opt(Literals(['loopback', 'lan', 'all'] as const)),
      auth: Opt(Closed({ token: Opt(NonEmpty()) })),
      allowedOrigins: Opt(Type.Array(NonEmpty())),
    }),
  ),
  messages: Opt(
    Closed({
      queue: Opt(
        Closed({
          mode: Opt(QueueMode),
          // OpenClaw's per-channel entries (any channel name; Loopdesk's messages are `webchat`'s)
          byChannel: Opt(Type.Record(Type.String(), QueueMode)),
          debounceMsByChannel: Opt(Type.Record(Type.String(), Int(0))),
          // April's global quiet window; OpenClaw 2026.9 refuses it (use debounceMsByChannel.webchat), Loopdesk
          // still reads it
          debounceMs: Opt(Int(0)),
          cap: Opt(Int(1)),
          drop: Opt(Literals(['old', 'new', 'summarize'] as const)),
        }),
      ),
    }),
  ),
  tools: Opt(
    Closed({
      exec: Opt(
        Closed({
          allowlist: Opt(Type.Array(NonEmpty())),
          approvalTimeoutMs: Opt(Int(0)),
          timeoutSeconds: Opt(Int(0)),
          maxOutputChars: Opt(Int(1)),
          envPassthrough: Opt(
            Type.Array(NonEmpty({ pattern: '^(\\*|[A-Za-z_][A-Za-z0-9_]*\\*?)$', 'x-message': 'must be a variable name, NAME_PREFIX_* or *' })),
          ),
        }),
      ),
      webFetch: Opt(
        Closed({
          maxBytes: Opt(Int(1)),
          timeoutMs: Opt(Int(1)),
          allowLoopback: Opt(Type.Boolean()),
          allowPrivateNetwork: Opt(Type.Boolean()),
        }),
      ),
    }),
  ),
  hooks: Opt(
    Closed({
      internal: Opt(Closed({ enabled: Opt(Type.Boolean()), workspace: Opt(Type.Boolean()) })),
      timeoutMs: Opt(Int(0)),
    }),
  ),
  plugins: Opt(Closed({ enabled: Opt(Type.Boolean()), disabled: Opt(Type.Array(Type.String())) })),
  session: Opt(Closed({ archiveRetentionDays: Opt(Int(0, 36_500)) })),
})
