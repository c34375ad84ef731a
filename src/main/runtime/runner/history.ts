// Rebuilds the pi conversation from a session transcript. The leading system message is NOT taken from the
// transcript: each run builds the current prompt and tools (runner), so old prompts never leak in. Later
// system messages that carried instructions are kept (their tool declarations are dropped: the run declares
// its own tools). A compaction entry replaces everything before its first kept entry with a summary.
import type { AgentMessage } from '@earendil-works/pi-agent-core'
import type { TranscriptEntry } from '../contracts'
import { promoteThinkTags } from '../../../shared/think-tags'

type MessageEntry = Extract<TranscriptEntry, { type: 'message' }>

export interface RebuiltHistory {
  messages: AgentMessage[]
  /** summary of compacted history, to be placed in the system prompt */
  compactionSummary?: string
  compactionCount: number
  /** tool calls at the end of the transcript that never got a result (the run died mid-tool) */
  orphanToolCalls: Array<{ id: string; name: string; runId?: string }>
  /** run id of the last message entry */
  lastRunId?: string
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((c) => (c && typeof c === 'object' && (c as { type?: string }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : '')).join('')
}

function toAgentMessage(entry: MessageEntry): AgentMessage | undefined {
  const m = entry.message
  if (!m || typeof m.role !== 'string') return undefined
  if (m.role === 'system') {
    if (!textOf(m.content).trim()) return undefined
    const { toolsAdded: _a, toolsRemoved: _r, sections: _s, ...rest } = m as Record<string, unknown>
    return rest as unknown as AgentMessage
  }
  if (m.role === 'assistant') {
    // a reply stored with its <think> tags (before the bridge split them out) goes back as reasoning + reply
    const promoted = promoteThinkTags(m.content)
    return (promoted ? { ...m, content: promoted } : m) as unknown as AgentMessage
  }
  if (m.role === 'user' || m.role === 'toolResult') return m as unknown as AgentMessage
  return undefined // unknown roles (UI-only notes) never reach the model
}

export function rebuildHistory(entries: readonly TranscriptEntry[]): RebuiltHistory {
  let start = 0
  let compactionSummary: string | undefined
  let compactionCount = 0
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type !== 'compaction') continue
    compactionSummary = e.summary
    const kept = entries.findIndex((x) => x.type === 'message' && x.id === e.firstKeptEntryId)
    start = kept >= 0 ? kept : i + 1
    break
  }
  for (const e of entries) if (e.type === 'compaction') compactionCount++

  const messages: AgentMessage[] = []
  let lastRunId: string | undefined
  for (let i = start; i < entries.length; i++) {
    const e = entries[i]
    if (e.type !== 'message') continue
    const m = toAgentMessage(e)
    if (!m) continue
    messages.push(m)
    if (e.runId) lastRunId = e.runId
  }
  // a system message must not become the leading one (that slot is the run's own prompt)
  while (messages.length > 0 && (messages[0] as { role: string }).role === 'system') messages.shift()

  return { messages, compactionSummary, compactionCount, orphanToolCalls: tailOrphans(entries), lastRunId }
}

/** Tool calls after the last user message that have no toolResult (only an interrupted run leaves these). */
export function tailOrphans(entries: readonly TranscriptEntry[]): RebuiltHistory['orphanToolCalls'] {
  const calls: RebuiltHistory['orphanToolCalls'] = []
  const answered = new Set<string>()
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type !== 'message') continue
    const m = e.message as { role: string; content?: unknown; toolCallId?: string; stopReason?: string }
    if (m.role === 'user') break
    if (m.role === 'toolResult' && typeof m.toolCallId === 'string') answered.add(m.toolCallId)
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const c of m.content as Array<{ type?: string; id?: string; name?: string }>) {
        if (c?.type === 'toolCall' && typeof c.id === 'string' && !answered.has(c.id)) {
          calls.unshift({ id: c.id, name: String(c.name ?? 'unknown'), runId: e.runId })
        }
      }
    }
  }
  return calls
}

/** The synthetic result written for a tool call whose run died before it returned. */
export function interruptedToolResult(call: { id: string; name: string }, timestamp = Date.now()) {
  return {
    role: 'toolResult' as const,
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text' as const, text: 'Tool result missing: the run was interrupted before this tool finished.' }],
    isError: true,
    timestamp,
  }
}
