// What a run's end says about its reply, as OpenClaw 2026.9 reports it (`terminalReply` on lifecycle end and
// in agent.wait results, `buildAgentRunTerminalReplySnapshot`): the model chose silence (NO_REPLY), wrote
// nothing, or wrote this text — trimmed and cut to 4,096 characters ("…" after the first 4,095), so a caller
// that waited on a run can read its answer without fetching the transcript.
import type { TerminalReply } from '../../../shared/methods'

export const TERMINAL_REPLY_MAX_CHARS = 4096

export function terminalReplyOf(reply: { silent?: boolean; text?: string }): TerminalReply {
  if (reply.silent) return { disposition: 'silent' }
  let text = (reply.text ?? '').trim()
  if (!text) return { disposition: 'empty' }
  if (text.length > TERMINAL_REPLY_MAX_CHARS) {
    let end = TERMINAL_REPLY_MAX_CHARS - 1
    // never split a surrogate pair
    const c = text.charCodeAt(end - 1)
    if (c >= 0xd800 && c <= 0xdbff) end -= 1
    text = `${text.slice(0, end).trimEnd()}…`
  }
  return { disposition: 'visible', text }
}

/** a lifecycle event's terminalReply when well-formed */
export function readTerminalReply(value: unknown): TerminalReply | undefined {
  if (!value || typeof value !== 'object') return undefined
  const v = value as { disposition?: unknown; text?: unknown }
  if (v.disposition === 'silent' || v.disposition === 'empty') return { disposition: v.disposition }
  if (v.disposition === 'visible' && typeof v.text === 'string' && v.text) return { disposition: 'visible', text: v.text }
  return undefined
}
