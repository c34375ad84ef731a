// The size limit of one user message, shared by the method schemas (chat.send, agent, sessions.send…) and
// the composer, which checks it before sending. No runtime imports: the renderer's first paint loads this.

/** Max size of one user message, in characters as the schema counts them. Larger messages are rejected with INVALID_REQUEST. */
export const MAX_MESSAGE_CHARS = 1_000_000

const between = (c: number, lo: number, hi: number) => c >= lo && c <= hi
/** marks and selectors that join the character before them (the schema's `maxLength` counts them as part of it) */
const joinsPrevious = (c: number) =>
  between(c, 0x0300, 0x036f) || between(c, 0x1ab0, 0x1aff) || between(c, 0x1dc0, 0x1dff) || between(c, 0xfe20, 0xfe2f) || between(c, 0xfe00, 0xfe0f)
const isFlagHalf = (c: number) => between(c, 0x1f1e6, 0x1f1ff)
const width = (c: number) => (c > 0xffff ? 2 : 1)
const ZWJ = 0x200d

/**
 * The length of a message as the method schemas measure it (typebox's `maxLength` counts grapheme
 * clusters: a code point with its combining marks and variation selectors, emoji joined by ZWJ, a flag's two
 * regional indicators). `message-limit.test.ts` checks this against the compiled schema.
 */
export function messageLength(text: string): number {
  let count = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const first = text.codePointAt(i)!
    i += width(first)
    const skipMarks = () => {
      while (i < n) {
        const c = text.codePointAt(i)!
        if (!joinsPrevious(c)) break
        i += width(c)
      }
    }
    skipMarks()
    while (i < n - 1 && text.charCodeAt(i) === ZWJ) {
      i += 1 + width(text.codePointAt(i + 1)!)
      skipMarks()
    }
    if (isFlagHalf(first) && i < n && isFlagHalf(text.codePointAt(i)!)) i += 2
    count++
  }
  return count
}

/** How far over the limit a message is (0 when it fits). Cheap for the usual case: UTF-16 length bounds the count. */
export function messageOverLimit(text: string, max = MAX_MESSAGE_CHARS): number {
  if (text.length <= max) return 0
  return Math.max(0, messageLength(text) - max)
}
