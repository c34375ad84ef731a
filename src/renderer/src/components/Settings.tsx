// Settings: providers and API keys (write-only: sent via config.patch, stored by the runtime in the
// secure store; the UI only ever shows "set" / "not set"), an endpoint of your own (OpenAI- or Anthropic-compatible), default
// model and thinking level, run timeout, workspace, gateway port/token with a CLI snippet, theme.
import { useEffect, useId, useMemo, useRef, useState } from 'react'
import type { ModelChoice, Results } from '../../../shared/methods'
import { providerUseText, sessionsUsingProvider } from '../../../shared/provider-sessions'
import { PROVIDER_NAME_PATTERN, THINKING_LEVELS, type ThinkingLevel } from '../../../shared/config-values'
import { withScheme } from '../../../shared/base-url-scheme'
import { useAppStore, useController } from '../app-context'
import { connectedGatewayUrl, gatewayToken, rememberGatewayToken } from '../bridge'
import { ConfigExposedNotice } from './ConfigExposedNotice'
import { CopyButton } from './CopyButton'
import { ConfirmDialog, Dialog } from './Dialog'
import { fileUnreadable } from './Onboarding'
import { Toasts } from './Toasts'
import { useRefocus } from '../lib/refocus'
import { ExecAllowlist } from './ExecAllowlist'
import { UnsavedContext, useUnsaved } from './settings-unsaved'

export const PROVIDERS = [
  { id: 'anthropic', name: 'Anthropic', env: 'ANTHROPIC_API_KEY' },
  { id: 'openai', name: 'OpenAI', env: 'OPENAI_API_KEY' },
  { id: 'google', name: 'Google', env: 'GEMINI_API_KEY' },
  { id: 'openrouter', name: 'OpenRouter', env: 'OPENROUTER_API_KEY' },
] as const

export const DEFAULT_GATEWAY_PORT = 18789

/** Reads "set"/"not set" for a provider key, whatever path form the runtime uses for it. */
export function secretState(secrets: Record<string, string> | undefined, providerId: string): 'set' | 'not set' {
  if (!secrets) return 'not set'
  const v = secrets[providerId] ?? secrets[`models.providers.${providerId}.apiKey`] ?? secrets[`providers.${providerId}`]
  return v === 'set' ? 'set' : 'not set'
}

