// Final reply payloads of a run (spec §9): reasoning (when on), verbose tool summaries, assistant texts,
// the model's error text; silent and already-sent texts removed; one tool-error fallback when nothing
// else would be shown.
import type { ReplyPayload } from '../../../shared/methods'
import type { BuildPayloads, PayloadInput } from '../contracts'
import { isDuplicateOfSent } from './dedupe'
import { isSilentReply } from './silent'

export const ERROR_DETAIL_MAX_CHARS = 400

/** First non-empty line of an error, at most 400 chars. */
export function errorDetail(error: string): string {
  const line = (error ?? '').split(/\r?\n/).find((l) => l.trim()) ?? ''
  const t = line.trim()
  const chars = [...t]
  return chars.length > ERROR_DETAIL_MAX_CHARS ? chars.slice(0, ERROR_DETAIL_MAX_CHARS - 1).join('') + '…' : t
}

/** "exec (ls /nope)" — the tool name plus its one-line meta. */
export function toolLabel(toolName: string, meta?: string): string {
  const m = meta?.trim()
  return m ? `${toolName} (${m})` : toolName
}

/** Inline summary line for verbose mode (the runner builds one per tool call). */
export function formatToolSummary(toolName: string, meta?: string): string {
  const m = meta?.trim()
  return m ? `🔧 ${toolName}: ${m}` : `🔧 ${toolName}`
}

export function formatToolErrorFallback(err: NonNullable<PayloadInput['lastToolError']>): string {
  const detail = errorDetail(err.error)
  return `⚠️ ${toolLabel(err.toolName, err.meta)} failed${detail ? `: ${detail}` : ''}`
}

const hasText = (t: string | undefined): t is string => typeof t === 'string' && t.trim().length > 0

export const buildPayloads: BuildPayloads = (input: PayloadInput): ReplyPayload[] => {
  const out: ReplyPayload[] = []

  if (input.reasoningMode === 'on') {
    for (const r of input.reasoningTexts) if (hasText(r)) out.push({ text: r, isReasoning: true })
  }
  if (input.verbose === 'on' || input.verbose === 'full') {
    for (const s of input.toolSummaries) if (hasText(s)) out.push({ text: s })
  }
  for (const t of input.assistantTexts) {
    if (!hasText(t) || isSilentReply(t)) continue
    if (isDuplicateOfSent(t, input.messagingSent)) continue
    out.push({ text: t })
  }
  if (hasText(input.errorText)) out.push({ text: input.errorText, isError: true })

  const renderable = out.some((p) => !p.isReasoning && hasText(p.text))
  const messagedVisibly = input.messagingSent.some((s) => hasText(s) && !isSilentReply(s))
  if (!renderable && input.lastToolError && !messagedVisibly) {
    out.push({ text: formatToolErrorFallback(input.lastToolError), isError: true })
  }
  return out
}
