// Renaming a provider of the user's own (`models.providers.<from>` → `<to>`): its entry moves whole (models,
// headers, a literal or env-referenced key — whatever the file says), keeps its place among the providers,
// and every model ref that named it (`<from>/<model>`: the default model, each agent's model) names the new
// provider. Pure: the config manager applies it to the file's content inside its locked write.
import { ApiError, invalid } from '../../api/errors'
import { isPlainObject } from './validate'

export interface ProviderRename {
  from: string
  to: string
}

/** The config with the provider renamed, and the dot paths of the model refs that were rewritten. */
export function renameProviderIn(config: Record<string, unknown>, { from, to }: ProviderRename): { config: Record<string, unknown>; refs: string[] } {
  const models = config.models
  const providers = isPlainObject(models) ? models.providers : undefined
  if (!isPlainObject(providers) || !Object.hasOwn(providers, from)) throw new ApiError('NOT_FOUND', `no provider named “${from}” in the config`, { provider: from })
  if (Object.hasOwn(providers, to)) throw invalid(`a provider named “${to}” exists already: pick another name`, { code: 'NAME_TAKEN', provider: to })
  const next = structuredClone(config)
  const nextModels = next.models as Record<string, unknown>
  // rebuilt in the same order, the entry under its new key where the old one was
  nextModels.providers = Object.fromEntries(Object.entries(providers).map(([id, entry]) => [id === from ? to : id, structuredClone(entry)]))
  const refs: string[] = []
  const moveRef = (ref: unknown): unknown => (typeof ref === 'string' && ref.startsWith(`${from}/`) ? `${to}/${ref.slice(from.length + 1)}` : ref)
  const agents = next.agents
  if (isPlainObject(agents)) {
    const model = isPlainObject(agents.defaults) ? agents.defaults.model : undefined
    if (isPlainObject(model) && moveRef(model.primary) !== model.primary) {
      model.primary = moveRef(model.primary)
      refs.push('agents.defaults.model.primary')
    }
    if (Array.isArray(agents.list)) {
      agents.list.forEach((entry, i) => {
        if (isPlainObject(entry) && moveRef(entry.model) !== entry.model) {
          entry.model = moveRef(entry.model)
          refs.push(`agents.list[${i}].model`)
        }
      })
    }
  }
  return { config: next, refs }
}