function get(obj: unknown, path: string[]): unknown {
  let cur = obj
  for (const p of path) {
    if (!cur || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[p]
  }
  return cur
}

/**
 * The config the forms edit: while the file has problems, what the file says (saves not in effect yet
 * included — the runtime keeps the last good config in effect), else the config. A form seeded from the last
 * good values would write them back over what the user saved.
 */
export function formConfig(config: Results['config.get'] | undefined): Record<string, unknown> | undefined {
  return config?.fileConfig ?? config?.config
}

function randomToken(): string {
  const bytes = new Uint8Array(24)
  crypto.getRandomValues(bytes)
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * A provider's API key: write-only. It is sent once through config.patch (the runtime keeps it in the
 * secure store) and the field is cleared; afterwards only "set" / "not set" is shown. Used for every
 * provider and for the OpenAI-compatible endpoint.
 */
function ApiKeyRow({ providerId, name, hint, focus }: { providerId: string; name: string; hint: string; focus?: boolean }) {
  const controller = useController()
  const state = useAppStore('settings', (s) => secretState(s.config?.secrets, providerId))
  // a key from the environment (e.g. OPENAI_API_KEY) counts too: the provider's models are ready
  const hasKey = useAppStore('settings', (s) => state === 'set' || s.models.some((m) => m.provider === providerId && m.configured))
  const [value, setValue] = useState('')
  useUnsaved(value.trim() ? `the ${name === 'Endpoint' ? `“${providerId}” endpoint` : name} key` : undefined)
  const [busy, setBusy] = useState(false)
  const [check, setCheck] = useState<{ busy: boolean; result?: Results['loopdesk.models.probe'] }>({ busy: false })
  const inputRef = useRef<HTMLInputElement>(null)
  const removeRef = useRef<HTMLButtonElement>(null)
  const save = async (key: string | null) => {
    setBusy(true)
    const ok = await controller.patchConfig({ models: { providers: { [providerId]: { apiKey: key } } } }, `Could not save the ${name} key`)
    setBusy(false)
    if (!ok) return
    setValue('') // never keep a key around in the UI
    setCheck({ busy: false }) // an outcome was about the previous key
    // Remove goes away with the key: the key field takes the focus it had, not <body>
    // (or it is already gone, or went while disabled: focus is on <body>)
    const active = document.activeElement
    if (!key && (active === removeRef.current || !active || active === document.body)) inputRef.current?.focus()
    if (key) await controller.ensureDefaultModel(providerId)
  }
  // asks the provider's own API for its model list with the key runs would use: free, unlike a chat request
  const runCheck = async () => {
    setCheck({ busy: true })
    setCheck({ busy: false, result: await controller.probeModels({ provider: providerId }) })
  }
  return (
    <div className={`key-row${focus ? ' focused' : ''}`} data-key-provider={providerId}>
      <div className="key-name">
        <strong>{name}</strong>
        <span className={`badge ${state === 'set' ? 'badge-done' : 'badge-muted'}`} aria-label={`${name} API key ${state}`}>
          {state === 'set' ? 'Key set' : 'Key not set'}
        </span>
      </div>
      <form
        className="key-form"
        onSubmit={(e) => {
          e.preventDefault()
          if (value.trim()) void save(value.trim())
        }}
      >
        <input
          ref={inputRef}
          type="password"
          autoComplete="off"
          spellCheck={false}
          aria-label={`${name} API key`}
          // Settings opened at this provider (a run failed with its key): the dialog focuses this field
          data-autofocus={focus || undefined}
          placeholder={state === 'set' ? 'Replace key…' : hint}
          title={state === 'set' ? undefined : hint /* the placeholder is cut off in a narrow dialog */}
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" className="btn btn-sm" disabled={!value.trim() || busy}>
          Save key
        </button>
        {hasKey && (
          <button
            type="button"
            className="btn btn-sm"
            disabled={busy}
            // not `disabled` while it checks: the button would drop the focus it has (to <body>)
            aria-disabled={check.busy || undefined}
            onClick={() => void (check.busy || runCheck())}
            aria-label={`Check the ${name} key`}
          >
            {check.busy ? 'Checking…' : 'Check'}
          </button>
        )}
        {state === 'set' && (
          <button ref={removeRef} type="button" className="btn btn-sm btn-ghost" disabled={busy} onClick={() => void save(null)} aria-label={`Remove ${name} key`}>
            Remove
          </button>
        )}
      </form>
      <KeyCheckOutcome name={name} busy={check.busy} result={check.result} />
    </div>
  )
}

/** What checking a provider key found: it works (and how many models it reaches), or why not. */
function KeyCheckOutcome({ name, busy, result }: { name: string; busy: boolean; result?: Results['loopdesk.models.probe'] }) {
  if (busy || !result) return null
  if (!result.ok) {
    return (
      <p className="error-text small key-check" role="alert">
        {name} key check failed: {result.error}
      </p>
    )
  }
  const n = result.models.length
  return (
    <p className="ok-text small key-check" role="status">
      The {name} key works{n ? `: ${n} model${n === 1 ? '' : 's'} available` : ''} ({result.ms} ms).
    </p>
  )
}

type EndpointApi = 'openai-completions' | 'anthropic-messages'

const API_LABELS: Record<string, string> = { 'openai-completions': 'OpenAI-compatible', 'anthropic-messages': 'Anthropic-compatible' }

type ProviderModel = Record<string, unknown> & { id: string; name?: string; contextWindow?: number; maxTokens?: number }

/** A provider of the user's own in the config (loopdesk.json's models.providers), as the endpoint list shows it. */
export interface CustomProvider {
  id: string
  baseUrl?: string
  api?: string
  models: ProviderModel[]
}

const BUILTIN_IDS: ReadonlySet<string> = new Set(PROVIDERS.map((p) => p.id))

/**
 * Every endpoint configured, whoever wrote it (this form, the CLI, an editor): the config's providers
 * other than the built-ins above, and without entries that only hold a key for one of pi's built-ins.
 */
export function customProviders(config: unknown): CustomProvider[] {
  const all = get(config, ['models', 'providers'])
  if (!all || typeof all !== 'object') return []
  return Object.entries(all as Record<string, unknown>).flatMap(([id, raw]) => {
    if (BUILTIN_IDS.has(id) || !raw || typeof raw !== 'object') return []
    const p = raw as { baseUrl?: unknown; api?: unknown; models?: unknown }
    const models = Array.isArray(p.models) ? (p.models as unknown[]).filter((m): m is ProviderModel => !!m && typeof (m as ProviderModel).id === 'string') : []
    if (typeof p.baseUrl !== 'string' && models.length === 0) return []
    return [{ id, baseUrl: typeof p.baseUrl === 'string' ? p.baseUrl : undefined, api: typeof p.api === 'string' ? p.api : undefined, models }]
  })
}

/** A provider name not in use yet: `local`, then `local-2`, `local-3`… */
export function uniqueProviderName(taken: Iterable<string>): string {
  const used = new Set(taken)
  if (!used.has('local')) return 'local'
  let n = 2
  while (used.has(`local-${n}`)) n++
  return `local-${n}`
}

// the name is the first half of every model ref ("<provider>/<model>") and a config path segment
const PROVIDER_NAME = new RegExp(PROVIDER_NAME_PATTERN)

/** Why `name` cannot name a provider of one's own (undefined: it can). `taken`: the other providers' names. */
export function providerNameProblem(name: string, taken: Iterable<string>, builtins: ReadonlySet<string>): string | undefined {
  if (!PROVIDER_NAME.test(name)) return 'Name: letters, digits, - and _ only (it starts every model ref, e.g. local/llama3.1).'
  if (builtins.has(name)) return `“${name}” is the name of a built-in provider: pick another name.`
  if ([...taken].includes(name)) return `A provider named “${name}” exists already: use Edit on it, or pick another name.`
  return undefined
}

/**
 * The endpoints configured, each with Edit and Remove, and the form that adds one or edits the one picked
 * (a save writes back to that same provider name, never a second one).
 */
function CustomEndpoints({ focusAt }: { focusAt?: string }) {
  const controller = useController()
  const config = useAppStore('settings', (s) => s.config)
  const defaultModel = useAppStore('settings', (s) => s.defaultModel)
  const models = useAppStore('settings', (s) => s.models)
  const form = formConfig(config)
  const providers = useMemo(() => customProviders(form), [form])
  const primary = (get(form, ['agents', 'defaults', 'model', 'primary']) as string | undefined) ?? defaultModel ?? ''
  // Settings opened at one of these endpoints (a run failed with it): it is in the form, in view, focused
  const opensAt = focusAt && providers.some((p) => p.id === focusAt) ? focusAt : undefined
  // undefined: the form adds a new endpoint; else the name of the provider it edits
  const [editing, setEditing] = useState<string | undefined>(opensAt)
  // a new form (after a save, a removal, "Add another") starts afresh: the form is keyed by this
  const [formRun, setFormRun] = useState(0)
  const [focusForm, setFocusForm] = useState(!!opensAt)
  const [removing, setRemoving] = useState<CustomProvider>()
  const edited = providers.find((p) => p.id === editing)
  const allIds = Object.keys((get(form, ['models', 'providers']) as Record<string, unknown> | undefined) ?? {})
  // pi's catalog providers (the model list names them) and the key rows above: never a name of one's own
  const builtins = useMemo(() => {
    const custom = new Set(Object.keys((get(form, ['models', 'providers']) as Record<string, unknown> | undefined) ?? {}))
    return new Set([...BUILTIN_IDS, ...models.map((m) => m.provider).filter((p) => !custom.has(p))])
  }, [form, models])

  const edit = (id: string | undefined, focus = true) => {
    setEditing(id)
    setFormRun((n) => n + 1)
    setFocusForm(focus)
  }
  // what the form holds unsaved ("the “x” endpoint"), if anything: opening another one asks first
  const [formUnsaved, setFormUnsaved] = useState<string>()
  const [switchTo, setSwitchTo] = useState<{ id: string | undefined }>()
  const requestEdit = (id: string | undefined) => (formUnsaved ? setSwitchTo({ id }) : edit(id))
  const remove = async (p: CustomProvider) => {
    setRemoving(undefined)
    // its row (and the Remove that opened the confirmation) goes: focus moves to the next endpoint's Edit,
    // else the previous one's, else the form — not to <body>
    const at = providers.findIndex((q) => q.id === p.id)
    const neighbour = providers[at + 1] ?? providers[at - 1]
    // merge patch: null deletes the provider's entry; the runtime deletes its stored key with it
    if (!(await controller.patchConfig({ models: { providers: { [p.id]: null } } }, `Could not remove “${p.id}”`))) return
    controller.notify(`Removed the endpoint “${p.id}”.`)
    if (editing === p.id) edit(undefined, false)
    setFocusEditOf(neighbour?.id ?? '')
  }
  const removesDefault = removing && primary.startsWith(`${removing.id}/`)
  // the sessions that use it (chose one of its models, or last ran on it): the confirmation says what becomes of them
  const sessionRows = useAppStore('sessions', (s) => s.rows)
  const usedBy = useMemo(() => (removing ? providerUseText(sessionsUsingProvider(sessionRows, removing.id), removing.id, primary || undefined) : []), [removing, sessionRows, primary])
  // a save rebuilds the form (its Save button with it): focus goes to the saved endpoint's Edit, not to <body>
  // ('': to the form's first field, after the last endpoint was removed)
  const listRef = useRef<HTMLDivElement>(null)
  const cardRef = useRef<HTMLFieldSetElement>(null)
  const [focusEditOf, setFocusEditOf] = useState<string>()
  useEffect(() => {
    if (focusEditOf === undefined) return
    const button =
      focusEditOf === ''
        ? cardRef.current?.querySelector<HTMLElement>('input[data-first]')
        : [...(listRef.current?.querySelectorAll<HTMLElement>('[data-provider]') ?? [])]
            .find((row) => row.dataset.provider === focusEditOf)
            ?.querySelector<HTMLElement>('[data-edit]')
    if (!button) return // the list has not caught up with the save yet
    button.focus()
    setFocusEditOf(undefined)
  }, [focusEditOf, providers])
  return (
    <fieldset className="card" ref={cardRef}>
      <legend>Your own endpoints (Ollama, LM Studio, vLLM, LiteLLM…)</legend>
      {providers.length > 0 && (
        <div className="endpoint-list" role="list" aria-label="Configured endpoints" ref={listRef}>
          {providers.map((p) => (
            <EndpointRow
              key={p.id}
              provider={p}
              editing={p.id === editing}
              onEdit={() => requestEdit(p.id)}
              onRemove={() => setRemoving(p)}
            />
          ))}
        </div>
      )}
      <EndpointForm
        key={`${editing ?? ''}:${formRun}`}
        provider={edited}
        taken={allIds}
        builtins={builtins}
        primary={primary}
        focus={focusForm}
        onSaved={(id) => {
          edit(id, false)
          setFocusEditOf(id)
        }}
        onNew={() => requestEdit(undefined)}
        onUnsaved={setFormUnsaved}
      />
      {switchTo && (
        <ConfirmDialog
          title="Discard unsaved changes?"
          confirmLabel="Discard changes"
          danger
          message={
            <>
              The changes to {formUnsaved} are not saved. Open {switchTo.id ? `“${switchTo.id}”` : 'a new endpoint'} instead and discard them?
            </>
          }
          onConfirm={() => {
            setSwitchTo(undefined)
            edit(switchTo.id)
          }}
          onCancel={() => setSwitchTo(undefined)}
        />
      )}
      {removing && (
        <ConfirmDialog
          title="Remove endpoint?"
          confirmLabel="Remove endpoint"
          danger
          message={
            <>
              Remove “{removing.id}”{removing.baseUrl ? ` (${removing.baseUrl})` : ''} and its {removing.models.length} model
              {removing.models.length === 1 ? '' : 's'} from the config? A key stored for it is deleted too.
              {removesDefault && (
                <strong className="error-text">
                  {' '}
                  The default model “{primary}” is one of them: runs have no usable default until you pick another one.
                </strong>
              )}
              {usedBy.map((line) => (
                <span key={line} data-provider-use>
                  {' '}
                  {line}
                </span>
              ))}
            </>
          }
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(undefined)}
        />
      )}
    </fieldset>
  )
}

