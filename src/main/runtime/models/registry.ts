// The model registry: one pi-ai `Models` collection holding every built-in provider plus the providers
// configured under `models.providers`. Keys come from (in order) the Loopdesk credential store, the
// provider's `apiKeyEnv`, a literal/env-ref `apiKey`, the built-in env var (e.g. OPENAI_API_KEY), and a
// dummy key for keyless servers on this machine or the local network (pi's openai client refuses an empty key).
import {
  createModels,
  createProvider,
  type Api,
  type ApiKeyAuth,
  type AuthContext,
  type Credential,
  type CredentialStore as PiCredentialStore,
  type Model,
  type MutableModels,
  type Provider,
  type ProviderStreams,
  type SimpleStreamOptions,
} from '@earendil-works/pi-ai'
import { lazyApi } from '@earendil-works/pi-ai'
import { builtinProviders } from '@earendil-works/pi-ai/providers/all'
import type { ModelChoice } from '../../../shared/methods'
import { invalid } from '../../api/errors'
import type {
  CredentialStore,
  ModelConfig,
  ModelRegistryLike,
  ProviderConfig,
  ResolvedConfig,
  ResolvedModel,
} from '../contracts'
import { classifyAddress, isLocalhostName } from '../tools/net-guard'
import { endpointBaseUrl } from './endpoint-url'
import { streamOptionsFallback, type StreamOptionsFallback } from './stream-options'

/**
 * Loads an API implementation once. pi's own `*.lazy` wrappers call `import()` on every request, which is
 * cheap natively but costs a loader round trip per request under module hooks (tsx in dev, tests, benches).
 */
function once(load: () => Promise<unknown>): () => Promise<ProviderStreams> {
  let p: Promise<ProviderStreams> | undefined
  return () =>
    (p ??= load().then(
      (m) => m as ProviderStreams,
      (err) => {
        p = undefined // a failed load may be retried
        throw err
      },
    ))
}

/** APIs a configured provider may name, mapped to pi's implementations (loaded on first use). */
const CUSTOM_API_LOADERS: Record<string, () => Promise<ProviderStreams>> = {
  'openai-completions': once(() => import('@earendil-works/pi-ai/api/openai-completions')),
  'openai-responses': once(() => import('@earendil-works/pi-ai/api/openai-responses')),
  'anthropic-messages': once(() => import('@earendil-works/pi-ai/api/anthropic-messages')),
  'google-generative-ai': once(() => import('@earendil-works/pi-ai/api/google-generative-ai')),
  'mistral-conversations': once(() => import('@earendil-works/pi-ai/api/mistral-conversations')),
}
const CUSTOM_APIS: Record<string, () => ProviderStreams> = Object.fromEntries(
  Object.entries(CUSTOM_API_LOADERS).map(([api, load]) => [api, () => lazyApi(load)]),
)
export const SUPPORTED_CUSTOM_APIS = Object.keys(CUSTOM_APIS)

/** Built-in providers whose models are listed even without a key, so the UI can offer "add a key". */
const FEATURED_PROVIDERS = ['anthropic', 'openai', 'google', 'openrouter']

/** Dummy key for keyless local servers (Ollama, llama.cpp, LM Studio, the test server). */
export const LOCAL_DUMMY_KEY = 'loopdesk-local-no-key'

export interface ModelRegistryOptions {
  /** pi retries per request (HTTP 408/409/429/5xx and connection errors). Default 2. */
  maxRetries?: number
  /** cap for server-requested retry-after waits; longer waits fail at once. Default 15 s. */
  maxRetryDelayMs?: number
  /** which servers refused `stream_options` (default: the process's one, kept across config reloads) */
  streamOptions?: StreamOptionsFallback
}

export interface ModelRegistry extends ModelRegistryLike {
  /** the underlying pi collection (for pi helpers such as compaction summaries) */
  readonly models: MutableModels
  /** true when a request for this provider would carry credentials (sync, from the last auth check) */
  isConfigured(provider: string): boolean
  /** human-readable reason when a provider cannot be used */
  authProblem(provider: string): string | undefined
  /** re-check which providers have keys (after a credential or env change) */
  refreshAuth(): Promise<void>
}

