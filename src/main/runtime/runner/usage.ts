// Usage/cost summed over every assistant message of a run (pi reports it per message only).
import type { Usage } from '@earendil-works/pi-ai'
import type { UsageTotals } from '../../../shared/events'

export const emptyUsage = (): UsageTotals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 })

export function addUsage(total: UsageTotals, u: Partial<Usage> | undefined): void {
  if (!u) return
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
  total.input += n(u.input)
  total.output += n(u.output)
  total.cacheRead += n(u.cacheRead)
  total.cacheWrite += n(u.cacheWrite)
  total.totalTokens += n(u.totalTokens) || n(u.input) + n(u.output) + n(u.cacheRead) + n(u.cacheWrite)
  total.costUsd += n(u.cost?.total)
}