/** One configured endpoint: name, base URL, API kind, its models, whether a key is set. */
function EndpointRow({ provider: p, editing, onEdit, onRemove }: { provider: CustomProvider; editing: boolean; onEdit(): void; onRemove(): void }) {
  const keyState = useAppStore('settings', (s) => secretState(s.config?.secrets, p.id))
  return (
    <div role="listitem" className={`endpoint-row${editing ? ' editing' : ''}`} data-provider={p.id} aria-label={`Endpoint ${p.id}`}>
      <div className="endpoint-head">
        <strong>{p.id}</strong>
        <span className="badge badge-muted">{API_LABELS[p.api ?? 'openai-completions'] ?? p.api}</span>
        <span className={`badge ${keyState === 'set' ? 'badge-done' : 'badge-muted'}`}>{keyState === 'set' ? 'Key set' : 'No key'}</span>
        <span className="endpoint-actions">
          <button type="button" className="btn btn-sm" onClick={onEdit} aria-label={`Edit ${p.id}`} aria-pressed={editing} data-edit>
            Edit
          </button>
          <button type="button" className="btn btn-sm btn-ghost" onClick={onRemove} aria-label={`Remove ${p.id}`}>
            Remove
          </button>
        </span>
      </div>
      <div className="muted small endpoint-detail">
        <code>{p.baseUrl ?? '(no base URL)'}</code> · {p.models.length ? p.models.map((m) => m.id).join(', ') : 'no models'}
      </div>
    </div>
  )
}

/** One model of the endpoint as the form edits it: its id and limits as typed, the rest of its entry kept. */
interface ModelRow {
  key: number
  /** the id it has in the file ('' for a row added here) */
  origId: string
  id: string
  ctx: string
  maxTokens: string
  /** what the file says about it beyond these fields (name, reasoning, cost, …): saved back as it was */
  entry?: ProviderModel
  /** the model's `compat` as it will be saved (its Advanced switches; keys the form has no switch for kept) */
  compat: ModelCompat
}

/**
 * What an OpenAI-compatible server does not take (the runtime's config schema: `compat` on a model entry;
 * pi-ai's OpenAICompletionsCompat). Unset: pi-ai decides by the URL.
 */
type ModelCompat = Record<string, unknown> & {
  supportsUsageInStreaming?: boolean
  supportsReasoningEffort?: boolean
  maxTokensField?: 'max_tokens' | 'max_completion_tokens'
}

const compatOf = (m?: ProviderModel): ModelCompat => {
  const c = m?.compat
  return c && typeof c === 'object' && !Array.isArray(c) ? { ...(c as ModelCompat) } : {}
}

/** the compat with `key` set, or removed for `undefined` (the default) */
function withCompat<K extends keyof ModelCompat>(compat: ModelCompat, key: K, value: ModelCompat[K] | undefined): ModelCompat {
  const next = { ...compat }
  if (value === undefined) delete next[key]
  else next[key] = value
  return next
}

/** how many of a model's switches differ from the defaults, for the Advanced summary */
const compatSet = (c: ModelCompat) => Object.values(c).filter((v) => v !== undefined).length

/** what the runtime assumes for a model without one (models/registry.ts) */
const DEFAULT_CONTEXT_WINDOW = 32768

let rowKeys = 0
const modelRow = (m?: ProviderModel, ctx = ''): ModelRow => ({
  key: ++rowKeys,
  origId: m?.id ?? '',
  id: m?.id ?? '',
  ctx: m?.contextWindow !== undefined ? String(m.contextWindow) : ctx,
  maxTokens: m?.maxTokens !== undefined ? String(m.maxTokens) : '',
  entry: m,
  compat: compatOf(m),
})

/** The rows as config entries, or why they cannot be saved. */
export function modelEntries(
  rows: readonly (Pick<ModelRow, 'id' | 'ctx' | 'maxTokens' | 'entry'> & { compat?: ModelCompat })[],
): { models: ProviderModel[] } | { error: string } {
  if (rows.length === 0) return { error: 'Add at least one model: its id as the endpoint serves it.' }
  const seen = new Set<string>()
  const models: ProviderModel[] = []
  for (const [i, r] of rows.entries()) {
    const id = r.id.trim()
    const which = rows.length > 1 ? `Model ${i + 1}` : 'Model'
    if (!id) return { error: rows.length > 1 ? `${which}: enter its id, or remove the row.` : 'Enter the model id served by the endpoint.' }
    if (seen.has(id)) return { error: `“${id}” is listed twice: each model once.` }
    seen.add(id)
    const ctx = r.ctx.trim() === '' ? undefined : Number(r.ctx)
    const max = r.maxTokens.trim() === '' ? undefined : Number(r.maxTokens)
    if (ctx !== undefined && (!Number.isInteger(ctx) || ctx < 1024)) return { error: `${which} (${id}): the context window must be a whole number ≥ 1024, or empty for the default.` }
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) return { error: `${which} (${id}): max tokens must be a whole number ≥ 1, or empty for the default.` }
    if (max !== undefined && max > (ctx ?? DEFAULT_CONTEXT_WINDOW)) {
      return { error: `${which} (${id}): max tokens (${max}) cannot exceed the context window (${ctx ?? `${DEFAULT_CONTEXT_WINDOW}, the default`}).` }
    }
    // what the file says beyond the form's fields stays; a display name equal to the old id follows the id
    const { contextWindow: _ctx, maxTokens: _max, compat: _compat, name, ...rest } = r.entry ?? { id }
    // the row's switches when it has them, else what the file says; an empty one is left out
    const compat = r.compat ?? compatOf(r.entry)
    models.push({
      ...rest,
      id,
      ...(name !== undefined ? { name: name === rest.id ? id : name } : {}),
      ...(ctx !== undefined ? { contextWindow: ctx } : {}),
      ...(max !== undefined ? { maxTokens: max } : {}),
      ...(Object.keys(compat).length > 0 ? { compat } : {}),
    })
  }
  return { models }
}

