// One transcript message as a chat.history row: which messages history shows and which fields a row has.
// The runtime builds its pages with it (runner/chat-history.ts) and the renderer turns the messages of a
// history delta (replayed `session.message` payloads, hidden ones included) into the same rows, so a
// transcript extended by deltas shows exactly what a full refetch would.
import type { HistoryMessage, OpenclawAbort, SessionMessagePayload } from './methods'
import { isSilentReply } from './silent-reply'
import { promoteThinkTags } from './think-tags'

/** The text blocks of a message content, joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((c) => (c && (c as { type?: string }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : '')).join('')
}

/**
 * A final reply: an assistant message that ended normally — not an error, an abort or a turn that called
 * tools. Where a fork with `forkFrom: "last-completed"` ends (the runtime's sessions/fork.ts; the FakeBridge).
 */
export function isCompletedReply(message: { role?: unknown; stopReason?: unknown }): boolean {
  const stop = message.stopReason
  return message.role === 'assistant' && stop !== 'error' && stop !== 'aborted' && stop !== 'toolUse'
}

function hasToolCalls(content: unknown): boolean {
  return Array.isArray(content) && content.some((c) => c && (c as { type?: string }).type === 'toolCall')
}

/**
 * An assistant message whose text the user is not shown: only the silent token (NO_REPLY, or its JSON envelope
 * `{"action":"NO_REPLY"}`: the same rule the stream held it back by), or — marked by the
 * runtime when it was written (runner/bridge.ts `repeatsSent`) — a repeat of what the message tool delivered.
 */
function textHidden(message: { [k: string]: unknown }): boolean {
  return message.repeatsSent === true || isSilentReply(textOf(message.content))
}

const withoutText = (content: unknown): unknown[] =>
  Array.isArray(content) ? content.filter((c) => !(c && (c as { type?: string }).type === 'text')) : []

export interface HistoryRowOptions {
  /**
   * Loopdesk (the window): a reply whose text is hidden and that has nothing else to show is kept as a row without
   * its text and with `silent: true`, so a run that chose to say nothing is told from one that never answered
   */
  silentReplies?: boolean
}

/** Where a message sits in its transcript: entry id, 1-based position among the messages, run, entry time. */
export interface RowIdentity {
  id: string
  seq?: number
  runId?: string
  /** the entry's timestamp (used when the message has none of its own) */
  timestamp: number
}

/**
 * The chat.history row of a transcript message, or undefined when history does not show it: roles other than
 * user / assistant / toolResult / system, system messages without text, and assistant replies whose text is
 * hidden (the silent token NO_REPLY, a repeat of a message-tool send) without tool calls — with tool calls,
 * the row keeps them without the text.
 */
