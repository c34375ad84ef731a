// The silent-reply token: a final text of exactly NO_REPLY (or its JSON envelope) means "say nothing". Shared:
// the runtime holds it back while it streams, and history (history-row.ts) hides it as the stream did.
export const SILENT_REPLY_TOKEN = 'NO_REPLY'

/**
 * True when the whole text is the token (case-insensitive, surrounding whitespace ignored), or the JSON
 * envelope form `{"action":"NO_REPLY"}` some models emit.
 */
export function isSilentReply(text: string): boolean {
  if (typeof text !== 'string') return false
  const t = text.trim()
  if (t.toUpperCase() === SILENT_REPLY_TOKEN) return true
  if (t.startsWith('{') && t.endsWith('}') && t.length < 200) {
    try {
      const v = JSON.parse(t) as unknown
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const keys = Object.keys(v)
        const action = (v as Record<string, unknown>).action
        return keys.length === 1 && typeof action === 'string' && action.trim().toUpperCase() === SILENT_REPLY_TOKEN
      }
    } catch {
      return false
    }
  }
  return false
}

/**
 * True while a streamed text could still be the token: the start of NO_REPLY or all of it (case-insensitive,
 * surrounding whitespace ignored) — "N", "NO", "NO_RE", "NO_REPLY" — or of its JSON envelope form. Streaming holds such text back, so a silent
 * reply never flashes its first letters.
 */
export function isSilentPrefix(text: string): boolean {
  const t = text.trim().toUpperCase()
  if (!t) return false
  if (SILENT_REPLY_TOKEN.startsWith(t)) return true
  // the JSON envelope as far as it has come ('{"act…'), whitespace between its tokens ignored; a JSON reply
  // that is something else goes out as soon as it differs
  return t[0] === '{' && t.length < 200 && SILENT_JSON_ENVELOPE.startsWith(t.replace(/\s+/g, ''))
}

const SILENT_JSON_ENVELOPE = `{"ACTION":"${SILENT_REPLY_TOKEN}"}`
