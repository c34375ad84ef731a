// "Check" for a model server: one GET of its model list (free, unlike a chat request), so the settings can
// say at once whether the base URL and key work, and offer the server's model ids instead of making the
// user type one. The usual mistake is a base URL without `/v1` (Ollama's root answers "Ollama is
// running"): then `<base>/v1/models` is tried too and offered as the fix.
import http from 'node:http'
import https from 'node:https'
import { ANTHROPIC_NOT_OPENAI, htmlGist } from '../runner/http-refusal'
import { describeNetworkFailure } from '../runner/network-failure'
import { endpointBaseUrl } from './endpoint-url'
import { activeProxy, proxyFor } from '../net/proxy'
import { canRequestThrough, ProxyRefusedError, requestThroughProxy } from '../net/proxy-request'
import { decodedBody, readCapped } from '../tools/decoded-body'

export interface ProbedModel {
  id: string
  /** when the server says (OpenRouter/LM Studio `context_length`, vLLM `max_model_len`, `context_window`) */
  contextWindow?: number
}

export type ProbeResult =
  | { ok: true; url: string; models: ProbedModel[]; ms: number; suggestedBaseUrl?: string }
  | { ok: false; url: string; error: string; status?: number; ms: number }

export interface ProbeOptions {
  baseUrl: string
  api: string
  /** sent only by the caller's decision (it must belong to this base URL) */
  apiKey?: string
  headers?: Record<string, string>
  provider?: string
  timeoutMs?: number
  /**
   * a path under the base URL that answers only with a valid key, asked first when the model list itself
   * needs none (OpenRouter's `/key`): without it a Check would pass a wrong key
   */
  keyCheckPath?: string
}

export const PROBE_TIMEOUT_MS = 8_000
/** a model list is a few KB to a few hundred (OpenRouter); anything bigger is not one */
const MAX_BODY_BYTES = 4 * 1024 * 1024
const MAX_MODELS = 2_000

const trimSlash = (s: string) => s.replace(/\/+$/, '')

/** APIs whose SDK appends `/v1` to the base URL itself */
const SDK_ADDS_V1 = new Set(['anthropic-messages', 'mistral-conversations'])

/**
 * Where the model list is: OpenAI-style APIs at `<base>/models`, Anthropic's and Mistral's SDK base +
 * `/v1/models`, Google's at `<base>/models` (one page of up to 1,000).
 */
export function modelListUrl(baseUrl: string, api: string): string {
  const base = trimSlash(baseUrl)
  if (SDK_ADDS_V1.has(api)) return `${base.replace(/\/v1$/, '')}/v1/models`
  if (api === 'google-generative-ai') return `${base}/models?pageSize=1000`
  return `${base}/models`
}

export async function probeModels(given: ProbeOptions): Promise<ProbeResult> {
  // the base URL as the model requests will use it: a pasted endpoint URL (…/v1/chat/completions) is
  // checked where its model list is, and offered as the base URL to save
  const base = endpointBaseUrl(given.baseUrl, given.api)
  const pasted = modelListUrl(base, given.api) !== modelListUrl(given.baseUrl.trim(), given.api)
  const o = { ...given, baseUrl: base }
  const started = Date.now()
  if (o.keyCheckPath && o.apiKey) {
    const keyCheck = await probeOnce(o, `${trimSlash(o.baseUrl)}${o.keyCheckPath}`, started, false)
    if (!keyCheck.ok) return keyCheck
  }
  const first = await probeOnce(o, modelListUrl(o.baseUrl, o.api), started)
  // a list one level down: the base URL lacks its `/v1`
  if (!first.ok && !SDK_ADDS_V1.has(o.api) && o.api !== 'google-generative-ai' && !/\/v1$/.test(trimSlash(o.baseUrl)) && first.status !== 401 && first.status !== 403) {
    const suggested = `${trimSlash(o.baseUrl)}/v1`
    const second = await probeOnce(o, modelListUrl(suggested, o.api), started)
    if (second.ok) return { ...second, suggestedBaseUrl: suggested }
  }
  return first.ok && pasted ? { ...first, suggestedBaseUrl: base } : first
}

