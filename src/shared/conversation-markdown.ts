// A conversation as Markdown, for keeping or sharing it outside Loopdesk (`loopdesk sessions export`, the
// window's Export): what was said, with each tool call as one line and its result quoted briefly. Thinking
// is left out unless asked for; images and attachments are named, not embedded.
import type { ChatHistoryPage, ParamsOf } from './methods'
import { argsSummary, notRunFromText, oneLine, resultText } from './tool-display'

/** The chat.history params of each page an export reads: the most messages a page holds, each whole. */
export type ExportPageParams = Pick<ParamsOf<'chat.history'>, 'limit' | 'offset' | 'wholeMessages'>

/**
 * Every message of a session, oldest first: chat.history paged backwards from the newest, 1,000 messages a
 * page with `wholeMessages` (no message replaced by the over-128-KiB placeholder). `page` undefined = give up.
 * The session may be written meanwhile (a run going on): `offset` counts back from the newest message, so what
 * was appended between two pages shifts the older page onto messages already read — those are left out by
 * their row id. A reset between pages (another transcript) starts the reading over, a few times at most (then
 * undefined: part of a conversation is not exported as the whole).
 */
export async function wholeConversation(page: (params: ExportPageParams) => Promise<ChatHistoryPage | undefined>): Promise<ChatHistoryPage[] | undefined> {
  for (let attempt = 1; ; attempt++) {
    const pages: ChatHistoryPage[] = []
    const seen = new Set<string>()
    let switched = false
    for (let offset = 0; ; ) {
      const p = await page({ limit: 1000, offset, wholeMessages: true })
      if (!p) return undefined
      if (pages.length && p.sessionId !== pages[0].sessionId) {
        switched = true
        break
      }
      const fresh = p.messages.filter((m) => !m.__openclaw?.id || !seen.has(m.__openclaw.id))
      for (const m of fresh) if (m.__openclaw?.id) seen.add(m.__openclaw.id)
      pages.unshift(fresh.length === p.messages.length ? p : { ...p, messages: fresh })
      if (!p.hasMore || p.nextOffset === undefined || p.nextOffset <= offset) break
      offset = p.nextOffset
    }
    if (!switched) return pages
    // reset faster than it is read: what was read is only part of a conversation, never exported as the whole
    if (attempt >= 3) return undefined
  }
}

export interface MarkdownMessage {
  role: string
  content?: unknown
  timestamp?: number
  model?: string
  toolName?: string
  isError?: boolean
  errorMessage?: string
  stopReason?: string
}

export interface MarkdownOptions {
  title: string
  sessionKey: string
  /** when the export was made (ms) */
  now: number
  includeThinking?: boolean
}

/** characters of a tool's result quoted under its call */
const RESULT_CHARS = 300

const when = (ts: number | undefined) => (typeof ts === 'number' && ts > 0 ? new Date(ts).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : undefined)

function blocks(content: unknown): Array<Record<string, unknown>> {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? content.filter((b): b is Record<string, unknown> => !!b && typeof b === 'object') : []
}

/** A backtick fence longer than any run of backticks inside the text. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  return '`'.repeat(longest + 1)
}

export function conversationMarkdown(messages: readonly MarkdownMessage[], o: MarkdownOptions): string {
  const out: string[] = [`# ${oneLine(o.title, 200)}`, '', `Session \`${o.sessionKey}\` · ${messages.length} messages · exported ${when(o.now)}`, '']
  for (const m of messages) {
    if (m.role === 'user' || m.role === 'assistant') {
      const parts: string[] = []
      for (const b of blocks(m.content)) {
        if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) parts.push(b.text.trim())
        else if (b.type === 'thinking' && o.includeThinking && typeof b.thinking === 'string' && b.thinking.trim()) {
          parts.push(b.thinking.trim().split('\n').map((l) => `> ${l}`).join('\n'))
        } else if (b.type === 'toolCall') parts.push(`**Tool** \`${String(b.name ?? 'tool')}\`${argsSummary(b.arguments) ? ` — ${argsSummary(b.arguments)}` : ''}`)
        else if (b.type === 'image') parts.push('*[image]*')
      }
      if (m.role === 'assistant' && m.stopReason === 'error' && m.errorMessage) parts.push(`*The reply failed: ${oneLine(m.errorMessage, 300)}*`)
      if (!parts.length) continue
      const who = m.role === 'user' ? 'You' : `Assistant${m.model ? ` (${m.model})` : ''}`
      const at = when(m.timestamp)
      out.push(`## ${who}${at ? ` — ${at}` : ''}`, '', parts.join('\n\n'), '')
    } else if (m.role === 'toolResult') {
      const parts = blocks(m.content)
      const text = (parts.length ? resultText({ content: parts }) : '').trim()
      const shown = text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}…` : text
      const tool = `\`${m.toolName ?? 'tool'}\``
      const notRun = m.isError ? notRunFromText(text) : undefined
      const label = !m.isError
        ? `result of ${tool}`
        : notRun === 'denied'
          ? `${tool} denied (not run)`
          : notRun === 'approval-timeout'
            ? `${tool} not run (approval timed out)`
            : notRun === 'stopped'
              ? `${tool} stopped`
              : `${tool} failed`
      if (!shown) {
        out.push(`*${label}: (no output)*`, '')
        continue
      }
      const f = fence(shown)
      out.push(`*${label}:*`, '', `${f}text`, shown, f, '')
    }
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n'
}
