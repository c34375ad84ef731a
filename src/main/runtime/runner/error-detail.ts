// The facts a failed run's chat error carries for OpenClaw v4 clients (`errorDetail`, its ChatErrorDetail):
// which provider and model, the HTTP status the model server answered, and OpenClaw's failover reason read from
// them — bounded, and none of the provider's own text.
import type { ChatErrorDetail, ErrorKind } from '../../../shared/events'

const MAX = 300
const text = (v: string | undefined) => (v && v.trim() ? v.trim().slice(0, MAX) : undefined)

/** OpenClaw's failover reason for an HTTP status (its classifyFailoverClassificationFromHttpStatus, without the message tables) */
function reasonForStatus(status: number): string | undefined {
  if (status === 402) return 'billing'
  if (status === 429) return 'rate_limit'
  if (status === 401 || status === 403) return 'auth'
  if (status === 408 || status === 410) return 'timeout'
  if (status === 404) return 'model_not_found'
  if (status === 529) return 'overloaded'
  if (status === 499 || status === 504 || status === 522 || status === 524) return 'timeout'
  if (status >= 500 && status < 600) return 'server_error'
  if (status === 400 || status === 422) return 'format'
  return undefined
}

const REASON_BY_KIND: Partial<Record<ErrorKind, string>> = { rate_limit: 'rate_limit', timeout: 'timeout', context_length: 'context_overflow' }

export function chatErrorDetail(facts: { provider?: string; model?: string; status?: number; kind?: ErrorKind }): ChatErrorDetail | undefined {
  const status = facts.status !== undefined && Number.isInteger(facts.status) && facts.status >= 400 && facts.status <= 599 ? facts.status : undefined
  // the classified kind first: a 400 that said "context length" is an overflow, not a format error
  const failoverReason = (facts.kind && REASON_BY_KIND[facts.kind]) ?? (status !== undefined ? reasonForStatus(status) : undefined)
  const detail: ChatErrorDetail = {}
  const provider = text(facts.provider)
  const model = text(facts.model)
  if (provider) detail.provider = provider
  if (model) detail.model = model
  if (failoverReason) detail.failoverReason = failoverReason
  if (status !== undefined) detail.httpStatus = status
  return Object.keys(detail).length > 0 ? detail : undefined
}