function EndpointForm({
  provider,
  taken,
  builtins,
  primary,
  focus,
  onSaved,
  onNew,
  onUnsaved,
}: {
  provider?: CustomProvider
  taken: string[]
  builtins: ReadonlySet<string>
  /** the default model ref, as the file says */
  primary: string
  focus: boolean
  onSaved(id: string): void
  onNew(): void
  /** what it holds unsaved, or undefined */
  onUnsaved(what: string | undefined): void
}) {
  const controller = useController()
  const problems = useAppStore('settings', (s) => (s.config?.issues.length ?? 0) > 0)
  const [name, setName] = useState(() => provider?.id ?? uniqueProviderName([...taken, ...builtins]))
  const [baseUrl, setBaseUrl] = useState(provider?.baseUrl ?? 'http://127.0.0.1:11434/v1')
  // most local servers speak OpenAI's chat completions; some gateways (LiteLLM, vendors' Claude-compatible
  // endpoints) speak Anthropic's messages API
  const [api, setApi] = useState<EndpointApi>(provider?.api === 'anthropic-messages' ? 'anthropic-messages' : 'openai-completions')
  // every model of the provider; a new endpoint starts with one row and the usual local context window
  const [rows, setRows] = useState<ModelRow[]>(() => (provider?.models.length ? provider.models.map((m) => modelRow(m)) : [modelRow(undefined, '32768')]))
  // a row whose removal waits for the user's confirmation (it is the default model)
  const [removingRow, setRemovingRow] = useState<ModelRow>()
  // what the form held when it opened: anything else is unsaved
  const snapshot = JSON.stringify([name, baseUrl, api, rows.map((r) => [r.id, r.ctx, r.maxTokens, r.compat])])
  const [opened] = useState(snapshot)
  const unsaved = snapshot !== opened ? (provider ? `the “${provider.id}” endpoint` : 'the new endpoint') : undefined
  useUnsaved(unsaved)
  useEffect(() => onUnsaved(unsaved), [onUnsaved, unsaved])
  // an error about the Name or Base URL field is marked on it (aria-invalid, described by the message) and focuses
  // it: a keyboard or screen-reader user lands where the fix goes, not on the Save button
  const [failure, setFailure] = useState<{ text: string; field?: 'name' | 'url' }>()
  const error = failure?.text
  const nameRef = useRef<HTMLInputElement>(null)
  const urlRef = useRef<HTMLInputElement>(null)
  const errorId = useId()
  const setError = (text?: string, field?: 'name' | 'url') => {
    setFailure(text === undefined ? undefined : { text, field })
    if (field) (field === 'name' ? nameRef : urlRef).current?.focus()
  }
  const invalid = (field: 'name' | 'url') => (failure?.field === field ? { 'aria-invalid': true as const, 'aria-describedby': errorId } : {})
  const [busy, setBusy] = useState(false)
  const [check, setCheck] = useState<{ busy: boolean; result?: Results['loopdesk.models.probe'] }>({ busy: false })
  const served = check.result?.ok ? check.result.models : []
  const formRef = useRef<HTMLFieldSetElement>(null)
  useEffect(() => {
    if (!focus) return
    // Edit (or a run that failed with this provider): the form is where it is fixed
    formRef.current?.scrollIntoView?.({ block: 'nearest' })
    formRef.current?.querySelector<HTMLInputElement>('input[data-first]')?.focus()
  }, [focus])
  // bumped by every edit and check: an answer for inputs that changed meanwhile is dropped
  const checkSeq = useRef(0)
  // a check (or an input error) describes the URL and API it was made with: editing either makes it stale,
  // and showing it beside a new outcome contradicted it. "Use this URL" keeps it: the models are there.
  const editUrl = (next: string) => {
    setBaseUrl(next)
    setError(undefined)
    if (check.result?.ok && next === check.result.suggestedBaseUrl) return
    checkSeq.current++
    setCheck({ busy: false })
  }
  const editApi = (next: EndpointApi) => {
    setApi(next)
    setError(undefined)
    checkSeq.current++
    setCheck({ busy: false })
  }
  const parsedUrl = (): URL | undefined => {
    try {
      const typed = baseUrl.trim()
      const full = withScheme(typed)
      const url = new URL(full)
      if (url.protocol === 'http:' || url.protocol === 'https:') {
        if (full !== typed) setBaseUrl(full) // the field shows what is checked and saved
        return url
      }
    } catch {
      // reported below
    }
    setError('Enter a valid http(s) base URL, e.g. http://127.0.0.1:11434/v1', 'url')
    return undefined
  }
  const editRow = (key: number, change: Partial<Pick<ModelRow, 'id' | 'ctx' | 'maxTokens' | 'compat'>>, list = served) => {
    setError(undefined)
    // a model the server lists with its context window: that one, unless the user typed another
    const known = change.id !== undefined ? list.find((m) => m.id === change.id)?.contextWindow : undefined
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change, ...(known ? { ctx: String(known) } : {}) } : r)))
  }
  // a row's Remove, and "Add the served models", go away when used: focus moves to the row that took the
  // removed one's place (else the last row, else "Add a model"), not to <body>; a row added gets the focus
  const modelsRef = useRef<HTMLDivElement>(null)
  const addModelRef = useRef<HTMLButtonElement>(null)
  const droppedAt = useRef(0)
  const refocusRows = useRefocus(rows, () => {
    const ids = [...(modelsRef.current?.querySelectorAll<HTMLElement>('[data-model-id]') ?? [])]
    return [ids[droppedAt.current] ?? ids.at(-1), addModelRef.current]
  })
  const focusRow = useRef<number>(undefined)
  useEffect(() => {
    if (focusRow.current === undefined) return
    modelsRef.current?.querySelector<HTMLElement>(`[data-model-key="${focusRow.current}"] [data-model-id]`)?.focus()
    focusRow.current = undefined
  }, [rows])
  const addRow = () => {
    setError(undefined)
    const row = modelRow()
    focusRow.current = row.key
    setRows((rs) => [...rs, row])
  }
  // the models the server lists and the form does not have yet: one click adds them all (empty rows go)
  const unlisted = served.filter((m) => !rows.some((r) => r.id.trim() === m.id))
  const addServed = () => {
    setError(undefined)
    droppedAt.current = 0
    refocusRows()
    setRows((rs) => [
      ...rs.filter((r) => r.id.trim()),
      ...unlisted.map((m) => ({ ...modelRow(), id: m.id, ctx: m.contextWindow ? String(m.contextWindow) : '' })),
    ])
  }
  const dropRow = (key: number) => {
    droppedAt.current = rows.findIndex((r) => r.key === key)
    refocusRows()
    setRemovingRow(undefined)
    setRows((rs) => rs.filter((r) => r.key !== key))
  }
  // the default model is one of the saved ones: removing its row asks first, as removing the endpoint does
  const isDefault = (r: ModelRow) => !!provider && !!r.origId && primary === `${provider.id}/${r.origId}`
  // one GET of the server's model list: is it there, does the key work, which models can be picked
  const runCheck = async () => {
    // the previous outcome goes first, whatever this check finds (even an invalid URL)
    const seq = ++checkSeq.current
    setCheck({ busy: false })
    setError(undefined)
    const url = parsedUrl()
    if (!url) return
    setCheck({ busy: true })
    // the saved endpoint's key goes along only to the saved URL (the runtime checks that too)
    const result = await controller.probeModels({ baseUrl: url.href.replace(/\/$/, ''), api, ...(provider?.baseUrl ? { provider: provider.id } : {}) })
    if (seq !== checkSeq.current) return
    setCheck({ busy: false, result })
    const empty = rows.find((r) => !r.id.trim())
    if (result.ok && result.models.length === 1 && empty) editRow(empty.key, { id: result.models[0].id }, result.models)
  }
  const save = async () => {
    const id = name.trim()
    const renaming = !!provider && id !== provider.id
    // the runtime refuses it too: a rename not in effect would leave the settings in use without the key
    if (renaming && problems) {
      return setError(`Fix the config file's problems first (listed above): until then the settings in use still name “${provider.id}”, so it cannot be renamed.`)
    }
    if (!provider || renaming) {
      const problem = providerNameProblem(
        id,
        taken.filter((t) => t !== provider?.id),
        builtins,
      )
      if (problem) return setError(problem, 'name')
    }
    const url = parsedUrl()
    if (!url) return
    const built = modelEntries(rows)
    if ('error' in built) return setError(built.error)
    setError(undefined)
    const entry: Record<string, unknown> = {
      // Anthropic's SDK appends /v1/messages itself: a base ending in /v1 would ask for /v1/v1/messages
      baseUrl: api === 'anthropic-messages' ? url.href.replace(/\/+$/, '').replace(/\/v1$/, '') : url.href.replace(/\/$/, ''),
      api,
      models: built.models,
    }
    // the default model's id edited in its row: the default follows it, in the same save
    const defaultRow = rows.find(isDefault)
    const movedDefault = defaultRow && defaultRow.id.trim() !== defaultRow.origId ? { agents: { defaults: { model: { primary: `${id}/${defaultRow.id.trim()}` } } } } : {}
    const patch = { models: { providers: { [id]: entry } }, ...movedDefault }
    // the list is replaced, not merged by id: a renamed or removed model must not stay
    const replace = [`models.providers.${id}.models`]
    setBusy(true)
    const saved = renaming
      ? // one write: the entry, its stored key and the model refs naming it move to the new name
        await controller.renameProvider(provider.id, id, patch, `Could not rename “${provider.id}”`, replace)
      : await controller.patchConfig(patch, 'Could not save the endpoint', replace)
    setBusy(false)
    if (!saved) return
    controller.notify(
      renaming ? `Renamed “${provider.id}” to “${id}”: its models are ${id}/… now.` : provider ? `Saved the endpoint “${id}”.` : `Added the endpoint “${id}”: its models are ${id}/…`,
    )
    await controller.ensureDefaultModel(id)
    onSaved(id)
  }
  return (
    <fieldset className="endpoint-form" ref={formRef} aria-label={provider ? `Edit endpoint ${provider.id}` : 'New endpoint'}>
      <legend className="small">{provider ? `Edit “${provider.id}”` : 'Add an endpoint'}</legend>
      <div className="grid2">
        <label className="field">
          <span>Name</span>
          <input
            ref={nameRef}
            {...invalid('name')}
            value={name}
            onChange={(e) => {
              setName(e.target.value)
              setError(undefined)
            }}
            // an endpoint's name starts its model refs: a rename moves them (default model, agents) and its key
            title={provider ? 'Renaming moves its key, and the default model and agents using its models, to the new name' : undefined}
            spellCheck={false}
          />
        </label>
        <label className="field">
          <span>Base URL</span>
          {/* data-autofocus: the Settings dialog, opening, focuses it instead of its first button */}
          <input ref={urlRef} {...invalid('url')} value={baseUrl} onChange={(e) => editUrl(e.target.value)} spellCheck={false} data-first data-autofocus={focus || undefined} />
        </label>
        <label className="field">
          <span>API</span>
          <select value={api} onChange={(e) => editApi(e.target.value as EndpointApi)}>
            <option value="openai-completions">OpenAI-compatible (chat completions)</option>
            <option value="anthropic-messages">Anthropic-compatible (messages)</option>
          </select>
        </label>
      </div>
      <div className="endpoint-models" role="list" aria-label="Models" ref={modelsRef}>
        {rows.map((r, i) => (
          <div className="endpoint-model" role="listitem" key={r.key} aria-label={`Model ${i + 1}`} data-model-key={r.key}>
            <label className="field">
              <span>Model id</span>
              <input
                data-model-id
                value={r.id}
                onChange={(e) => editRow(r.key, { id: e.target.value })}
                placeholder={served.length ? `${served.length} served — type or pick` : 'llama3.1:8b'}
                list={served.length ? 'endpoint-models' : undefined}
                spellCheck={false}
              />
            </label>
            <label className="field">
              <span>Context window</span>
              <input
                inputMode="numeric"
                aria-label="Context window (tokens)"
                value={r.ctx}
                placeholder="32768"
                title="In tokens; empty: 32768"
                onChange={(e) => editRow(r.key, { ctx: e.target.value })}
              />
            </label>
            <label className="field">
              <span>Max tokens</span>
              <input
                inputMode="numeric"
                value={r.maxTokens}
                placeholder="8192"
                title="The longest reply, in tokens; empty: 8192 (at most the context window)"
                onChange={(e) => editRow(r.key, { maxTokens: e.target.value })}
              />
            </label>
            <button
              type="button"
              className="btn btn-sm btn-ghost"
              aria-label={`Remove model ${r.id.trim() || i + 1}`}
              onClick={() => (isDefault(r) ? setRemovingRow(r) : dropRow(r.key))}
            >
              Remove
            </button>
            {/* the switches are pi-ai's OpenAI-compatible ones: another API ignores them */}
            {api === 'openai-completions' && (
              <CompatSwitches label={r.id.trim() || `model ${i + 1}`} compat={r.compat} onChange={(compat) => editRow(r.key, { compat })} />
            )}
          </div>
        ))}
        {served.length > 0 && (
          <datalist id="endpoint-models">
            {served.map((m) => (
              <option key={m.id} value={m.id} />
            ))}
          </datalist>
        )}
      </div>
      <div className="row-actions">
        <button type="button" className="btn btn-sm btn-ghost" onClick={addRow} ref={addModelRef}>
          Add a model
        </button>
        {unlisted.length > 0 && (
          <button type="button" className="btn btn-sm btn-ghost" onClick={addServed}>
            {unlisted.length === 1 ? `Add the served model “${unlisted[0].id}”` : `Add the ${unlisted.length} served models not listed`}
          </button>
        )}
      </div>
      {error && (
        <p id={errorId} className="error-text" role="alert">
          {error}
        </p>
      )}
      <CheckOutcome busy={check.busy} result={check.result} modelIds={rows.map((r) => r.id.trim()).filter(Boolean)} onUseUrl={(u) => editUrl(u)} />
      <div className="row-actions">
        {provider && (
          <button type="button" className="btn btn-sm btn-ghost" onClick={onNew}>
            Add another endpoint
          </button>
        )}
        {/* not `disabled` while it checks: the button would drop the focus it has (to <body>) */}
        <button type="button" className="btn btn-sm" onClick={() => void (check.busy || runCheck())} aria-disabled={check.busy || undefined}>
          {check.busy ? 'Checking…' : 'Check'}
        </button>
        <button type="button" className="btn btn-sm" onClick={() => void save()} disabled={busy}>
          Save endpoint
        </button>
      </div>
      {provider?.baseUrl ? (
        <ApiKeyRow providerId={provider.id} name="Endpoint" hint="Only if the server asks for one" />
      ) : (
        <p className="muted small">A key for the endpoint (optional) can be added once it is saved.</p>
      )}
      {removingRow && (
        <ConfirmDialog
          title="Remove model?"
          confirmLabel="Remove model"
          danger
          message={
            <>
              Remove “{removingRow.origId}” from “{provider?.id}”? It leaves the config when you save the endpoint.
              <strong className="error-text">
                {' '}
                It is the default model “{primary}”: runs have no usable default until you pick another one.
              </strong>
            </>
          }
          onConfirm={() => dropRow(removingRow.key)}
          onCancel={() => setRemovingRow(undefined)}
        />
      )}
    </fieldset>
  )
}

