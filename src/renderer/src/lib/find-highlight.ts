// Marks the find bar's query inside the matched row with the CSS Custom Highlight API (no DOM changes: the
// rows are React's and markdown-rendered). Where the API is missing (jsdom, older engines) the row's outline
// alone shows the match.

const NAME = 'loopdesk-find'
/** the current occurrence (the find bar's step), marked apart from the others */
const CURRENT = 'loopdesk-find-current'
/** ranges per row at most: a row of thousands of hits (one letter typed) marks the first ones */
const MAX_RANGES = 500

/** The ranges of `query` (case-insensitive) in the text under `root`; a match spanning elements is not found. */
export function matchRanges(root: Node, query: string): Range[] {
  const needle = query.toLowerCase()
  if (!needle) return []
  const doc = root.ownerDocument ?? (root as Document)
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT)
  const out: Range[] = []
  for (let node = walker.nextNode(); node && out.length < MAX_RANGES; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').toLowerCase()
    for (let at = text.indexOf(needle); at >= 0 && out.length < MAX_RANGES; at = text.indexOf(needle, at + needle.length)) {
      const r = doc.createRange()
      r.setStart(node, at)
      r.setEnd(node, at + needle.length)
      out.push(r)
    }
  }
  return out
}

interface HighlightRegistry {
  set(name: string, h: unknown): void
  delete(name: string): void
}
type HighlightCtor = new (...ranges: Range[]) => unknown

function registry(): { highlights: HighlightRegistry; Highlight: HighlightCtor } | undefined {
  const css = (globalThis as { CSS?: { highlights?: HighlightRegistry } }).CSS
  const Highlight = (globalThis as { Highlight?: HighlightCtor }).Highlight
  return css?.highlights && Highlight ? { highlights: css.highlights, Highlight } : undefined
}

/**
 * The occurrence to mark as current among a row's ranges: the `nth` (counted as the runtime counts it), or the
 * row's last when the rendered text holds fewer (markdown drops syntax the raw text had).
 */
export function currentRange<T>(ranges: readonly T[], nth: number | undefined): T | undefined {
  if (nth === undefined || !ranges.length) return undefined
  return ranges[Math.max(0, Math.min(nth, ranges.length - 1))]
}

/**
 * Highlights `query` in `root` (replacing the previous marks), its `nth` occurrence apart as the current one;
 * without a root or query, clears them.
 */
export function showFindHighlight(root: Node | null | undefined, query: string | undefined, nth?: number): Range | undefined {
  const api = registry()
  if (!api) return undefined
  const ranges = root && query ? matchRanges(root, query) : []
  const current = currentRange(ranges, nth)
  const others = ranges.filter((r) => r !== current)
  if (others.length) api.highlights.set(NAME, new api.Highlight(...others))
  else api.highlights.delete(NAME)
  if (current) api.highlights.set(CURRENT, new api.Highlight(current))
  else api.highlights.delete(CURRENT)
  return current
}
