// Messaging-tool duplicate detection: a reply that repeats (or is contained in / contains) text the
// `message` tool already delivered is not sent again.
export const DEDUPE_MIN_CHARS = 10

/** Lowercase, emoji and variation selectors removed, whitespace collapsed. */
export function normalizeForDedupe(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{Extended_Pictographic}\u{FE0F}\u{200D}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
}

export function isDuplicateOfSent(text: string, sent: readonly string[]): boolean {
  const a = normalizeForDedupe(text)
  if (!a) return false
  for (const s of sent) {
    const b = normalizeForDedupe(s)
    if (!b) continue
    if (a === b) return true
    if (a.length >= DEDUPE_MIN_CHARS && b.length >= DEDUPE_MIN_CHARS && (a.includes(b) || b.includes(a))) return true
  }
  return false
}
