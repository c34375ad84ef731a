// config.get / config.patch: the config file (JSON5, loopdesk.json) and the write-only secrets beside it.
import fs from 'node:fs'
import { builtinProviders } from '@earendil-works/pi-ai/providers/all'
import { ApiError, invalid } from '../api/errors'
import type { Handlers } from '../api/dispatch'
import { parseConfigText, REDACTED } from './config'
import { staleBaseHash } from './config/config-manager'
import { GATEWAY_TOKEN_RULE, isValidGatewayToken } from './config/gateway-token'
import { configPatchOptions } from './config/merge-patch'
import { cleanPastedKey } from './config/pasted-key'
import { isPlainObject } from './config/validate'
import { renamedRef } from './runner/accepted-run'
import { agentIds, type RuntimeCore } from './handlers-context'
import { envRefName } from './models'
import { renameInWaitingMessages } from './waiting-model-rename'
import { endpointBaseUrl } from './models/endpoint-url'
import { withScheme } from '../../shared/base-url-scheme'
import { nestingProblem } from '../../shared/nesting-limit'

type ConfigHandlers = Pick<Handlers, 'config.get' | 'config.patch' | 'loopdesk.config.renameProvider'>

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
        set.push([id, cleanPastedKey(id, key)])
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

/**
 * Base URLs in the patch as the model requests will use them (`endpointBaseUrl`): saved without the
 * spaces, trailing slash or pasted endpoint path the registry would drop anyway, so the file says what is used;
 * one typed without its scheme gets the one Settings would give it (`withScheme`); model ids are trimmed.
 */
function tidyPastedProviders(given: Record<string, unknown>, core: RuntimeCore): Record<string, unknown> {
  const patch = structuredClone(given) // the caller's object stays as sent
  const providers = (patch.models as { providers?: unknown } | undefined)?.providers
  if (!isPlainObject(providers)) return patch
  for (const [id, cfg] of Object.entries(providers)) {
    if (!isPlainObject(cfg)) continue
    // a model id pasted with a space around it names no model the server has
    if (Array.isArray(cfg.models)) for (const m of cfg.models) if (isPlainObject(m) && typeof m.id === 'string') m.id = m.id.trim()
    if (typeof cfg.baseUrl !== 'string') continue
    const api = typeof cfg.api === 'string' ? cfg.api : (core.config.current.raw.models?.providers?.[id]?.api ?? (isBuiltinProvider(id) ? undefined : 'openai-completions'))
    cfg.baseUrl = endpointBaseUrl(withScheme(cfg.baseUrl.trim()), api)
  }
  return patch
}

/**
 * A gateway token the gateway would not take (it logs that and keeps its token) is refused before anything is
 * written, so the caller is told; the redaction placeholder sent back unchanged is not a new token.
 */
function checkGatewayToken(patch: Record<string, unknown>) {
  const gateway = patch.gateway
  const auth = isPlainObject(gateway) ? gateway.auth : undefined
  const token = isPlainObject(auth) ? auth.token : undefined
  if (typeof token !== 'string' || token === REDACTED || isValidGatewayToken(token)) return
  throw invalid(`gateway.auth.token must be ${GATEWAY_TOKEN_RULE}; the gateway keeps its current token`, {
    issues: [{ path: 'gateway.auth.token', message: `must be ${GATEWAY_TOKEN_RULE}` }],
  })
}

/** The merge patch a config.patch carries: `patch` as sent, or `raw` parsed as JSON5 (exactly one of them). */
export function patchFromParams(p: { patch?: Record<string, unknown>; raw?: string }): Record<string, unknown> {
  if ((p.patch === undefined) === (p.raw === undefined)) throw invalid('config.patch takes exactly one of patch (an object) or raw (JSON5 text)')
  if (p.patch !== undefined) return p.patch
  const parsed = parseConfigText(p.raw as string)
  if (!parsed.ok) throw invalid(`config.patch raw: ${parsed.issue.message}`, { issues: [parsed.issue] })
  if (!isPlainObject(parsed.value)) throw invalid('config.patch raw must be an object')
  // raw's depth was bounded before parsing (parseConfigText); its size in values only now
  const deep = nestingProblem(parsed.value)
  if (deep) throw invalid(`config.patch raw: ${deep}`, { code: 'TOO_DEEP' })
  return parsed.value
}

/**
 * After a rename: sessions whose chosen model (`/model`, sessions.patch) or last-run model named the old
 * provider name the new one, so they keep running on the same endpoint. Best effort after the config write
 * (a session that cannot be updated keeps the old ref and says so when it runs); returns how many moved.
 */
async function moveSessionModels(core: RuntimeCore, from: string, to: string): Promise<number> {
  const moved = (ref: string | undefined) => renamedRef(ref, from, to)
  let count = 0
  for (const agentId of agentIds(core)) {
    const store = core.store(agentId)
    for (const [key, entry] of store.list()) {
      if (!moved(entry.modelOverride) && entry.modelProvider !== from) continue
      try {
        const next = await store.update(key, (cur) => {
          if (!cur) return undefined
          const override = moved(cur.modelOverride)
          if (!override && cur.modelProvider !== from) return undefined
          if (override) cur.modelOverride = override
          if (cur.modelProvider === from) cur.modelProvider = to
          return cur
        })
        if (next) {
          count++
          core.sessionChanged(key, 'patch')
        }
      } catch (err) {
        console.error(`[config] session ${key} still names the provider ${from}: ${(err as Error).message}`)
      }
    }
  }
  return count
}

