// The text OpenClaw v4 (2026.9.6) shows for a failed assistant turn instead of the provider's raw error
// (`getAssistantErrorFallbackText` / `projectEmptyAssistantErrorMessages` in its chat-display-projection.core):
// v4 clients never get `errorMessage`, `errorBody`, `errorCode`, `errorType` or `diagnostics`, only a sentence
// built from classified facts — an HTTP status, a failure class, a bounded limit — so provider-controlled text
// (which may echo a prompt, a key or a URL) does not reach them. A reply that had shown something keeps it,
// with that sentence before its text when the failure could be classified.
// OpenClaw's classifier is large (per-provider tables); this reads the same facts for the messages Loopdesk's
// runner writes (pi-ai's errors: "429 …", "HTTP 401: …", JSON bodies, Node's network codes) and falls back, as
// OpenClaw does, to "The agent run failed before producing a reply." for what it cannot classify.
type Rec = Record<string, unknown>

/** pi-ai's placeholder for a stream that failed before any content */
export const STREAM_ERROR_FALLBACK_TEXT = '[assistant turn failed before producing content]'
export const GENERIC_FAILURE_COPY = 'The agent run failed before producing a reply.'
const CONTEXT_OVERFLOW_COPY = 'Context overflow: this conversation is too large for the model. Try /compact, use /new to start a fresh session, or retry the command with a tighter output limit.'
const TRANSCRIPT_REJECTED_COPY = 'LLM request failed: the Gateway rejected a session transcript entry. Compact or reset this session and try again.'

