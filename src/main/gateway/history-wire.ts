// chat.history replies per protocol version. The v4 additions (deltaCursor, pendingInputs, input receipts) go to
// v4 connections; a v3 client that sends none of the v4 params gets the reply it always got. One that does send
// them (cursor, messageId, pendingBefore, …) asked for v4 behaviour and gets it.
import type { ChatHistoryResult } from '../../shared/methods'

const V4_PARAMS = ['cursor', 'messageId', 'sessionId', 'pendingBefore', 'inputRunIds'] as const

export function historyResultFor(result: ChatHistoryResult, params: unknown, protocol: number): ChatHistoryResult {
  if (protocol >= 4 || 'kind' in result) return result
  const p = (params ?? {}) as Record<string, unknown>
  if (V4_PARAMS.some((k) => p[k] !== undefined)) return result
  const { deltaCursor: _cursor, pendingInputs: _pending, inputReceipts: _receipts, inputConsumptions: _consumed, ...v3 } = result
  return v3 as ChatHistoryResult
}