const localByUrl = new Map<string, boolean>()
const LOCAL_CLASSES = new Set(['loopback', 'private', 'unique-local', 'link-local'])
/**
 * A server on this machine or the local network (Ollama on a GPU box at 192.168.1.20, `gpu-box.local`, a
 * tailnet address): such servers usually take no key, so one is not required before trying. A server that
 * does want one answers 401, which the run reports. Asked on every model request (getApiKey): the URL is
 * parsed once per base URL.
 */
const isLocalNetwork = (url?: string) => {
  if (!url) return false
  let v = localByUrl.get(url)
  if (v === undefined) {
    try {
      const h = new URL(url).hostname.toLowerCase().replace(/\.$/, '')
      const cls = classifyAddress(h)
      v =
        cls !== undefined
          ? LOCAL_CLASSES.has(cls)
          : isLocalhostName(h) || !h.includes('.') || /\.(local|lan|home\.arpa|internal)$/.test(h)
    } catch {
      v = false
    }
    if (localByUrl.size < 256) localByUrl.set(url, v)
  }
  return v
}

/** `${VAR}` or `env:VAR` in a config apiKey refers to an environment variable. */
export function envRefName(value: string | undefined): string | undefined {
  if (!value) return undefined
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value.trim()) ?? /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value.trim())
  return m ? m[1] : undefined
}

function configuredKey(cfg: ProviderConfig, env: NodeJS.ProcessEnv): string | undefined {
  if (cfg.apiKeyEnv && env[cfg.apiKeyEnv]) return env[cfg.apiKeyEnv]
  if (cfg.apiKey) {
    const ref = envRefName(cfg.apiKey)
    return ref ? env[ref] || undefined : cfg.apiKey
  }
  return undefined
}

/** Adapts the Loopdesk credential store (sync, api keys only) to pi's async CredentialStore. */
function piCredentials(creds: CredentialStore): PiCredentialStore {
  return {
    async read(providerId) {
      const key = creds.get(providerId)
      return key ? { type: 'api_key', key } : undefined
    },
    async list() {
      return creds.list().map((providerId) => ({ providerId, type: 'api_key' as const }))
    },
    async modify(providerId, fn) {
      const current: Credential | undefined = creds.get(providerId)
        ? { type: 'api_key', key: creds.get(providerId) }
        : undefined
      const next = await fn(current)
      if (next?.type === 'api_key' && next.key) creds.set(providerId, next.key)
      return next ?? current
    },
    async delete(providerId) {
      creds.delete(providerId)
    },
  }
}

/**
 * For a configured model without `contextWindow` / `maxTokens`. Small on purpose: a custom endpoint is
 * often a local model, and overestimating its window means compaction starts only after it overflowed.
 * The same values the Settings endpoint form proposes.
 */
export const DEFAULT_CONTEXT_WINDOW = 32_768
export const DEFAULT_MAX_TOKENS = 8_192

function toPiModel(provider: string, cfg: ProviderConfig, m: ModelConfig, api: string): Model<Api> {
  const model: Model<Api> = {
    id: m.id,
    name: m.name ?? m.id,
    api,
    provider,
    baseUrl: cfg.baseUrl ?? '',
    reasoning: m.reasoning ?? false,
    input: m.input ?? ['text'],
    cost: {
      input: m.cost?.input ?? 0,
      output: m.cost?.output ?? 0,
      cacheRead: m.cost?.cacheRead ?? 0,
      cacheWrite: m.cost?.cacheWrite ?? 0,
    },
    contextWindow: m.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxTokens: m.maxTokens ?? Math.min(DEFAULT_MAX_TOKENS, m.contextWindow ?? DEFAULT_CONTEXT_WINDOW),
  } as Model<Api>
  if (cfg.headers) (model as { headers?: Record<string, string> }).headers = cfg.headers
  // Generic OpenAI-compatible servers: no `store`, no `developer` role (pi auto-detects only known hosts).
  // The model entry's own `compat` (e.g. supportsUsageInStreaming: false) on top.
  if (api === 'openai-completions') {
    ;(model as { compat?: unknown }).compat = { supportsStore: false, supportsDeveloperRole: false, ...m.compat }
  }
  return model
}

