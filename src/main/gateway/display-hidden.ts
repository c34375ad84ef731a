// Which transcript messages OpenClaw v4 (2026.9.6) does not send as `session.message`: the ones its display
// projection drops for a single message (`projectChatDisplayMessage`, src/gateway/chat-display-projection*.ts,
// used by server-session-events.ts `handleTranscriptUpdateBroadcast`). Such a message still changed the
// transcript, so OpenClaw tells its sessions.subscribe subscribers with a `sessions.changed {phase: "message"}`
// instead. Tool calls, tool results, errors and aborted (even empty) replies are shown — only these are not:
// - anything marked `display: false`, and OpenClaw's runtime-context custom messages;
// - a user message whose content is only blank text (no image or other block);
// - an assistant message (not a failed one) whose text — reasoning blocks aside, no other block — is the silent reply (NO_REPLY),
//   as Loopdesk's own rule (`isSilentReply`, the one chat.history hides it by) reads it, or only OpenClaw's
//   control tokens (NO_REPLY repeated, ANNOUNCE_SKIP, REPLY_SKIP: `isControlOnly`);
// - an assistant "commentary" phase message that is not text next to a tool call.
import { isSilentReply } from '../../shared/silent-reply'
import { isControlOnly } from './display-projection'

const REASONING = new Set(['thinking', 'reasoning', 'redacted_thinking'])
const TEXT = new Set(['text', 'input_text', 'output_text'])
const TOOL = new Set(['toolcall', 'tool_call', 'tooluse', 'tool_use', 'toolresult', 'tool_result'])

type Block = { type?: unknown; text?: unknown }
const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? content.filter((b): b is Block => !!b && typeof b === 'object') : [])

export function hiddenFromDisplay(message: unknown): boolean {
  if (!message || typeof message !== 'object') return false
  const m = message as Record<string, unknown>
  if (m.display === false) return true
  const role = typeof m.role === 'string' ? m.role.toLowerCase() : ''
  if (role === 'custom') return m.customType === 'openclaw.runtime-context'
  if (role === 'user') return blankTextOnly(m.content ?? m.text)
  if (role !== 'assistant') return false
  // a failed turn is shown whatever it held: a silent one reads OpenClaw's failure sentence (display-projection.ts)
  if (m.stopReason === 'error') return false
  if (m.phase === 'commentary') return !textBesideToolCall(m.content)
  const text = replyText(m)
  return text !== undefined && (isSilentReply(text) || isControlOnly(text))
}

/** blank text and nothing else (an empty list too); a message without content is not blank */
function blankTextOnly(content: unknown): boolean {
  if (typeof content === 'string') return content.trim() === ''
  if (!Array.isArray(content)) return false
  return content.every((b) => !!b && typeof b === 'object' && (b as Block).type === 'text' && typeof (b as Block).text === 'string' && !((b as Block).text as string).trim())
}

/** the reply's text when it has nothing but text (reasoning aside); undefined when it has other blocks or no text */
function replyText(m: Record<string, unknown>): string | undefined {
  if (typeof m.text === 'string') return m.text
  if (typeof m.content === 'string') return m.content
  if (!Array.isArray(m.content)) return undefined
  const texts: string[] = []
  for (const b of m.content as unknown[]) {
    if (!b || typeof b !== 'object') return undefined
    const { type, text } = b as Block
    if (typeof type === 'string' && REASONING.has(type)) continue
    if (typeof type !== 'string' || !TEXT.has(type) || typeof text !== 'string') return undefined
    texts.push(text)
  }
  return texts.length > 0 ? texts.join('\n') : undefined
}

function textBesideToolCall(content: unknown): boolean {
  const blocks = blocksOf(content)
  const tool = blocks.some((b) => typeof b.type === 'string' && TOOL.has(b.type.toLowerCase()))
  const text = blocks.some((b) => typeof b.type === 'string' && TEXT.has(b.type) && typeof b.text === 'string' && b.text.trim() !== '')
  return tool && text
}
