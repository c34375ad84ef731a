// Prompt text produced by the queue: the coalesced `collect` turn (its format lives in src/shared, the
// renderer splits it back) and the overflow notice that tells the model which messages were dropped
// because the queue hit its cap.

export { COLLECT_TITLE, buildCollectPrompt } from '../../../shared/collect-prompt'
export const SUMMARY_MAX_CHARS = 160

/** One line, at most 160 chars, for the overflow notice. */
export function summarizeLine(text: string, max = SUMMARY_MAX_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line.length <= max) return line
  return line.slice(0, max - 1).trimEnd() + '…'
}

export function buildOverflowNotice(dropped: number, summaries: string[]): string {
  const head = `[Queue overflow] Dropped ${dropped} message${dropped === 1 ? '' : 's'} due to cap.`
  if (summaries.length === 0) return head
  return `${head}\nSummary:\n${summaries.map((s) => `- ${s}`).join('\n')}`
}

/** A single message, with the overflow notice (if any) in front of it. */
export function withOverflow(text: string, overflow?: string): string {
  return overflow ? `${overflow}\n\n${text}` : text
}