type Shape = { [key: string]: Shape | true }
/** `value` sets nothing outside `shape` (true: anything below that key) */
function fitsShape(value: unknown, shape: Shape | true): boolean {
  if (shape === true) return true
  return isPlainObject(value) && Object.entries(value).every(([k, v]) => Object.hasOwn(shape, k) && fitsShape(v, shape[k]))
}

export function configHandlers(core: RuntimeCore): ConfigHandlers {
  const secrets = () => core.config.secretsStatus()
  // the file's own values while it has problems (the last good config is `config`)
  const fileView = () => {
    const fileConfig = core.config.fileRedacted?.()
    return fileConfig ? { fileConfig } : {}
  }
  return {
    async 'config.get'() {
      const c = core.config
      return {
        path: c.path,
        exists: fs.existsSync(c.path),
        valid: c.issues.length === 0,
        hash: c.hash,
        config: c.redacted(),
        ...fileView(),
        issues: c.issues,
        secrets: secrets(),
      }
    },

    async 'config.patch'(p) {
      const merge = configPatchOptions(p.replacePaths)
      const given = patchFromParams(p)
      checkGatewayToken(given)
      const { rest, set, remove } = splitSecrets(tidyPastedProviders(given, core))
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
      return { ok: true, hash: core.config.hash, config: core.config.redacted(), ...fileView(), secrets: secrets(), issues: core.config.issues }
    },

    async 'loopdesk.config.renameProvider'(p) {
      const { from, to } = p
      if (from === to) throw invalid(`the provider is named “${to}” already`, { code: 'SAME_NAME' })
      if (isBuiltinProvider(from)) throw invalid(`“${from}” is a built-in provider: only providers of your own can be renamed`, { code: 'BUILTIN_PROVIDER', provider: from })
      if (isBuiltinProvider(to)) throw invalid(`“${to}” is the name of a built-in provider: pick another name`, { code: 'NAME_TAKEN', provider: to })
      const patch = p.patch ?? {}
      // the form's edits of the renamed entry (and the default model, when a model of it was renamed too),
      // nothing else: a rename is no back door for other settings
      const allowed: Shape = { models: { providers: { [to]: true } }, agents: { defaults: { model: { primary: true } } } }
      if (!fitsShape(patch, allowed)) {
        throw invalid(`loopdesk.config.renameProvider: patch may only change models.providers.${to} and agents.defaults.model.primary`)
      }
      const merge = configPatchOptions(p.replacePaths)
      const { rest, set, remove } = splitSecrets(patch)
      // a key stored but unreadable (the OS keychain changed): moving it would drop it — the user decides
      if (core.credentials.has(from) && core.credentials.get(from) === undefined) {
        throw new ApiError('UNAVAILABLE', `the key stored for “${from}” cannot be read (the system keychain changed?): save it again or remove it, then rename`, {
          code: 'KEY_UNREADABLE',
          provider: from,
        })
      }
      // The stored key follows the entry, inside the write (after validation, before the file is written);
      // every step is undone when a later one — or the write itself — fails: the old name keeps its key.
      const undo: Array<() => void> = []
      const keyOf = (id: string) => core.credentials.get(id)
      const put = (id: string, key: string | undefined) => {
        const before = keyOf(id)
        if (key === undefined) core.credentials.delete(id)
        else core.credentials.set(id, key)
        undo.push(() => (before === undefined ? core.credentials.delete(id) : core.credentials.set(id, before)))
      }
      const moveKey = () => {
        // an orphan key stored under the new name (a provider removed by hand) is not inherited
        put(to, keyOf(from))
        put(from, undefined)
        for (const [id, key] of set) put(id, key)
        for (const id of remove) put(id, undefined)
      }
      let movedRefs: string[]
      try {
        movedRefs = core.config.patch(rest, p.baseHash, { beforeWrite: moveKey, merge, renameProvider: { from, to } }).movedRefs ?? []
      } catch (err) {
        for (const step of undo.reverse()) {
          try {
            step()
          } catch (e) {
            console.error(`[config] could not restore the stored key while undoing the rename of ${from}:`, (e as Error).message)
          }
        }
        throw err
      }
      // messages waiting their turn follow at once (the models in use still know the old name until the refresh);
      // again once the rows moved: one accepted meanwhile recorded a row's old choice
      renameInWaitingMessages(core, from, to)
      await core.refreshModels()
      const movedSessions = await moveSessionModels(core, from, to)
      renameInWaitingMessages(core, from, to)
      return { ok: true, hash: core.config.hash, config: core.config.redacted(), ...fileView(), secrets: secrets(), issues: core.config.issues, movedRefs, movedSessions }
    },
  }
}
