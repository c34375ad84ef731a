// Turns pi / provider failures into a short user-facing message and an error kind.
import { isContextOverflow, type AssistantMessage } from '@earendil-works/pi-ai'
import type { ErrorKind } from '../../../shared/events'
import { htmlGist, notAStream, refusalHint, type SeenResponse } from './http-refusal'
import { describeNetworkFailure, type NetworkFailure } from './network-failure'

/** pi renders HTTP failures as `<status>: <body>`; pull the provider's own message out of a JSON body. */
export function describeModelError(raw: string | undefined, provider?: string, network?: NetworkFailure, seen?: SeenResponse, noKeySet?: boolean): string {
  const text = (raw ?? '').trim()
  if (!text) return 'The model request failed.'
  const from = provider ? ` from ${provider}` : ''
  // A stream frame that is not JSON: the parser's message carries the raw frame (`…; data=…; raw=…`),
  // which the user should not get; the gist is that the reply was unreadable.
  // the stream ended before any frame: when the response was no stream at all, what it was says more
  if (/^(\w+ )?stream ended without/i.test(text) || /^Unexpected end of JSON/.test(text)) {
    const instead = notAStream(seen)
    if (instead) return instead
  }
  const sse = /^Could not parse [^:]*SSE event[^:]*:\s*([^;]*)/s.exec(text)
  const json = /^(Unexpected (token|end of JSON)|Unterminated string in JSON|Expected .{1,40} in JSON|Bad control character)/.test(text)
  if (sse || json) {
    const detail = (sse ? sse[1] : text).trim().slice(0, 200)
    return `The model's reply could not be read: the stream${from} sent malformed data${detail ? ` (${detail})` : ''}.`
  }
  // the SDKs' word for it ("Connection error."), or fetch's own (Mistral's client passes it through)
  if (/^(Connection error|fetch failed)\.?$/i.test(text) && network) {
    const why = describeNetworkFailure(network, provider)
    return `Connection error: ${why}${/[.?!]$/.test(why) ? '' : '.'}`
  }
  if (/^Connection error\.?$/i.test(text)) return `Connection error: the connection to the model${from ? ` (${provider})` : ''} failed before the reply was complete.`
  // fetch's (and http-fetch's) word for a response body cut off mid-stream
  if (/^terminated\.?$/i.test(text)) return `Connection lost: the model server${from ? ` (${provider})` : ''} closed the connection before the reply was complete.`
  const m = /^(\d{3})(?:\s+status code)?[:\s]\s*(.*)$/s.exec(text)
  if (!m) {
    const inner = jsonMessage(text)
    const t = inner ?? text
    const cut = t.length > 600 ? `${t.slice(0, 599)}…` : t
    // the server accepted the request, then sent an error frame in its stream (OpenAI's `{"error":…}`, Anthropic's
    // `event: error`): the SDK passes on only its words, which name no server — say whose they are, as for a status
    if (provider && seen && seen.status >= 200 && seen.status < 300) return `Model request failed (error in the reply stream${from}): ${cut}`
    return cut
  }
  const status = Number(m[1])
  const body = m[2].trim()
  const detail = htmlGist(body) ?? jsonMessage(body) ?? jsonString(body) ?? (body === '(no body)' ? '' : body)
  const short = detail.length > 400 ? `${detail.slice(0, 399)}…` : detail
  return `Model request failed (HTTP ${status}${from})${short ? `: ${short}` : ''}${refusalHint(status, detail, seen, provider, noKeySet)}`
}

/** `"…"`: an error body that is a bare JSON string (the SDK prints `{"error": "…"}`'s string quoted). */
function jsonString(text: string): string | undefined {
  if (!text.startsWith('"')) return undefined
  try {
    const s: unknown = JSON.parse(text)
    return typeof s === 'string' && s ? s : undefined
  } catch {
    return undefined
  }
}

const STORAGE_CODES = new Set(['ENOSPC', 'EROFS', 'EACCES', 'EPERM', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE'])

/** A filesystem failure of the state dir (errno code or our STORAGE_ERROR). */
export function isStorageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && (code === 'STORAGE_ERROR' || STORAGE_CODES.has(code))
}

/** What the user sees when the conversation could not be written: the run stops rather than answer off the record. */
export function describeStorageError(err: unknown): string {
  const e = err as { code?: string; message?: string } | undefined
  const errno = e?.code && e.code !== 'STORAGE_ERROR' ? e.code : /\b(E[A-Z]{2,})\b/.exec(e?.message ?? '')?.[1]
  const why =
    errno === 'ENOSPC'
      ? 'the disk is full'
      : errno === 'EROFS'
        ? 'the state directory is read-only'
        : errno === 'EDQUOT'
          ? 'the disk quota is exceeded'
          : errno === 'EACCES' || errno === 'EPERM'
            ? 'no permission to write the state directory'
            : 'the state directory cannot be written'
  return `Storage error${errno ? ` (${errno})` : ''}: ${why}, so the conversation could not be saved and the run was stopped.`
}

export function classifyError(message: AssistantMessage | undefined, text: string, contextWindow?: number): {
  kind: ErrorKind
  metaKind: string
} {
  if (message && isContextOverflow(message, contextWindow)) return { kind: 'context_length', metaKind: 'context_overflow' }
  const t = text.toLowerCase()
  if (/\b429\b|rate.?limit|too many requests|retry delay/.test(t)) return { kind: 'rate_limit', metaKind: 'rate_limit' }
  if (/context (length|window)|too many tokens|maximum context|prompt is too long/.test(t)) {
    return { kind: 'context_length', metaKind: 'context_overflow' }
  }
  // before the refusal test: "connection refused" is the network, not the model declining
  if (/connection|econnrefused|socket|network|fetch failed/.test(t)) return { kind: 'unknown', metaKind: 'network' }
  if (/refus|content.?filter|safety/.test(t)) return { kind: 'refusal', metaKind: 'refusal' }
  if (/no api key|not configured|\b401\b|\b403\b|unauthori[sz]ed|invalid api key/.test(t)) return { kind: 'unknown', metaKind: 'auth' }
  return { kind: 'unknown', metaKind: 'provider_error' }
}

/** `{"error":{"message":…}}`, `{"message":…}` or `{"error":"…"}` → the message; undefined when not JSON. */
function jsonMessage(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string }
    const inner = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message)
    return typeof inner === 'string' && inner ? inner : undefined
  } catch {
    return undefined
  }
}
