// OpenAI-compatible servers that refuse `stream_options`. pi-ai asks every openai-completions stream for
// its usage (`stream_options: {include_usage: true}`) unless the model's compat says
// `supportsUsageInStreaming: false`; older vLLM, LiteLLM proxies, some Azure deployments and others answer
// that with a 400 ("extra_forbidden … stream_options", "Unrecognized request argument supplied:
// stream_options"), and the model could not be used at all.
//
// So every openai-completions request (runs and compaction summaries alike: the model registry's streamFn
// applies this around the fetch it is given) has its 400/422 looked at when it carried the field: when the
// error names `stream_options`, the same request is sent once more without it, and the provider+model (at
// its base URL) is remembered for the life of the process (logged once), so later requests are built without
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
      if (!text.includes('stream_options')) return res
      const body = withoutStreamOptions(init.body)
      if (body === undefined) return res
      if (!this.refused.has(key)) {
        this.refused.add(key)
        this.log(
          `[models] ${model.provider}/${model.id}: the server at ${model.baseUrl} refused stream_options (HTTP ${res.status}); its requests go without it from now on (usage only if the server sends it)`,
        )
      }
      return send(input, { ...init, body })
    }
  }
}

type Target = Pick<Model<Api>, 'api' | 'provider' | 'id' | 'baseUrl'>

// the base URL too: the same provider name pointed at another server (config edited) is asked afresh
const keyOf = (m: Target) => `${m.provider}\n${m.id}\n${m.baseUrl}`

/** the process's one memory of refusing servers (the model registry is rebuilt on config reloads; this stays) */
export const streamOptionsFallback = new StreamOptionsFallback()

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
