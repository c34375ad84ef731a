// The coalesced turn of the queue's `collect` mode: a title, an optional overflow notice, then one
// "Queued #n" section per message. The runtime builds it (runtime/queue); the renderer splits it back
// into the queued messages when it reads history — one definition, so the two cannot drift apart.

export const COLLECT_TITLE = '[Queued messages while agent was busy]'

const section = (n: number) => `---\nQueued #${n}\n`

/** Coalesces several queued messages into one turn ("Queued #n" sections, oldest first). */
export function buildCollectPrompt(texts: string[], overflow?: string): string {
  const parts = [COLLECT_TITLE]
  if (overflow) parts.push(overflow)
  texts.forEach((t, i) => parts.push(section(i + 1) + t))
  return parts.join('\n\n')
}

/** The queued messages of a collect prompt, oldest first (undefined when `text` is not one). */
export function collectedTexts(text: string): string[] | undefined {
  if (!text.startsWith(COLLECT_TITLE + '\n\n')) return undefined
  const out: string[] = []
  // The first section follows the title (or the overflow notice); each next one a blank line.
  let at = text.indexOf('\n\n' + section(1), COLLECT_TITLE.length)
  if (at < 0) return undefined
  for (let n = 1; at >= 0; n++) {
    const start = at + 2 + section(n).length
    const next = text.indexOf('\n\n' + section(n + 1), start)
    out.push(next < 0 ? text.slice(start) : text.slice(start, next))
    at = next
  }
  return out
}
