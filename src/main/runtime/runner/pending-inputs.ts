// chat.history's input state (OpenClaw v4): `pendingInputs` — chat messages accepted while the session was busy
// and still waiting in its queue, paged backwards with `pendingBefore` — and `inputReceipts` for the runIds a
// client asks about: still pending, or consumed by the transcript entry that took the message in.
import type { QueueItem } from '../../../shared/events'
import type { ChatInputReceipt, ChatPendingInputs } from '../../../shared/methods'
import type { TranscriptEntry } from '../contracts'
import { textOf } from '../../../shared/history-row'

/** items per pendingInputs page (OpenClaw's bound) */
export const PENDING_INPUTS_PAGE = 20
const MAX_RUN_ID = 256

/**
 * Waiting items, oldest first, numbered 1..total: the newest page of those numbered below `before` (all when
 * absent). `nextBefore` asks for the page before it.
 */
export function pendingInputsPage(waiting: readonly QueueItem[], before?: number): ChatPendingInputs {
  const queued = waiting.filter((i) => i.status === 'queued').sort((a, b) => a.enqueuedAt - b.enqueuedAt)
  const total = queued.length
  const end = Math.min(before ?? total + 1, total + 1) - 1
  const start = Math.max(0, end - PENDING_INPUTS_PAGE)
  const items = queued.slice(start, end).map((i) => ({
    id: i.id,
    ...(i.runId && i.runId.length <= MAX_RUN_ID ? { runId: i.runId } : {}),
    // what the transcript will hold once a turn takes it
    message: { role: 'user', content: [{ type: 'text', text: i.text }], timestamp: i.enqueuedAt },
    acceptedAt: i.enqueuedAt,
    state: 'queued' as const,
  }))
  return start > 0 ? { items, total, nextBefore: start + 1 } : { items, total }
}

export interface InputState {
  /** the current transcript */
  entries: readonly TranscriptEntry[]
  /** the queue item of the message accepted as runId, if the session's queue still remembers it */
  itemFor(runId: string): QueueItem | undefined
  /** a run of the session is waiting in its lane or running */
  isTracked(runId: string): boolean
}

/**
 * Per asked runId, in the asked order: `consumed` once the user message that carries it is in the transcript
 * (its own run's, the collected batch's, or the one it was steered into), `pending` while it waits for that;
 * nothing for runIds the session does not know (never accepted, removed or dropped, or long forgotten).
 */
export function inputReceipts(runIds: readonly string[], s: InputState): ChatInputReceipt[] {
  const out: ChatInputReceipt[] = []
  for (const runId of runIds) {
    const item = s.itemFor(runId)
    const carrier = item && item.status !== 'queued' && item.runId ? item.runId : runId
    const users = s.entries.filter(
      (e): e is Extract<TranscriptEntry, { type: 'message' }> => e.type === 'message' && e.runId === carrier && e.message.role === 'user',
    )
    // a steered message is one of its run's later user messages: the one with its text
    const hit = item?.status === 'steered' ? users.find((e) => textOf(e.message.content).trim() === item.text.trim()) : users[0]
    if (hit) out.push({ runId, state: 'consumed', consumedByEventId: hit.id })
    else if (item?.status === 'queued' || s.isTracked(carrier)) out.push({ runId, state: 'pending' })
  }
  return out
}
