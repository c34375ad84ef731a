// config.get / config.patch: the config file (JSON5, loopdesk.json) and the write-only secrets beside it.
import fs from 'node:fs'
import { builtinProviders } from '@earendil-works/pi-ai/providers/all'
import { invalid } from '../api/errors'
import type { Handlers } from '../api/dispatch'
import { parseConfigText, REDACTED } from './config'
import { staleBaseHash } from './config/config-manager'
import { configPatchOptions } from './config/merge-patch'
import { isPlainObject } from './config/validate'
import type { RuntimeCore } from './handlers-context'
import { envRefName } from './models'

type ConfigHandlers = Pick<Handlers, 'config.get' | 'config.patch'>

let builtinIds: Set<string> | undefined
/** pi's catalog providers (anthropic, openai, …): they exist without a config entry */
function isBuiltinProvider(id: string): boolean {
  builtinIds ??= new Set(builtinProviders().map((p) => p.id))
  return builtinIds.has(id)
}

/**
 * Secrets are write-only: an `apiKey` for a provider in a config patch goes to the credential store,
 * never into loopdesk.json — unless it is an env reference (`${VAR}` / `env:VAR`), which is not a secret.
 * `apiKey: null` removes the stored key too, and so does removing a custom provider (`providers.<id>: null`).
 */
export function splitSecrets(patch: Record<string, unknown>): {
  rest: Record<string, unknown>
  set: Array<[string, string]>
  remove: string[]
} {
  const set: Array<[string, string]> = []
  const remove: string[] = []
  const rest = structuredClone(patch)
  const providers = (rest.models as { providers?: Record<string, unknown> } | undefined)?.providers
  if (providers && typeof providers === 'object') {
    for (const [id, cfg] of Object.entries(providers)) {
      // a provider of the user's own removed (`null`): its stored key goes with it — else a later endpoint of
      // the same name would silently send it. A built-in provider's key outlives its config overrides.
      if (cfg === null && !isBuiltinProvider(id)) remove.push(id)
      if (!cfg || typeof cfg !== 'object') continue
      const c = cfg as Record<string, unknown>
      if (!('apiKey' in c)) continue
      const key = c.apiKey
      // the placeholder config.get shows for a key in the file is no new key: the merge restores the real one
      if (typeof key === 'string' && key !== REDACTED && !envRefName(key)) {
        if (!key.trim()) throw invalid(`models.providers.${id}.apiKey: must not be empty (use null to remove it)`)
        set.push([id, key.trim()])
        delete c.apiKey
        if (Object.keys(c).length === 0) delete providers[id]
      } else if (key === null) {
        remove.push(id)
        // keep `apiKey: null` in the patch: it also removes a literal key from the file
      }
    }
    if (Object.keys(providers).length === 0) {
      const models = rest.models as Record<string, unknown>
      delete models.providers
      if (Object.keys(models).length === 0) delete rest.models
    }
  }
  return { rest, set, remove }
}

/** The merge patch a config.patch carries: `patch` as sent, or `raw` parsed as JSON5 (exactly one of them). */
export function patchFromParams(p: { patch?: Record<string, unknown>; raw?: string }): Record<string, unknown> {
  if ((p.patch === undefined) === (p.raw === undefined)) throw invalid('config.patch takes exactly one of patch (an object) or raw (JSON5 text)')
  if (p.patch !== undefined) return p.patch
  const parsed = parseConfigText(p.raw as string)
  if (!parsed.ok) throw invalid(`config.patch raw: ${parsed.issue.message}`, { issues: [parsed.issue] })
  if (!isPlainObject(parsed.value)) throw invalid('config.patch raw must be an object')
  return parsed.value
}

export function configHandlers(core: RuntimeCore): ConfigHandlers {
  const secrets = () => core.config.secretsStatus()
  return {
    async 'config.get'() {
      const c = core.config
      return {
        path: c.path,
        exists: fs.existsSync(c.path),
        valid: c.issues.length === 0,
        hash: c.hash,
        config: c.redacted(),
        issues: c.issues,
        secrets: secrets(),
      }
    },

    async 'config.patch'(p) {
      const merge = configPatchOptions(p.replacePaths)
      const { rest, set, remove } = splitSecrets(patchFromParams(p))
      // Keys go to the credential store only after the rest of the patch validated, and before the file
      // is written: a refused key (e.g. no OS keychain) leaves the config untouched, not half-applied.
      const storeSecrets = () => {
        for (const [id, key] of set) core.credentials.set(id, key)
        for (const id of remove) core.credentials.delete(id)
      }
      if (Object.keys(rest).length > 0 || set.length === 0) {
        core.config.patch(rest, p.baseHash, { beforeWrite: storeSecrets, merge })
      } else if (p.baseHash && p.baseHash !== core.config.hash) {
        throw staleBaseHash(core.config.hash)
      } else {
        storeSecrets()
      }
      await core.refreshModels()
      return { ok: true, hash: core.config.hash, config: core.config.redacted(), secrets: secrets(), issues: core.config.issues }
    },
  }
}