type Reason = 'auth' | 'auth_permanent' | 'format' | 'rate_limit' | 'overloaded' | 'billing' | 'server_error' | 'timeout' | 'context_overflow' | 'model_not_found'
const REASON_TEXT: Record<Exclude<Reason, 'context_overflow'>, string> = {
  auth: 'authentication failed',
  auth_permanent: 'authentication was rejected',
  format: 'request format rejected',
  rate_limit: 'rate limited',
  overloaded: 'provider overloaded',
  billing: 'provider billing issue',
  server_error: 'provider internal error',
  timeout: 'request timed out',
  model_not_found: 'model not found',
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

/** an HTTP status the error states at its start ("429 …", "HTTP 401: …", "Foo API error (503): …", "status code 500") */
export function errorHttpStatus(raw: string): number | undefined {
  const s = raw.trim().replace(/^error\s*[:,]\s*/i, '')
  const m =
    /^(?:http\s*)?(\d{3})(?:\s*:\s*|\s+|$)/i.exec(s) ??
    /^(?:[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}\s+)?api\s*error\s*\((\d{3})\)/i.exec(s) ??
    /^(?:status code|unexpected status|http status)\s*[:=]?\s*(\d{3})\b/i.exec(s)
  const code = m ? Number(m[1]) : NaN
  return Number.isInteger(code) && code >= 100 && code <= 599 ? code : undefined
}

/** the `{error: {type, code, message}}` a provider answered with, found after an optional status prefix */
function errorPayload(raw: string): { type?: string; code?: string; message?: string } | undefined {
  const i = raw.indexOf('{')
  if (i < 0 || !raw.trimEnd().endsWith('}')) return undefined
  try {
    const parsed = JSON.parse(raw.slice(i).trim()) as Rec
    const e = parsed.error && typeof parsed.error === 'object' ? (parsed.error as Rec) : parsed
    const code = typeof e.code === 'number' ? String(e.code) : str(e.code)
    return { type: str(e.type), code, message: str(e.message) }
  } catch {
    return undefined
  }
}

const CONTEXT_OVERFLOW = /context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long|too many tokens|exceeds? the (?:available )?context|context_overflow|input is too long/i

function reasonFromText(raw: string): Reason | undefined {
  const s = raw.toLowerCase()
  if (CONTEXT_OVERFLOW.test(raw)) return 'context_overflow'
  if (/insufficient[_ ]quota|billing|credit balance|payment required|exceeded your current quota/.test(s)) return 'billing'
  if (/rate[_ ]limit|too many requests|resource[_ ]exhausted/.test(s)) return 'rate_limit'
  if (/overloaded/.test(s)) return 'overloaded'
  if (/invalid[_ ]api[_ ]key|incorrect api key|unauthorized|authentication|permission denied|invalid x-api-key/.test(s)) return 'auth'
  if (/model[_ ]not[_ ]found|the model .* does not exist|unknown model/.test(s)) return 'model_not_found'
  if (/timed out|timeout|etimedout/.test(s)) return 'timeout'
  if (/internal server error|server_error|service unavailable|bad gateway/.test(s)) return 'server_error'
  return undefined
}

function reasonFromStatus(status: number, textReason: Reason | undefined): Reason | undefined {
  if (status === 402) return 'billing'
  if (status === 429) return textReason === 'billing' ? 'billing' : 'rate_limit'
  if (status === 401 || status === 403) return textReason === 'billing' ? 'billing' : 'auth'
  if (status === 408 || status === 410) return 'timeout'
  if (textReason === 'context_overflow') return textReason
  if (status === 404) return textReason === 'billing' || textReason === 'auth' ? textReason : 'model_not_found'
  if (status === 529) return 'overloaded'
  if (status === 499 || (status >= 500 && status < 600)) {
    if (textReason === 'overloaded' || textReason === 'server_error') return textReason
    return status === 499 || status === 504 || status === 522 || status === 524 ? 'timeout' : 'server_error'
  }
  if (status === 400 || status === 422) return textReason && textReason !== 'server_error' ? textReason : 'format'
  return textReason
}

/** OpenClaw's sentence for classified facts (no provider/model target: the transcript message names neither) */
function classifiedCopy(reason: Reason | undefined, status: number | undefined): string | undefined {
  if (reason === 'context_overflow') return CONTEXT_OVERFLOW_COPY
  const text = reason ? REASON_TEXT[reason] : undefined
  const statusText = status !== undefined ? `HTTP ${status}` : undefined
  if (!text && !statusText) return undefined
  const summary = `⚠️ LLM request failed (${[text, statusText].filter(Boolean).join(', ')}).`
  if (reason === 'overloaded' || reason === 'server_error' || reason === 'timeout' || reason === 'rate_limit') return `${summary} This is usually temporary — try again shortly.`
  if (reason === 'auth' || reason === 'auth_permanent') return `${summary} Re-authenticate the provider and try again.`
  if (reason === 'billing') return `${summary} Check provider billing and try again.`
  return summary
}

/** a request the provider refused as malformed, when a bounded limit says why */
function formatCopy(raw: string): string | undefined {
  const status = errorHttpStatus(raw)
  const payload = errorPayload(raw)
  if (!payload?.type?.toLowerCase().includes('invalid_request') && status !== 400 && status !== 422) return undefined
  const text = (payload?.message ?? raw.replace(/^(?:http\s*)?\d{3}(?:\s*:\s*|\s+)/i, '')).trim()
  if (/session transcript|transcript entry/i.test(text) && /invalid|rejected|validation/i.test(text)) return TRANSCRIPT_REJECTED_COPY
  const cache = /^A maximum of (\d{1,6}) blocks with cache_control may be provided\. Found (\d{1,6})\.$/i.exec(text)
  if (cache) return `LLM request rejected: provider allows at most ${cache[1]} cache_control blocks; the request contained ${cache[2]}.`
  const limit = text.length <= 300 ? /^['"]?max_(?:tokens|output_tokens|completion_tokens|new_tokens)['"]?\s*(?:[:=]\s*)?\(?(\d[\d,]*)\)?\s+exceeds?\b.{0,120}?\b(?:maximum|max|limit)\b(?:\s+(?:output\s+)?tokens?)?(?:\s+(?:is|of)|\s*[:=])?\s*\(?(\d[\d,]*)\)?(?:\D|$)/i.exec(text) : null
  if (limit) return `LLM request rejected: configured maxTokens is ${limit[1]}, above the provider maximum of ${limit[2]}. Lower maxTokens and try again.`
  return undefined
}

function transportCopy(raw: string): string | undefined {
  const s = raw.toLowerCase()
  if (/\beconnrefused\b/i.test(raw) || s.includes('connection refused') || s.includes('actively refused')) return 'LLM request failed: connection refused by the provider endpoint.'
  if (/\beconnreset\b|\beconnaborted\b|\benetreset\b|\bepipe\b/i.test(raw) || s.includes('socket hang up') || s.includes('connection reset') || s.includes('connection aborted')) return 'LLM request failed: network connection was interrupted.'
  if (/\benotfound\b|\beai_again\b/i.test(raw) || s.includes('getaddrinfo') || s.includes('no such host') || s.includes('dns')) return 'LLM request failed: DNS lookup for the provider endpoint failed.'
  if (/\benetunreach\b|\behostunreach\b|\behostdown\b/i.test(raw) || s.includes('network is unreachable') || s.includes('host is unreachable')) return 'LLM request failed: the provider endpoint is unreachable from this host.'
  if (s.includes('fetch failed') || s.includes('connection error') || s.includes('network request failed')) return 'LLM request failed: network connection error.'
  return undefined
}

/** OpenClaw's `renderRecordedAssistantFailureCopy`: a sentence from the stored error's facts, or undefined */
export function recordedFailureCopy(message: Rec): string | undefined {
  if (message.errorCode === 'incomplete_tool_call') return '⚠️ The provider returned an unfinished tool call. Earlier actions may have completed; verify their results before continuing.'
  for (const raw of [message.errorMessage, message.errorBody]) {
    const copy = typeof raw === 'string' ? formatCopy(raw) : undefined
    if (copy) return copy
  }
  const raw = (str(message.errorMessage) ?? '').trim()
  const payload = errorPayload(raw)
  const status = errorHttpStatus(raw)
  const overflow = [message.errorCode, message.errorType, payload?.code, payload?.type].some((v) => typeof v === 'string' && v.toLowerCase() === 'context_overflow')
  const textReason = overflow ? 'context_overflow' : reasonFromText([raw, payload?.code, payload?.type].filter(Boolean).join(' '))
  const reason = status !== undefined ? reasonFromStatus(status, textReason) : textReason
  if (reason === 'context_overflow') return CONTEXT_OVERFLOW_COPY
  const copy = classifiedCopy(reason, status)
  if (status !== undefined || (reason && reason !== 'timeout')) return copy
  return transportCopy([raw, str(message.errorCode)].filter(Boolean).join(' ')) ?? copy
}

/** OpenClaw's `formatProviderRefusalText`: a provider_refusal diagnostic, named by its category */
function refusalCopy(message: Rec): string | undefined {
  const refusal = Array.isArray(message.diagnostics) ? message.diagnostics.find((d) => !!d && typeof d === 'object' && (d as Rec).type === 'provider_refusal') : undefined
  if (!refusal) return undefined
  const details = (refusal as Rec).details
  const category = details && typeof details === 'object' ? (details as Rec).category : undefined
  const safe = typeof category === 'string' && /^[a-z0-9_-]{1,64}$/i.test(category) ? category : undefined
  if (safe === 'misalignment') return 'Chat stopped as a precaution. Review the findings in chat before continuing.'
  return `The provider refused this request${safe ? ` (category: ${safe})` : ''}. Revise the request and try again.`
}

/** the sentence a v4 client sees for a failed turn */
export function assistantFailureCopy(message: Rec): string {
  return refusalCopy(message) ?? recordedFailureCopy(message) ?? GENERIC_FAILURE_COPY
}