export async function createModelRegistry(
  config: ResolvedConfig,
  creds: CredentialStore,
  env: NodeJS.ProcessEnv = process.env,
  opts: ModelRegistryOptions = {},
): Promise<ModelRegistry> {
  const authContext: AuthContext = {
    env: async (name) => env[name] || undefined,
    fileExists: async () => false, // ambient credential files (AWS, gcloud) are not used by Loopdesk
  }
  const models = createModels({ credentials: piCredentials(creds), authContext })
  const builtinIds = new Set<string>()
  for (const p of builtinProviders()) {
    models.setProvider(p)
    builtinIds.add(p.id)
  }

  const providerConfigs = config.raw.models?.providers ?? {}
  const customIds = new Set<string>()
  const problems = new Map<string, string>()

  for (const [id, given] of Object.entries(providerConfigs)) {
    const builtin = builtinIds.has(id) ? models.getProvider(id) : undefined
    // A built-in id listed here overrides that provider (endpoint, headers, models); its api defaults to the built-in's.
    const api = given.api ?? builtin?.getModels()[0]?.api ?? 'openai-completions'
    if (!CUSTOM_APIS[api]) {
      problems.set(id, `provider "${id}": unsupported api "${api}" (supported: ${SUPPORTED_CUSTOM_APIS.join(', ')})`)
      continue
    }
    // a pasted endpoint URL (…/chat/completions, Anthropic's …/v1) would make the SDK ask for a doubled path
    const cfg = given.baseUrl ? { ...given, baseUrl: endpointBaseUrl(given.baseUrl, api) } : given
    let list: Model<Api>[]
    if (cfg.models && cfg.models.length > 0) {
      list = cfg.models.map((m) => toPiModel(id, cfg, m, api))
    } else if (builtin) {
      list = builtin.getModels().map((m) => ({ ...m, ...(cfg.baseUrl ? { baseUrl: cfg.baseUrl } : {}) }) as Model<Api>)
    } else {
      problems.set(id, `provider "${id}" has no models configured`)
      continue
    }
    const keyless = isLocalNetwork(cfg.baseUrl)
    const auth: ApiKeyAuth = {
      name: `${id} API key`,
      resolve: async ({ credential, signal }) => {
        const key = credential?.key || configuredKey(cfg, env) || (keyless ? LOCAL_DUMMY_KEY : undefined)
        if (key) return { auth: { apiKey: key } }
        // overriding a built-in: its own env var still works
        return builtin?.auth.apiKey ? builtin.auth.apiKey.resolve({ ctx: authContext, credential, signal }) : undefined
      },
    }
    const provider: Provider = createProvider({
      id,
      name: builtin?.name ?? id,
      baseUrl: cfg.baseUrl ?? builtin?.baseUrl,
      headers: cfg.headers,
      auth: { apiKey: auth },
      models: list,
      // keyed by model.api: an overridden built-in catalog may mix apis
      api: Object.fromEntries([...new Set(list.map((m) => m.api))].filter((a) => CUSTOM_APIS[a]).map((a) => [a, CUSTOM_APIS[a]()])),
    })
    models.setProvider(provider)
    customIds.add(id)
  }

  const configured = new Map<string, boolean>()
  async function refreshAuth() {
    const ids = models.getProviders().map((p) => p.id)
    await Promise.all(
      ids.map(async (id) => {
        try {
          configured.set(id, (await models.checkAuth(id)) !== undefined)
        } catch {
          configured.set(id, false)
        }
      }),
    )
  }
  await refreshAuth()

  const defaultRef = config.defaults.model

  function parseRef(ref: string): { provider: string; id: string } {
    const slash = ref.indexOf('/')
    if (slash <= 0 || slash === ref.length - 1) {
      throw invalid(`invalid model ref "${ref}": expected "<provider>/<model>"`)
    }
    return { provider: ref.slice(0, slash), id: ref.slice(slash + 1) }
  }

  function resolve(ref?: string): ResolvedModel {
    const wanted = ref ?? defaultRef
    if (!wanted) {
      throw invalid('no model configured: set agents.defaults.model.primary to "<provider>/<model>"')
    }
    const { provider, id } = parseRef(wanted)
    const p = models.getProvider(provider)
    if (!p) {
      const problem = problems.get(provider)
      throw invalid(problem ?? `unknown model provider "${provider}" in "${wanted}"`)
    }
    const model = models.getModel(provider, id)
    if (!model) {
      const known = p.getModels().slice(0, 10).map((m) => m.id)
      throw invalid(`unknown model "${id}" for provider "${provider}"${known.length ? ` (known: ${known.join(', ')}${p.getModels().length > 10 ? ', …' : ''})` : ''}`)
    }
    return { ref: `${provider}/${model.id}`, provider, id: model.id, model }
  }

  function getApiKey(provider: string): string | undefined {
    const stored = creds.get(provider)
    if (stored) return stored
    const cfg = providerConfigs[provider]
    if (cfg) {
      const k = configuredKey(cfg, env)
      if (k) return k
      if (isLocalNetwork(cfg.baseUrl)) return LOCAL_DUMMY_KEY
    }
    // built-ins: pi's provider auth resolves its env var itself
    return undefined
  }

  function list(): ModelChoice[] {
    const out: ModelChoice[] = []
    for (const p of models.getProviders()) {
      const isConf = configured.get(p.id) ?? false
      if (!customIds.has(p.id) && !isConf && !FEATURED_PROVIDERS.includes(p.id)) continue
      for (const m of p.getModels()) {
        out.push({
          ref: `${p.id}/${m.id}`,
          provider: p.id,
          id: m.id,
          name: m.name ?? m.id,
          contextWindow: m.contextWindow,
          maxTokens: m.maxTokens,
          reasoning: !!m.reasoning,
          input: [...(m.input ?? ['text'])],
          configured: isConf,
          // OpenClaw's names for the same fact
          available: isConf,
          ...(isConf ? {} : { unavailableReason: 'missing-auth' as const }),
        })
      }
    }
    // configured first, then custom providers, then by ref
    const rank = (c: ModelChoice) => (c.configured ? 0 : 1) * 2 + (customIds.has(c.provider) ? 0 : 1)
    return out.sort((a, b) => rank(a) - rank(b) || a.ref.localeCompare(b.ref))
  }

  const maxRetries = opts.maxRetries ?? 2
  const maxRetryDelayMs = opts.maxRetryDelayMs ?? 15_000
  // pi 0.87 calls the SDK with retries off and wraps it with its own abortable retry (default 0 retries):
  // set the budget explicitly here; the Agent does not forward maxRetries itself.
  // A server that refused `stream_options` is asked without it; the first refusal is sent again without it
  // (stream-options.ts). Around the caller's fetch, so the runner's recording sees both answers.
  const streamOptions = opts.streamOptions ?? streamOptionsFallback
  const streamFn = (given: Model<Api>, context: any, options?: SimpleStreamOptions) => {
    const model = streamOptions.modelFor(given)
    const fetch = streamOptions.fetch(options?.fetch, model)
    return models.streamSimple(model, context, { maxRetries, maxRetryDelayMs, ...options, ...(fetch ? { fetch } : {}) })
  }

  return {
    models,
    resolve,
    streamFn,
    retryPolicy: { maxRetries, maxRetryDelayMs },
    getApiKey,
    list,
    refreshAuth,
    isConfigured: (provider) => configured.get(provider) ?? false,
    authProblem(provider) {
      if (problems.has(provider)) return problems.get(provider)
      if (!models.getProvider(provider)) return `unknown model provider "${provider}"`
      if (configured.get(provider)) return undefined
      const cfg = providerConfigs[provider]
      const hint = cfg?.apiKeyEnv
        ? `set ${cfg.apiKeyEnv} or store a key for "${provider}"`
        : `store an API key for "${provider}" (Settings → Models) or set its environment variable`
      return `no API key for model provider "${provider}": ${hint}`
    },
  }
}