export function historyRow(
  stored: { role?: unknown; [k: string]: unknown },
  at: RowIdentity,
  opts: HistoryRowOptions = {},
): HistoryMessage | undefined {
  // a reply stored before the runtime split <think> tags out of the text (runner/bridge.ts) reads as it would now:
  // its reasoning as thinking blocks, never as reply text
  const promoted = stored.role === 'assistant' ? promoteThinkTags(stored.content) : undefined
  const message = promoted ? { ...stored, content: promoted } : stored
  const role = message.role
  if (role !== 'user' && role !== 'assistant' && role !== 'toolResult' && role !== 'system') return undefined
  if (role === 'system' && !textOf(message.content).trim()) return undefined
  const hidden = role === 'assistant' && textHidden(message)
  if (hidden && !hasToolCalls(message.content) && !opts.silentReplies) return undefined
  const run = at.runId ? { runId: at.runId } : {}
  const row: HistoryMessage = {
    role,
    content: hidden ? withoutText(message.content) : (message.content ?? []),
    timestamp: typeof message.timestamp === 'number' ? message.timestamp : at.timestamp,
    id: at.id,
    __openclaw: { id: at.id, ...(at.seq !== undefined ? { seq: at.seq } : {}), ...run },
  }
  if (at.runId) row.runId = at.runId
  if (role !== 'user' && at.timestamp > row.timestamp) row.completedAt = at.timestamp
  if (role === 'toolResult') {
    if (typeof message.toolCallId === 'string') row.toolCallId = message.toolCallId
    if (typeof message.toolName === 'string') row.toolName = message.toolName
    row.isError = message.isError === true
    // how an exec came to run (tools/exec.ts): a reloaded tool card still says who approved it; nothing else of
    // a tool's details, which can be large
    const approval = (message.details as { approval?: unknown } | undefined)?.approval
    if (typeof approval === 'string') row.details = { approval }
  }
  if (role === 'assistant') {
    if (hidden && !hasToolCalls(message.content)) row.silent = true
    if (typeof message.stopReason === 'string') row.stopReason = message.stopReason
    if (typeof message.errorMessage === 'string') row.errorMessage = message.errorMessage
    if (message.interrupted === true) row.interrupted = true
    const truncated = contextTruncatedOf(message.contextTruncated)
    if (truncated) row.contextTruncated = truncated
    const changed = modelChangedOf(message.modelChanged)
    if (changed) row.modelChanged = changed
    if (message.usage !== undefined) row.usage = message.usage
    if (message.stopReason === 'aborted') {
      row.aborted = true
      row.openclawAbort = abortMarkOf(message.openclawAbort, at.runId)
    }
  }
  return row
}

/** the run's note that Ollama read only part of the prompt (runner/ollama-truncation.ts), when well-formed */
function contextTruncatedOf(stored: unknown): HistoryMessage['contextTruncated'] {
  if (!stored || typeof stored !== 'object') return undefined
  const s = stored as Record<string, unknown>
  if (typeof s.message !== 'string' || !s.message) return undefined
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
  const promptTokens = count(s.promptTokens)
  const estimatedTokens = count(s.estimatedTokens)
  return { message: s.message, ...(promptTokens !== undefined ? { promptTokens } : {}), ...(estimatedTokens !== undefined ? { estimatedTokens } : {}) }
}

/** the run's note that the session moved to another model (runner/model-switch.ts), when well-formed */
function modelChangedOf(stored: unknown): HistoryMessage['modelChanged'] {
  if (!stored || typeof stored !== 'object') return undefined
  const s = stored as Record<string, unknown>
  if (typeof s.message !== 'string' || !s.message || typeof s.from !== 'string' || typeof s.to !== 'string') return undefined
  return { from: s.from, to: s.to, message: s.message }
}

/** the reply's persisted abort mark (runner/bridge.ts), or one for a row written before marks were */
function abortMarkOf(stored: unknown, runId: string | undefined): OpenclawAbort {
  const s = stored && typeof stored === 'object' ? (stored as Partial<OpenclawAbort>) : {}
  const id = typeof s.runId === 'string' ? s.runId : runId
  return { aborted: true, origin: typeof s.origin === 'string' ? s.origin : 'unknown', ...(id ? { runId: id } : {}) }
}

/** A replayed `session.message` payload (a history delta's message) as its chat.history row, if history shows it. */
export function historyRowOfPayload(p: SessionMessagePayload, opts: HistoryRowOptions = {}): HistoryMessage | undefined {
  if (!p || typeof p !== 'object' || !p.message || typeof p.message !== 'object') return undefined
  const id = typeof p.messageId === 'string' && p.messageId ? p.messageId : p.message.__openclaw?.id
  if (typeof id !== 'string' || !id) return undefined
  const runId = typeof p.runId === 'string' ? p.runId : p.message.__openclaw?.runId
  const seq = typeof p.messageSeq === 'number' ? p.messageSeq : p.message.__openclaw?.seq
  return historyRow(p.message, { id, seq, runId, timestamp: typeof p.ts === 'number' ? p.ts : Date.now() }, opts)
}
