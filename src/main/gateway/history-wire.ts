// chat.history replies per protocol version. The v4 additions (deltaCursor, pendingInputs, input receipts) go to
// v4 connections; a v3 client that sends none of the v4 params gets the reply it always got. One that does send
// them (cursor, messageId, pendingBefore, …) asked for v4 behaviour and gets it. A v4 delta replays each message
// as v4's session.message carried it: OpenClaw's display copy (display-projection.ts), and leaves out what v4
// sent no session.message for (display-hidden.ts), as OpenClaw 2026.9's chat-history-delta.ts does; one that
// meets a failed turn still pending recovery answers `reset`, as OpenClaw's does. A request that says
// `wholeMessages` (the window, which rebuilds long replies from it) gets every stored message. v4 pages and
// windows are Loopdesk's rows (src/shared/history-row.ts) in OpenClaw's display copy too — texts capped at
// 8,000 characters, a failed turn's sentence instead of the raw provider error, … — unless the request says
// `wholeMessages` (the window's pages, the CLI's export) or `maxChars` (the runtime's cut, then only the
// failed turn's sentence).
import type { ChatHistoryResult } from '../../shared/methods'
import { hiddenFromDisplay } from './display-hidden'
import { pendingAssistantError, projectDisplayMessage, projectFailedTurn } from './display-projection'

const V4_PARAMS = ['cursor', 'messageId', 'sessionId', 'pendingBefore', 'inputRunIds'] as const

export function historyResultFor(result: ChatHistoryResult, params: unknown, protocol: number): ChatHistoryResult {
  const p = (params ?? {}) as Record<string, unknown>
  if (protocol >= 4 && 'kind' in result && result.kind === 'delta' && p.wholeMessages !== true) {
    if (result.messages.some((m) => pendingAssistantError(m.message))) return { kind: 'reset' }
    const shown = result.messages.filter((m) => !hiddenFromDisplay(m.message))
    return { ...result, messages: shown.map((m) => ({ ...m, message: projectDisplayMessage(m.message) })) }
  }
  if (protocol >= 4 && !('kind' in result) && p.wholeMessages !== true) {
    // without maxChars OpenClaw caps each text at its 8,000-character default: the whole display copy; with it
    // the runtime cut the rows already, and only a failed turn's sentence is left to apply
    if (p.maxChars === undefined) return { ...result, messages: result.messages.map((m) => projectDisplayMessage(m)) }
    if (result.messages.some((m) => m.role === 'assistant' && m.stopReason === 'error')) return { ...result, messages: result.messages.map(projectFailedTurn) }
  }
  if (protocol >= 4 || 'kind' in result) return result
  if (V4_PARAMS.some((k) => p[k] !== undefined)) return result
  const { deltaCursor: _cursor, pendingInputs: _pending, inputReceipts: _receipts, inputConsumptions: _consumed, ...v3 } = result
  return v3 as ChatHistoryResult
}
