// While pi retries a failed model request (HTTP 408/409/429/5xx; its provider-retry follows the OpenAI and
// Anthropic SDKs' rules), the run would only look slow. The runner's fetch sees each response, so the run tells
// the user what is happening: an agent `error` event {reason:"model_retry", status, attempt, retryAfterMs?}
// for each response that pi will retry. The window shows "Model server busy (HTTP 429) — retrying in N s".

export interface RetryNotice {
  reason: 'model_retry'
  status: number
  /** 1 for the first retry of this model call */
  attempt: number
  /** the wait the server asked for (retry-after), when it gave one */
  retryAfterMs?: number
}

/** Counts one model call's failed responses; says which of them pi will retry. */
export class RetryWatch {
  private attempts = 0

  constructor(private readonly policy: { maxRetries: number; maxRetryDelayMs: number }) {}

  /** a notice when pi will retry after this response, else undefined */
  onResponse(res: Pick<Response, 'status' | 'headers'>): RetryNotice | undefined {
    if (!retryable(res)) return undefined
    if (this.attempts >= this.policy.maxRetries) return undefined
    const after = retryAfterMs(res.headers)
    // pi fails at once when the server asks for a longer wait than the cap
    if (after !== undefined && this.policy.maxRetryDelayMs > 0 && after > this.policy.maxRetryDelayMs) return undefined
    this.attempts++
    return { reason: 'model_retry', status: res.status, attempt: this.attempts, ...(after !== undefined ? { retryAfterMs: Math.round(after) } : {}) }
  }
}

function retryable(res: Pick<Response, 'status' | 'headers'>): boolean {
  const should = res.headers.get('x-should-retry')
  if (should === 'false') return false
  if (should === 'true') return true
  return res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500
}

function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms)) return Math.max(0, ms)
  const raw = headers.get('retry-after')
  if (!raw) return undefined
  const secs = Number.parseFloat(raw)
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000)
  const at = Date.parse(raw)
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined
}
