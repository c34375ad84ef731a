// loopdesk.models.probe: the settings' "Check" for a model server (models/probe.ts). A saved provider's
// key is sent only to that provider's own base URL: a client that names a provider and another URL gets
// the probe without the key (a stored key never leaves for an address the user did not save with it).
// A built-in provider (OpenAI, Anthropic, Google, OpenRouter, …) named without a base URL is checked at
// its own API with the key it would use for runs: "is my key right?" without spending a request.
import type { Handlers } from '../api/dispatch'
import { invalid } from '../api/errors'
import type { RuntimeCore } from './handlers-context'
import { probeModels, type ProbeOptions } from './models/probe'

const sameBase = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '')

/** APIs whose model list the probe can read */
const PROBED_APIS = ['openai-completions', 'openai-responses', 'anthropic-messages', 'google-generative-ai', 'mistral-conversations']

/** Built-in providers whose model list answers without a key: their key is checked at this path first. */
const KEY_CHECK_PATHS: Record<string, string> = { openrouter: '/key' }

export function probeHandlers(core: RuntimeCore, opts: Pick<ProbeOptions, 'timeoutMs'> = {}): Pick<Handlers, 'loopdesk.models.probe'> {
  return {
    async 'loopdesk.models.probe'(p) {
      const saved = p.provider ? core.config.current.raw.models?.providers?.[p.provider] : undefined
      if (p.provider && !p.baseUrl && !saved?.baseUrl) {
        const builtin = await builtinTarget(core, p.provider)
        if (builtin) return probeModels({ ...builtin, ...opts })
      }
      if (p.provider && !saved && !p.baseUrl) throw invalid(`provider "${p.provider}" is not configured: give its baseUrl`)
      const baseUrl = p.baseUrl ?? saved?.baseUrl
      if (!baseUrl) throw invalid(p.provider ? `provider "${p.provider}" has no baseUrl: give one` : 'give a baseUrl or a configured provider')
      const own = saved !== undefined && (p.baseUrl === undefined || (saved.baseUrl !== undefined && sameBase(saved.baseUrl, p.baseUrl)))
      return probeModels({
        baseUrl,
        api: p.api ?? saved?.api ?? 'openai-completions',
        apiKey: own && p.provider ? core.models().getApiKey(p.provider) : undefined,
        headers: own ? saved?.headers : undefined,
        provider: own ? p.provider : undefined,
        ...opts,
      })
    },
  }
}

/** A built-in provider's own API and the key (and headers) its runs would send, or undefined if there is no such provider. */
async function builtinTarget(core: RuntimeCore, id: string): Promise<ProbeOptions | undefined> {
  const registry = core.models()
  const provider = registry.models.getProvider(id)
  if (!provider) return undefined
  const all = provider.getModels()
  const model = all.find((m) => m.api.startsWith('openai-')) ?? all.find((m) => PROBED_APIS.includes(m.api)) ?? all[0]
  if (!model?.baseUrl) return undefined
  if (!PROBED_APIS.includes(model.api)) throw invalid(`Check cannot read ${id}'s model list (api ${model.api})`)
  // the key the runs use: the stored one, else the provider's environment variable (pi's auth resolves it)
  const auth = await registry.models.getAuth(model).catch(() => undefined)
  const headers = Object.fromEntries(Object.entries(auth?.auth.headers ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'))
  return {
    baseUrl: auth?.auth.baseUrl ?? model.baseUrl,
    api: model.api,
    apiKey: registry.getApiKey(id) ?? auth?.auth.apiKey,
    headers,
    provider: id,
    ...(KEY_CHECK_PATHS[id] ? { keyCheckPath: KEY_CHECK_PATHS[id] } : {}),
  }
}
