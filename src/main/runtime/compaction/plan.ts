// Which messages a compaction summarizes and which it keeps verbatim. Rules:
//  - every system message is kept (the leading one carries the prompt and tools);
//  - the last `keepRecentTurns` turns (a turn starts at a real user message) are kept (with fewer turns,
//    all but the oldest);
//  - a tool call is never separated from its result: a cut that would fall between them moves earlier;
//  - when the history is a single long turn (a tool loop), the cut may fall inside it, keeping the
//    latest assistant step (the assistant message and its tool results).
import type { AnyMessage } from './estimate'

export const SUMMARY_PREFIX = '[Summary of the earlier conversation (older messages were compacted)]'

export interface CompactionPlan<M extends AnyMessage = AnyMessage> {
  /** non-system messages before the cut: replaced by the summary */
  toSummarize: M[]
  /** every system message plus the recent tail, in original order */
  kept: M[]
  /** index (in the input) of the first non-system message kept verbatim; input length when none */
  cutIndex: number
  /** the cut falls inside a turn (single-turn tool loop) */
  splitTurn: boolean
}

/** The synthetic message that stands in for the summarized history. */
export function createSummaryMessage(summary: string, timestamp = Date.now()): AnyMessage & { role: 'user' } {
  return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}\n\n${summary}` }], timestamp }
}

export function isSummaryMessage(m: AnyMessage): boolean {
  if (m.role !== 'user') return false
  const c = m.content
  const text = typeof c === 'string' ? c : Array.isArray(c) ? (c[0] as { text?: unknown } | undefined)?.text : undefined
  return typeof text === 'string' && text.startsWith(SUMMARY_PREFIX)
}

function toolCallIds(m: AnyMessage): string[] {
  if (m.role !== 'assistant' || !Array.isArray(m.content)) return []
  const ids: string[] = []
  for (const b of m.content as Array<{ type?: string; id?: unknown }>) {
    if (b?.type === 'toolCall' && typeof b.id === 'string') ids.push(b.id)
  }
  return ids
}

/**
 * Moves `cut` earlier until no tool call before it has its result at or after it.
 * (A result before its call cannot happen in a well-formed history.)
 */
function respectToolPairs(messages: readonly AnyMessage[], cut: number): number {
  const callIndex = new Map<string, number>()
  messages.forEach((m, i) => {
    for (const id of toolCallIds(m)) callIndex.set(id, i)
  })
  let c = cut
  let moved = true
  while (moved) {
    moved = false
    for (let i = c; i < messages.length; i++) {
      const m = messages[i]
      if (m.role !== 'toolResult' || typeof m.toolCallId !== 'string') continue
      const at = callIndex.get(m.toolCallId)
      if (at !== undefined && at < c) {
        c = at
        moved = true
      }
    }
  }
  return c
}

export function planCompaction<M extends AnyMessage>(
  messages: readonly M[],
  opts: { keepRecentTurns: number; allowSplitTurn?: boolean },
): CompactionPlan<M> {
  const keep = Math.max(1, Math.floor(opts.keepRecentTurns))
  const firstNonSystem = messages.findIndex((m) => m.role !== 'system')
  const empty = (): CompactionPlan<M> => ({ toSummarize: [], kept: [...messages], cutIndex: firstNonSystem < 0 ? messages.length : firstNonSystem, splitTurn: false })
  if (firstNonSystem < 0) return empty()

  // Real user turns (a previous summary is not a turn: it gets folded into the next summary).
  const turnStarts: number[] = []
  messages.forEach((m, i) => {
    if (m.role === 'user' && !isSummaryMessage(m)) turnStarts.push(i)
  })

  let cut = -1
  let splitTurn = false
  // Keep `keep` turns when there are more; with fewer, keep all but the oldest (something must go).
  const k = Math.min(keep, turnStarts.length - 1)
  if (k >= 1) cut = respectToolPairs(messages, turnStarts[turnStarts.length - k])
  if (cut <= firstNonSystem && opts.allowSplitTurn !== false) {
    // Not enough whole turns: cut at the latest assistant step that leaves something to summarize.
    for (let i = messages.length - 1; i > firstNonSystem; i--) {
      if (messages[i].role !== 'assistant') continue
      const c = respectToolPairs(messages, i)
      if (c > firstNonSystem) {
        cut = c
        splitTurn = messages[c].role !== 'user'
        break
      }
    }
  }
  if (cut <= firstNonSystem) return empty()
  // Only system messages before the cut → nothing to summarize.
  const toSummarize = messages.slice(0, cut).filter((m) => m.role !== 'system')
  if (toSummarize.length === 0) return empty()
  const kept = messages.filter((m, i) => m.role === 'system' || i >= cut)
  return { toSummarize, kept, cutIndex: cut, splitTurn }
}

/**
 * The compacted conversation: system messages that preceded the cut, then the summary, then the tail
 * (which keeps any later system messages in place).
 */
export function buildCompactedMessages<M extends AnyMessage>(messages: readonly M[], plan: CompactionPlan<M>, summary: string): M[] {
  const head = messages.slice(0, plan.cutIndex).filter((m) => m.role === 'system')
  const tail = messages.slice(plan.cutIndex)
  return [...head, createSummaryMessage(summary) as unknown as M, ...tail]
}