/**
 * A model row's Advanced disclosure: what its server does not take, for servers that refuse a field pi-ai
 * sends (a 400 naming it) or ignore the one it uses. Each left at Automatic is not written to the file.
 */
function CompatSwitches({ label, compat, onChange }: { label: string; compat: ModelCompat; onChange(next: ModelCompat): void }) {
  const set = compatSet(compat)
  // open at first when something is set; then as the user leaves it (a switch put back does not close it)
  const [open, setOpen] = useState(set > 0)
  const effort = compat.supportsReasoningEffort === undefined ? 'auto' : compat.supportsReasoningEffort ? 'yes' : 'no'
  const summary = `Advanced${set > 0 ? ` (${set} set)` : ''}`
  return (
    <details className="endpoint-compat" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      {/* the visible words start the name, which also says whose switches these are (several rows) */}
      <summary aria-label={`${summary}: what the server for ${label} does not take`}>{summary}</summary>
      <div className="endpoint-compat-body">
        <label className="compat-check">
          <input
            type="checkbox"
            checked={compat.supportsUsageInStreaming !== false}
            onChange={(e) => onChange(withCompat(compat, 'supportsUsageInStreaming', e.target.checked ? undefined : false))}
          />
          <span>
            Ask for token usage while streaming <code>stream_options</code>
            <span className="muted small">
              {' '}
              — turn off for a server that refuses it (older vLLM, some LiteLLM and Azure): Loopdesk then counts only the usage it sends on its own
            </span>
          </span>
        </label>
        <label className="field">
          <span>Reply limit field</span>
          <select
            value={compat.maxTokensField ?? ''}
            onChange={(e) => onChange(withCompat(compat, 'maxTokensField', (e.target.value || undefined) as ModelCompat['maxTokensField']))}
          >
            <option value="">Automatic (by the server’s URL)</option>
            <option value="max_tokens">max_tokens (older servers)</option>
            <option value="max_completion_tokens">max_completion_tokens</option>
          </select>
        </label>
        <label className="field">
          <span>Reasoning effort</span>
          <select
            value={effort}
            title="Whether a reasoning model is sent reasoning_effort (the thinking level)"
            onChange={(e) => onChange(withCompat(compat, 'supportsReasoningEffort', e.target.value === 'auto' ? undefined : e.target.value === 'yes'))}
          >
            <option value="auto">Automatic (by the server’s URL)</option>
            <option value="yes">Send reasoning_effort</option>
            <option value="no">Don’t send it (the server refuses it)</option>
          </select>
        </label>
      </div>
    </details>
  )
}