/** One GET: a model list (or, with `list` false, any 2xx answer: a key check). */
async function probeOnce(o: ProbeOptions, url: string, started: number, list = true): Promise<ProbeResult> {
  const fail = (error: string, status?: number): ProbeResult => ({ ok: false, url, error, ...(status ? { status } : {}), ms: Date.now() - started })
  let target: URL
  try {
    target = new URL(url)
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return fail('the base URL must start with http:// or https://')
  } catch {
    return fail('the base URL is not a valid URL')
  }
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers }
  if (o.api === 'anthropic-messages') {
    headers['anthropic-version'] = '2023-06-01'
    if (o.apiKey) headers['x-api-key'] = o.apiKey
  } else if (o.api === 'google-generative-ai') {
    if (o.apiKey) headers['x-goog-api-key'] = o.apiKey
  } else if (o.apiKey) {
    headers.authorization = `Bearer ${o.apiKey}`
  }
  const timeoutMs = o.timeoutMs ?? PROBE_TIMEOUT_MS
  const signal = AbortSignal.timeout(timeoutMs)
  const late = () => `no answer from ${target.host} within ${Math.round(timeoutMs / 1000)} s`
  const proxy = proxyFor(target, activeProxy())
  let res: Answer
  try {
    res = await get(target, headers, signal, proxy)
  } catch (err) {
    if (signal.aborted) return fail(late())
    if (err instanceof ProxyRefusedError) return fail(`could not connect: ${err.message}`)
    return fail(`could not connect: ${describeNetworkFailure({ url: target, error: err, proxy }, o.provider)}`)
  }
  let text: string
  try {
    const read = await readCapped(res.body as AsyncIterable<Buffer>, MAX_BODY_BYTES, () => res.body.destroy())
    if (read.truncated) return fail(`the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB: not a model list`)
    text = read.bytes.toString('utf8')
  } catch (err) {
    return fail(signal.aborted ? late() : (err as Error).message)
  }
  // not followed: a redirect would carry the key (x-api-key) to wherever it points
  const location = res.location
  if (res.status >= 300 && res.status < 400 && location) {
    let where = location
    try {
      where = new URL(location, target).href
    } catch {
      // shown as sent
    }
    return fail(`the server redirects to ${where}: use that address as the base URL`, res.status)
  }
  if (res.status < 200 || res.status > 299) {
    const detail = serverMessage(text)
    const what =
      res.status === 401 || res.status === 403
        ? `${o.apiKey ? 'the server refused the key' : 'the server wants an API key'} (HTTP ${res.status})`
        : res.status === 404
          ? `no model list at ${target.pathname} (HTTP 404)`
          : `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`
    const anthropic = (res.status === 401 || res.status === 403) && o.api !== 'anthropic-messages' && /x-api-key/i.test(detail ?? '')
    return fail(`${what}${detail ? `: ${detail}` : ''}${anthropic ? ` — ${ANTHROPIC_NOT_OPENAI}` : ''}`, res.status)
  }
  if (!list) return { ok: true, url, models: [], ms: Date.now() - started }
  const models = modelsOf(text)
  if (!models) {
    const page = htmlGist(text)
    if (page) return fail(`the server answered with ${page}: check the base URL`, res.status)
    return fail(`the server answered, but not with a model list${text.trim() ? ` (“${text.trim().slice(0, 80)}”)` : ''}`, res.status)
  }
  return { ok: true, url, models, ms: Date.now() - started }
}

interface Answer {
  status: number
  statusText: string
  location?: string
  body: NodeJS.ReadableStream & { destroy(): void }
}

// node:http rather than fetch: the same transport and ports as the model requests (fetch refuses some
// ports outright, "bad port"), the proxy as they use it, and a body read in pieces (capped)
function get(url: URL, headers: Record<string, string>, signal: AbortSignal, proxy: URL | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) =>
      resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', location: res.headers.location, body: decodedBody(res) })
    const req =
      proxy && canRequestThrough(proxy)
        ? requestThroughProxy(url, proxy, { method: 'GET', headers, signal }, onResponse)
        : (url.protocol === 'https:' ? https : http).request(url, { method: 'GET', headers, signal, agent: false }, onResponse)
    req.on('error', reject)
    req.end()
  })
}

/** The message of an error body (`{error: {message}}`, `{error: "…"}`, `{message}`), else a short text. */
function serverMessage(text: string): string | undefined {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown }
    const m = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message)
    if (typeof m === 'string' && m.trim()) return m.trim().slice(0, 300)
  } catch {
    // not JSON
  }
  const t = text.trim()
  return t && t.length <= 200 && !t.startsWith('<') ? t : undefined
}

const CONTEXT_FIELDS = ['context_length', 'max_model_len', 'context_window', 'max_context_length', 'inputTokenLimit'] as const

/** ids (and context sizes) of an OpenAI/Anthropic `{data: […]}` list or Ollama's / Google's `{models: […]}`; undefined if neither. */
export function modelsOf(text: string): ProbedModel[] | undefined {
  let j: unknown
  try {
    j = JSON.parse(text)
  } catch {
    return undefined
  }
  const o = j as { data?: unknown; models?: unknown }
  const list = Array.isArray(o?.data) ? o.data : Array.isArray(o?.models) ? o.models : undefined
  if (!list) return undefined
  const out: ProbedModel[] = []
  const seen = new Set<string>()
  for (const item of list.slice(0, MAX_MODELS)) {
    const m = item as Record<string, unknown>
    // Google names a model `models/gemini-…`; requests name it without the prefix
    const name = typeof m?.name === 'string' ? m.name.replace(/^models\//, '') : undefined
    const id = typeof m?.id === 'string' ? m.id : (name ?? (typeof m?.model === 'string' ? m.model : undefined))
    if (!id || seen.has(id)) continue
    seen.add(id)
    const ctx = CONTEXT_FIELDS.map((f) => m[f]).find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1024)
    out.push(ctx ? { id, contextWindow: ctx } : { id })
  }
  return out.sort((a, b) => a.id.localeCompare(b.id))
}
