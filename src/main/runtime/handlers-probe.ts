// loopdesk.models.probe: the settings' "Check" for a model server (models/probe.ts). A saved provider's
// key is sent only to that provider's own base URL: a client that names a provider and another URL gets
// the probe without the key (a stored key never leaves for an address the user did not save with it).
import type { Handlers } from '../api/dispatch'
import { invalid } from '../api/errors'
import type { RuntimeCore } from './handlers-context'
import { probeModels, type ProbeOptions } from './models/probe'

const sameBase = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '')

export function probeHandlers(core: RuntimeCore, opts: Pick<ProbeOptions, 'timeoutMs'> = {}): Pick<Handlers, 'loopdesk.models.probe'> {
  return {
    async 'loopdesk.models.probe'(p) {
      const saved = p.provider ? core.config.current.raw.models?.providers?.[p.provider] : undefined
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