/** What the endpoint check found: the server's models, a better base URL, or why it failed. */
function CheckOutcome({
  busy,
  result,
  modelIds,
  onUseUrl,
}: {
  busy: boolean
  result?: Results['loopdesk.models.probe']
  modelIds: string[]
  onUseUrl(url: string): void
}) {
  if (busy || !result) return null
  if (!result.ok) {
    return (
      <p className="error-text" role="alert">
        Check failed: {result.error}
      </p>
    )
  }
  const n = result.models.length
  return (
    <p className="ok-text" role="status">
      {n === 0 ? 'The server answered, but serves no models yet.' : `Connected: ${n} model${n === 1 ? '' : 's'} (${result.ms} ms).`}
      {result.suggestedBaseUrl && (
        <>
          {' '}
          They are at {result.suggestedBaseUrl}.{' '}
          <button type="button" className="btn btn-sm" onClick={() => onUseUrl(result.suggestedBaseUrl!)}>
            Use this URL
          </button>
        </>
      )}
      {/* a typo, or a model not pulled yet: every run would fail with it */}
      {n > 0 && <NotServed ids={modelIds.filter((id) => !result.models.some((m) => m.id === id))} />}
    </p>
  )
}

function NotServed({ ids }: { ids: string[] }) {
  if (!ids.length) return null
  const named = ids.map((id) => `“${id}”`).join(', ')
  return (
    <span className="error-text">
      {' '}
      {named} {ids.length === 1 ? 'is' : 'are'} not among them.
    </span>
  )
}

/** Which proxy model requests use (from the environment, or the OS settings in the desktop app). */
export function proxyNote(p: NonNullable<Results['status']['proxy']>): string {
  const named = (url?: string, from?: string) => (url ? `through ${url}${from ? ` (${from})` : ''}` : 'direct')
  const how =
    p.https === p.http
      ? `go ${named(p.https, p.source.https)}`
      : `go: https ${named(p.https, p.source.https)}, http ${named(p.http, p.source.http)}`
  return `Model requests ${how}; local addresses${p.noProxy ? ` and ${p.noProxy}` : ''} stay direct.`
}

/** Where pasted keys go, as the runtime says (the desktop app: the OS keychain; the headless gateway: a file). */
export function keyStorageNote(where: Results['status']['credentials'] | undefined): string {
  if (where?.store === 'system') return "Keys are stored in the system's secure store and never shown again."
  if (where?.store === 'file') return `Keys are saved in ${where.path}, readable only by your user account, and never shown again.`
  return 'Keys are kept by the runtime and never shown again.'
}

/** The name a provider goes by in Settings: the built-ins' own, a custom provider's config key. */
export function providerLabel(id: string): string {
  return PROVIDERS.find((p) => p.id === id)?.name ?? id
}

/** value of a "add a key" hint line (disabled: never a choice, but options need distinct values) */
const NEEDS_KEY_PREFIX = '\u0000needs-key:'

export interface DefaultModelChoices {
  /** providers with usable models, in the runtime's order (it ranks usable ones first) */
  groups: Array<{ provider: string; label: string; models: ModelChoice[] }>
  /** the configured default when it is not among the usable models (no key any more, provider removed) */
  current?: { ref: string; text: string }
  /** one line per provider without a key, instead of one disabled option per model (hundreds of them) */
  needKey: Array<{ provider: string; text: string }>
}

export function defaultModelChoices(models: readonly ModelChoice[], primary: string): DefaultModelChoices {
  const groups = new Map<string, DefaultModelChoices['groups'][number]>()
  const missing = new Map<string, number>()
  for (const m of models) {
    if (m.configured) {
      const g = groups.get(m.provider) ?? { provider: m.provider, label: providerLabel(m.provider), models: [] }
      g.models.push(m)
      groups.set(m.provider, g)
    } else missing.set(m.provider, (missing.get(m.provider) ?? 0) + 1)
  }
  const needKey = [...missing]
    .filter(([p]) => !groups.has(p))
    .map(([provider, n]) => ({ provider, text: `${providerLabel(provider)} — add a key to use its ${n} model${n === 1 ? '' : 's'}` }))
  const usable = [...groups.values()].some((g) => g.models.some((m) => m.ref === primary))
  const known = models.find((m) => m.ref === primary)
  const current =
    primary && !usable ? { ref: primary, text: known ? `${known.name} (${providerLabel(known.provider)}) — no key` : `${primary} — not available` } : undefined
  return { groups: [...groups.values()], current, needKey }
}

