// Recognizing "the prompt does not fit the model's context" errors, which trigger one compaction + retry.
// pi-ai knows the wording of the major providers; a few generic forms cover local/proxy servers.
import { isContextOverflow } from '@earendil-works/pi-ai'

const EXTRA_PATTERNS = [
  /context[ _-]?(?:length|window|size)[^.]*?(?:exceed|too (?:long|large)|limit)/i,
  /exceed(?:s|ed)?[^.]*?(?:context|token)[ _-]?(?:length|window|limit)/i,
  /maximum context length/i,
  /prompt[^.]*?too (?:long|large)/i,
]
// Rate limits mention tokens too ("tokens per minute"); they are not overflows.
const NOT_OVERFLOW = [/rate[ _-]?limit/i, /too many requests/i, /per (?:minute|min|second|day)/i, /\bquota\b/i]

export function isContextOverflowError(errorMessage: string | undefined | null, provider = ''): boolean {
  if (!errorMessage) return false
  if (NOT_OVERFLOW.some((p) => p.test(errorMessage))) return false
  const asMessage = {
    role: 'assistant',
    stopReason: 'error',
    errorMessage,
    provider,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    content: [],
  }
  if (isContextOverflow(asMessage as unknown as Parameters<typeof isContextOverflow>[0])) return true
  return EXTRA_PATTERNS.some((p) => p.test(errorMessage))
}
