// OpenAI-compatible servers that refuse `stream_options`. pi-ai asks every openai-completions stream for
// its usage (`stream_options: {include_usage: true}`) unless the model's compat says
// `supportsUsageInStreaming: false`; older vLLM, LiteLLM proxies, some Azure deployments and others answer
// that with a 400 ("extra_forbidden … stream_options", "Unrecognized request argument supplied:
// stream_options"), and the model could not be used at all.
//
// So every openai-completions request (runs and compaction summaries alike: the model registry's streamFn
// applies this around the fetch it is given) has its 400/422 looked at when it carried the field: when the
// error names `stream_options` — or says only that an extra/unknown field was sent, naming no other field of
// the request (`refusesUnnamedField`) — the same request is sent once more without it, and the
// provider+model (at its base URL) is remembered for the life of the process (logged once; an unnamed
// refusal only once the request without the field got through), so later requests are built without
// it (`modelFor`). Usage is then whatever the server sends — often none, which the run counts as zero.
// `compat.supportsUsageInStreaming: false` on the model entry in loopdesk.json skips the first refusal.
import type { Api, Model } from '@earendil-works/pi-ai'

const REFUSALS = new Set([400, 422])

export class StreamOptionsFallback {
  private readonly refused = new Set<string>()

  constructor(private readonly log: (line: string) => void = (line) => console.warn(line)) {}

  /** whether this model's server refused `stream_options` in this process */
  refuses(model: Target): boolean {
    return this.refused.has(keyOf(model))
  }

  /** the model as its requests should be built: without usage in streaming once its server refused it */
  modelFor<M extends Target>(model: M): M {
    if (model.api !== 'openai-completions' || !this.refuses(model)) return model
    const compat = (model as { compat?: Record<string, unknown> }).compat
    return { ...model, compat: { ...compat, supportsUsageInStreaming: false } }
  }

  /**
   * `base` (default: the global fetch, what the SDK would use), sending a request refused for its
   * `stream_options` once more without them; undefined for other APIs without a `base`
   */
  fetch(base: typeof fetch | undefined, model: Target): typeof fetch | undefined {
    if (model.api !== 'openai-completions') return base
    const send: typeof fetch = base ?? ((input, init) => globalThis.fetch(input, init))
    const key = keyOf(model)
    return async (input, init) => {
      const res = await send(input, init)
      if (!REFUSALS.has(res.status) || typeof init?.body !== 'string' || !init.body.includes('"stream_options"')) return res
      // error bodies are read whole (http-fetch.ts): a real Response, so a clone leaves `res` readable for the SDK
      if (typeof res.clone !== 'function') return res
      const text = await res.clone().text().catch(() => '')
      const named = text.includes('stream_options')
      if (!named && !refusesUnnamedField(text, init.body)) return res
      const body = withoutStreamOptions(init.body)
      if (body === undefined) return res
      const again = await send(input, { ...init, body })
      // a refusal that did not name the field is only a guess: remembered once the request without it got through
      if (!this.refused.has(key) && (named || again.ok)) {
        this.refused.add(key)
        this.log(
          `[models] ${model.provider}/${model.id}: the server at ${model.baseUrl} refused stream_options (HTTP ${res.status}${named ? '' : ', an unnamed extra field'}); its requests go without it from now on (usage only if the server sends it)`,
        )
      }
      return again
    }
  }
}

type Target = Pick<Model<Api>, 'api' | 'provider' | 'id' | 'baseUrl'>

// the base URL too: the same provider name pointed at another server (config edited) is asked afresh
const keyOf = (m: Target) => `${m.provider}\n${m.id}\n${m.baseUrl}`

/** the process's one memory of refusing servers (the model registry is rebuilt on config reloads; this stays) */
export const streamOptionsFallback = new StreamOptionsFallback()

// "extra fields not permitted" (pydantic v1), "Extra inputs are not permitted" (v2), "Unrecognized request
// argument supplied" (Azure), "unknown field" (serde), "unexpected keyword argument", "additional properties"
const UNKNOWN_FIELD =
  /\b(?:extra|unknown|unrecognized|unrecognised|unexpected|additional)\s+(?:request\s+)?(?:fields?|inputs?|arguments?|parameters?|params?|properties|keys?|keyword\s+arguments?)\b|\bextra_forbidden\b/i

/**
 * A 400/422 to a request that carried `stream_options` whose error says an extra/unknown field was sent
 * without naming it: the one optional field pi adds that such strict servers lack. Not when the words name
 * any other field of the request (its keys at any depth: `tools`, `strict`, `reasoning_effort`…) — then the
 * server refused that one, and sending again without `stream_options` would only hide its message.
 */
export function refusesUnnamedField(errorText: string, requestBody: string): boolean {
  const words = errorWords(errorText)
  if (!UNKNOWN_FIELD.test(words)) return false
  let request: unknown
  try {
    request = JSON.parse(requestBody)
  } catch {
    return false
  }
  const keys = new Set<string>()
  collectKeys(request, keys)
  keys.delete('stream_options')
  keys.delete('include_usage')
  return ![...keys].some((k) => names(words, k))
}

// a key like `max_tokens` is named wherever it stands; a plain word (`type`, `name`, `content`…) only as a
// quoted or backticked name, after a colon, or as a string of its own (pydantic's `loc`), not in prose
function names(words: string, key: string): boolean {
  const k = escapeRegExp(key)
  if (/[^a-z]/.test(key)) return new RegExp(`(?<![\\w-])${k}(?![\\w-])`).test(words)
  return new RegExp(`['"\`]${k}['"\`]|:\\s*${k}(?![\\w-])|^${k}$`, 'm').test(words)
}

/** the error's own strings (a JSON body's string values, else the text): not its envelope's keys (`type`, `param`) */
function errorWords(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text)
    const out: string[] = []
    collectStrings(parsed, out)
    return out.join('\n')
  } catch {
    return text
  }
}

function collectStrings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) collectStrings(x, out)
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) collectStrings(x, out)
}

function collectKeys(v: unknown, keys: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) collectKeys(x, keys)
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      keys.add(k)
      collectKeys(x, keys)
    }
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** the JSON request body without its `stream_options`, or undefined when it is not such a body */
export function withoutStreamOptions(body: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || !('stream_options' in parsed)) return undefined
  delete (parsed as Record<string, unknown>).stream_options
  return JSON.stringify(parsed)
}