function ModelsSection() {
  const controller = useController()
  const config = useAppStore('settings', (s) => s.config)
  const models = useAppStore('settings', (s) => s.models)
  const defaultModel = useAppStore('settings', (s) => s.defaultModel)
  const status = useAppStore('settings', (s) => s.status)
  const form = formConfig(config)
  const primary = (get(form, ['agents', 'defaults', 'model', 'primary']) as string | undefined) ?? defaultModel ?? ''
  const thinking = (get(form, ['agents', 'defaults', 'thinkingDefault']) as ThinkingLevel | undefined) ?? 'low'
  const choices = useMemo(() => defaultModelChoices(models, primary), [models, primary])
  // the provider Settings was opened at (a run failed with it), taken once: a later opening starts plain
  const requested = useAppStore('settings', (s) => s.settingsProvider)
  const [focusAt] = useState(requested)
  const sectionRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!focusAt) return
    controller.clearSettingsProvider()
    // an endpoint of one's own is brought into view by its form
    if (!BUILTIN_IDS.has(focusAt)) return
    const rows = sectionRef.current?.querySelectorAll<HTMLElement>('[data-key-provider]') ?? []
    ;[...rows].find((r) => r.dataset.keyProvider === focusAt)?.scrollIntoView?.({ block: 'center' })
  }, [controller, focusAt])
  return (
    <div className="settings-section" ref={sectionRef}>
      <fieldset className="card">
        <legend>Providers</legend>
        <p className="muted small">{keyStorageNote(status?.credentials)}</p>
        {status?.proxy && <p className="muted small">{proxyNote(status.proxy)}</p>}
        {PROVIDERS.map((p) => (
          <ApiKeyRow key={p.id} providerId={p.id} name={p.name} hint={`Paste key (or set ${p.env})`} focus={p.id === focusAt} />
        ))}
      </fieldset>
      <CustomEndpoints focusAt={focusAt} />
      <fieldset className="card">
        <legend>Defaults</legend>
        <div className="grid2">
          <label className="field">
            <span>Default model</span>
            <select
              aria-label="Default model"
              value={primary}
              onChange={(e) => void controller.patchConfig({ agents: { defaults: { model: { primary: e.target.value } } } })}
            >
              {!primary && <option value="">Choose a model…</option>}
              {choices.groups.map((g) => (
                <optgroup key={g.provider} label={g.label}>
                  {g.models.map((m) => (
                    <option key={m.ref} value={m.ref}>
                      {m.name}
                    </option>
                  ))}
                </optgroup>
              ))}
              {choices.current && (
                // the default in the config is not usable now: shown as it is, never silently another one
                <option value={choices.current.ref} disabled>
                  {choices.current.text}
                </option>
              )}
              {choices.needKey.length > 0 && (
                <optgroup label="Not set up">
                  {choices.needKey.map((h) => (
                    <option key={h.provider} value={`${NEEDS_KEY_PREFIX}${h.provider}`} disabled>
                      {h.text}
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
          </label>
          <label className="field">
            <span>Thinking level</span>
            <select
              aria-label="Thinking level"
              value={thinking}
              onChange={(e) => void controller.patchConfig({ agents: { defaults: { thinkingDefault: e.target.value } } })}
            >
              {THINKING_LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
        </div>
      </fieldset>
    </div>
  )
}

function AgentSection() {
  const controller = useController()
  const config = useAppStore('settings', (s) => s.config)
  const form = formConfig(config)
  const [timeout, setTimeoutValue] = useState(String(get(form, ['agents', 'defaults', 'timeoutSeconds']) ?? 600))
  const configuredWorkspace = get(form, ['agents', 'defaults', 'workspace']) as string | undefined
  const [workspace, setWorkspace] = useState(configuredWorkspace ?? '')
  const savedTimeout = String(get(form, ['agents', 'defaults', 'timeoutSeconds']) ?? 600)
  useUnsaved(timeout !== savedTimeout || workspace !== (configuredWorkspace ?? '') ? 'the run settings' : undefined)
  // the folder runs use when none is configured (the runtime resolves it: <state dir>/workspace)
  const [defaultWorkspace, setDefaultWorkspace] = useState<string>()
  useEffect(() => {
    if (configuredWorkspace) return
    let live = true
    void controller.bridge.agentsList({}).then((r) => {
      if (live && r.ok) setDefaultWorkspace(r.data.agents.find((a) => a.id === r.data.defaultId)?.workspace)
    })
    return () => {
      live = false
    }
  }, [controller, configuredWorkspace])
  const [error, setError] = useState<string>()
  const save = async () => {
    const t = Number(timeout)
    if (!Number.isInteger(t) || t < 1 || t > 31_536_000) return setError('Run timeout must be a whole number of seconds (1 or more).')
    setError(undefined)
    // an emptied field goes back to the default folder (merge patch: null removes the setting)
    const ws = workspace.trim() ? { workspace: workspace.trim() } : configuredWorkspace ? { workspace: null } : {}
    await controller.patchConfig({ agents: { defaults: { timeoutSeconds: t, ...ws } } })
  }
  return (
    <div className="settings-section">
      <fieldset className="card">
        <legend>Runs</legend>
        <div className="grid2">
          <label className="field">
            <span>Run timeout (seconds)</span>
            <input inputMode="numeric" aria-label="Run timeout (seconds)" value={timeout} onChange={(e) => setTimeoutValue(e.target.value)} />
          </label>
          <label className="field">
            <span>Workspace folder</span>
            <input
              aria-label="Workspace folder"
              value={workspace}
              onChange={(e) => setWorkspace(e.target.value)}
              placeholder={configuredWorkspace ? 'Empty: the default folder' : (defaultWorkspace ?? 'the default folder')}
              spellCheck={false}
            />
          </label>
        </div>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-primary" onClick={() => void save()}>
            Save
          </button>
        </div>
      </fieldset>
      <ExecAllowlist form={form} />
    </div>
  )
}

export interface GatewayEndpoint {
  port: number
  url: string
  /** a gateway is known to listen there (status said so, or this page is served by it) */
  listening: boolean
  /** the configured port was taken and the gateway listens on another one */
  fellBack: boolean
}

/**
 * Where the local gateway really listens. `status` reports it (the desktop app falls back to a free
 * port when the configured one is taken, so the config is not enough); in browser mode the page is
 * connected to it (`pageGatewayUrl`); otherwise only the configured port is known.
 */
export function gatewayEndpoint(status: Results['status'] | undefined, configuredPort: number | undefined, pageGatewayUrl?: string): GatewayEndpoint {
  const gw = status?.gateway
  if (gw && Number.isInteger(gw.port) && gw.port > 0) return { port: gw.port, url: gw.url || `ws://127.0.0.1:${gw.port}`, listening: true, fellBack: !!gw.fellBack }
  const pagePort = pageGatewayUrl ? Number(new URL(pageGatewayUrl).port) : 0
  if (pagePort > 0) return { port: pagePort, url: `ws://127.0.0.1:${pagePort}`, listening: true, fellBack: false }
  const port = configuredPort ?? DEFAULT_GATEWAY_PORT
  return { port, url: `ws://127.0.0.1:${port}`, listening: false, fellBack: false }
}

function GatewaySection() {
  const controller = useController()
  const config = useAppStore('settings', (s) => s.config)
  const status = useAppStore('settings', (s) => s.status)
  const revealed = useAppStore('settings', (s) => s.revealedToken)
  const configuredPort = get(formConfig(config), ['gateway', 'port']) as number | undefined
  const endpoint = gatewayEndpoint(status, configuredPort, connectedGatewayUrl())
  const [portValue, setPortValue] = useState(String(configuredPort ?? endpoint.port))
  const [openedPort] = useState(portValue)
  useUnsaved(portValue !== openedPort && portValue !== String(configuredPort) ? 'the gateway port' : undefined)
  const [error, setError] = useState<string>()
  // The port may have changed since the app started (a restart, a fallback): ask again.
  useEffect(() => void controller.loadStatus(), [controller])
  const tokenState = config?.secrets ? (config.secrets['gateway.auth.token'] ?? config.secrets['gateway.token'] ?? 'not set') : 'not set'
  const token = revealed ?? gatewayToken()
  const snippet = `npx loopdesk gateway call health --url ${endpoint.url} --token ${token ?? '<your-token>'}`
  return (
    <div className="settings-section">
      <fieldset className="card">
        <legend>Local gateway</legend>
        <p className="small" role="status" aria-label="Gateway address">
          {endpoint.listening ? (
            <>
              Listening on <code>{endpoint.url}</code>
              {endpoint.fellBack && configuredPort !== undefined && (
                <span className="muted">
                  {' '}
                  · port {configuredPort} was taken, so it uses {endpoint.port}
                </span>
              )}
            </>
          ) : (
            <span className="muted">No gateway is listening now; it will use port {endpoint.port}.</span>
          )}
        </p>
        <div className="grid2">
          <label className="field">
            <span>Port</span>
            <input inputMode="numeric" aria-label="Gateway port" value={portValue} onChange={(e) => setPortValue(e.target.value)} />
          </label>
          <div className="field">
            <span>Token</span>
            <div className="token-row">
              {tokenState === 'set' || revealed ? (
                <span className="badge badge-done">Token set</span>
              ) : (
                // no token in the config: the gateway generated one at its first start and keeps it in the
                // state dir (gateway/token, mode 0600) — the browser and the CLI use that one
                <span className="badge badge-muted" title="Generated at the gateway's first start and kept in the state folder (gateway/token)">
                  {endpoint.listening ? 'Generated token' : 'Generated at start'}
                </span>
              )}
              <button
                type="button"
                className="btn btn-sm"
                onClick={async () => {
                  const t = randomToken()
                  if (await controller.patchConfig({ gateway: { auth: { token: t } } }, 'Could not set the token')) {
                    controller.setRevealedToken(t)
                    rememberGatewayToken(t) // browser mode: a reload of this tab uses the new token
                  }
                }}
              >
                Generate new token
              </button>
            </div>
          </div>
        </div>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="row-actions">
          <button
            type="button"
            className="btn btn-sm"
            onClick={async () => {
              const p = Number(portValue)
              if (!Number.isInteger(p) || p < 1 || p > 65535) return setError('Port must be between 1 and 65535.')
              setError(undefined)
              if (await controller.patchConfig({ gateway: { port: p } })) await controller.loadStatus()
            }}
          >
            Save port
          </button>
        </div>
        <p className="muted small">Use the gateway from a terminal (a new token disconnects clients using the old one):</p>
        <div className="snippet">
          <code>{snippet}</code>
          <CopyButton text={snippet} label="Copy CLI command" />
        </div>
      </fieldset>
    </div>
  )
}

function AppearanceSection() {
  const controller = useController()
  const theme = useAppStore('settings', (s) => s.prefs.theme)
  return (
    <div className="settings-section">
      <fieldset className="card">
        <legend>Theme</legend>
        <div className="segmented" role="radiogroup" aria-label="Theme">
          {(['light', 'dark', 'system'] as const).map((t) => (
            <label key={t} className={theme === t ? 'active' : ''}>
              <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => void controller.setPrefs({ theme: t })} />
              {t === 'system' ? 'System' : t === 'light' ? 'Light' : 'Dark'}
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  )
}

const SECTIONS = [
  { id: 'models', label: 'Models', View: ModelsSection },
  { id: 'agent', label: 'Agent', View: AgentSection },
  { id: 'gateway', label: 'Gateway', View: GatewaySection },
  { id: 'appearance', label: 'Appearance', View: AppearanceSection },
] as const

/**
 * Saves the gateway refused for now (config writes are rate limited): says so, counts down to the
 * automatic retry, and lets the user drop them. What was typed stays in the forms meanwhile.
 */
function SaveRetryNotice() {
  const controller = useController()
  const retry = useAppStore('settings', (s) => s.saveRetry)
  // re-render once a second while a retry waits (the countdown reads the clock when rendering)
  const [, setTick] = useState(0)
  useEffect(() => {
    if (!retry) return
    const timer = setInterval(() => setTick((n) => n + 1), 1000)
    return () => clearInterval(timer)
  }, [retry])
  if (!retry) return null
  // eslint-disable-next-line react-hooks/purity -- a countdown shows the time left now
  const secs = Math.max(0, Math.ceil((retry.retryAt - Date.now()) / 1000))
  const what = retry.count > 1 ? `${retry.count} changes` : 'your change'
  return (
    <div className="callout callout-warn" role="status" aria-label="Save retry">
      {retry.rateLimited ? 'Too many changes in a short time (the gateway allows 3 per minute). ' : 'The gateway cannot save right now. '}
      {secs > 0 ? `Retrying ${what} in ${secs} s…` : `Retrying ${what}…`}{' '}
      <button type="button" className="btn btn-link btn-xs" onClick={() => controller.cancelSaveRetries()}>
        Don't retry
      </button>
    </div>
  )
}

export function SettingsDialog() {
  const controller = useController()
  const initial = useAppStore('settings', (s) => s.settingsSection)
  const config = useAppStore('settings', (s) => s.config)
  const [section, setSection] = useState<string>(initial ?? 'models')
  const current = useMemo(() => SECTIONS.find((s) => s.id === section) ?? SECTIONS[0], [section])
  // what the forms hold unsaved, by form: closing asks first instead of dropping it
  const [unsaved, setUnsaved] = useState<ReadonlyMap<string, string>>(new Map())
  // the same, current at once: forms report from their effects, and an Escape right after a save (the saved form's
  // report still waiting for its render) must not ask about what was just saved
  const unsavedNow = useRef<ReadonlyMap<string, string>>(unsaved)
  const unsavedCtx = useMemo(
    () => ({
      report: (id: string, what: string | undefined) => {
        const m = unsavedNow.current
        if (m.get(id) === what) return
        const next = new Map(m)
        if (what === undefined) next.delete(id)
        else next.set(id, what)
        unsavedNow.current = next
        setUnsaved(next)
      },
    }),
    [],
  )
  const [confirmClose, setConfirmClose] = useState(false)
  const requestClose = () => (unsavedNow.current.size ? setConfirmClose(true) : controller.closeSettings())
  const pending = [...new Set(unsaved.values())]
  return (
    <Dialog title="Settings" onClose={requestClose} className="modal-lg" footer={<Toasts inline />}>
      <UnsavedContext.Provider value={unsavedCtx}>
        <div className="settings">
          <nav className="settings-nav" aria-label="Settings sections">
            {SECTIONS.map((s) => (
              <button key={s.id} type="button" aria-current={s.id === section ? 'page' : undefined} onClick={() => setSection(s.id)}>
                {s.label}
              </button>
            ))}
          </nav>
          <div className="settings-content">
            <SaveRetryNotice />
            <ConfigExposedNotice />
            {config && config.issues.length > 0 && (
              // saves still go through (unless they add a problem), but the runtime keeps the last good config;
              // a file it cannot read takes no save at all: say so before the user types anything in vain
              <div className="callout callout-warn" role="alert" aria-label="Config file problems">
                Config problems: {config.issues.map((i) => `${i.path || '(file)'}: ${i.message}`).join('; ')}.{' '}
                {fileUnreadable(config) ? (
                  <>
                    Settings cannot save to the file until it can be read again: fix it in an editor (<code>{config.path}</code>). Until then the last good
                    settings stay in use and are shown here.
                  </>
                ) : (
                  'Changes you save here take effect once these are fixed — until then the last good settings stay in use; the forms show what the file says, saved changes included.'
                )}
              </div>
            )}
            {/* every section stays mounted (the others hidden): what was typed in one and not saved yet is still
                there after a look at another */}
            {SECTIONS.map(({ id, View }) => (
              <div key={id} hidden={id !== current.id}>
                <View />
              </div>
            ))}
          </div>
        </div>
      </UnsavedContext.Provider>
      {confirmClose && (
        <ConfirmDialog
          title="Discard unsaved changes?"
          confirmLabel="Discard and close"
          danger
          message={<>Not saved yet: {pending.join(', ')}. Close Settings and discard {pending.length === 1 ? 'it' : 'them'}?</>}
          onConfirm={() => controller.closeSettings()}
          onCancel={() => setConfirmClose(false)}
        />
      )}
    </Dialog>
  )
}
