// What a search reads of a tool call, and how matches are counted in a text: the window's conversation marks
// and counts find matches with these at first paint. Apart from message-search.ts, whose message walk and
// snippets only the runtime and the renderer's FakeBridge (a lazy chunk) use: a module shared with a lazy
// chunk is bundled whole into the entry (test/renderer-bundle.test.ts).

/** what is searched of one message at most: a huge tool output or argument is searched by its start only */
export const SEARCH_CHARS_PER_MESSAGE = 50_000

/** The values of a tool call's arguments (strings, numbers, booleans; nested), space-separated, up to `max` chars. */
function argumentText(value: unknown, max: number): string {
  const out: string[] = []
  let size = 0
  const walk = (v: unknown, depth: number) => {
    if (size >= max || depth > 20) return
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      const s = String(v).slice(0, max - size)
      out.push(s)
      size += s.length + 1
    } else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1)
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1)
  }
  walk(value, 0)
  return out.join(' ')
}

/** What a search reads of a tool call: "name: argument values" (the window's tool card counts matches in it). */
export function toolCallSearchText(name: string, args: unknown, max = SEARCH_CHARS_PER_MESSAGE): string {
  return `${name}: ${argumentText(args, max)}`
}

/** Non-overlapping occurrences of `needle` in `text` (both lowercase already): the renderer marks them the same way. */
export function occurrencesIn(text: string, needle: string): number {
  if (!needle) return 0
  let n = 0
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++
  return n
}
