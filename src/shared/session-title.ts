// A session without a label is named after its first user message (OpenClaw's derivedTitle): one line,
// whitespace collapsed, at most 60 characters. Shared so the runtime's sessions.list, the renderer (which
// names a session at once when its first message is sent) and the FakeBridge agree.

import { TITLE_DROPPED } from './hidden-chars'

export const DERIVED_TITLE_CHARS = 60

/** The user turn a bare `/new` or `/reset` starts the fresh session with: it names nothing. */
export const BARE_RESET_PROMPT = 'A new session was just started. Greet the user in one short sentence.'

/**
 * Characters that show nothing or reorder what follows (`hidden-chars.ts`: bidi controls — an unclosed U+202E
 * would show the title backwards —, zero-width and format characters, tag characters). A derived title drops
 * them; ZWJ/ZWNJ stay (emoji sequences, Persian), but do not count as something to show.
 */
const JOINERS = /[\u200c\u200d]/g

/** an attachment's reference line in a user message (shared/attachments.ts attachmentLine) */
const ATTACHMENT_LINE = /^\[(?:Image|File) attached: (.+?) \([^()]*\)(?: saved at .*)?\]$/

/**
 * The title a first user message gives its session: its text without the attachment reference lines, or,
 * when it is only attachments, the first file's name. Undefined when there is nothing to show (also for the
 * prompt a bare /new sends: the next user message names the session).
 */
export function deriveSessionTitle(text: string): string | undefined {
  if (text.trim() === BARE_RESET_PROMPT) return undefined
  text = text.replace(TITLE_DROPPED, '')
  const files: string[] = []
  const kept: string[] = []
  for (const line of text.split('\n')) {
    const m = ATTACHMENT_LINE.exec(line.trim())
    if (m) files.push(m[1])
    else kept.push(line)
  }
  const visible = (s: string) => s.replace(JOINERS, '').trim() !== ''
  const words = kept.join(' ').replace(/\s+/g, ' ').trim()
  // nothing visible (only invisible characters were sent): no title, so the session's name falls back
  const line = (visible(words) ? words : files[0] || '').trim()
  if (!visible(line)) return undefined
  return line.length > DERIVED_TITLE_CHARS ? `${line.slice(0, DERIVED_TITLE_CHARS - 1)}…` : line
}

/**
 * The title of a first user message as stored (a string or content blocks). Text blocks are taken as
 * separate lines: an attachment reference in a block of its own is still recognized, and the words of two
 * blocks never run together.
 */
export function deriveSessionTitleOf(content: unknown): string | undefined {
  if (typeof content === 'string') return deriveSessionTitle(content)
  if (!Array.isArray(content)) return undefined
  const texts: string[] = []
  for (const c of content) if (c && typeof c === 'object' && (c as { type?: unknown }).type === 'text') texts.push(String((c as { text?: unknown }).text ?? ''))
  return deriveSessionTitle(texts.join('\n'))
}

/** The name a session is shown under (window and CLI): its label, its name, the derived title, else its key's last part. */
export function sessionTitle(row: { label?: string; displayName?: string; derivedTitle?: string; key: string }): string {
  return row.label || row.displayName || row.derivedTitle || (row.key.endsWith(':main') ? 'Main session' : row.key.split(':').pop() || row.key)
}
