// Marks the find bar's query inside the matched row with the CSS Custom Highlight API (no DOM changes: the
// rows are React's and markdown-rendered). Where the API is missing (jsdom, older engines) the row's outline
// alone shows the match.

const NAME = 'loopdesk-find'
/** the current occurrence (the find bar's step), marked apart from the others */
const CURRENT = 'loopdesk-find-current'
/** ranges per row at most: a row of thousands of hits (one letter typed) marks the first ones */
const MAX_RANGES = 500

/** inline elements: text inside them joins its neighbours (`a **b** c` is one run of text, as find counts it) */
const INLINE = new Set(['A', 'ABBR', 'B', 'BDI', 'BDO', 'CODE', 'DEL', 'EM', 'I', 'INS', 'KBD', 'MARK', 'S', 'SMALL', 'SPAN', 'STRONG', 'SUB', 'SUP', 'U', 'BUTTON'])

/** the element a text node's run of text belongs to: its nearest non-inline ancestor */
function blockOf(node: Node): Node | null {
  let el = node.parentElement
  while (el && INLINE.has(el.tagName)) el = el.parentElement
  return el
}

/**
 * The ranges of `query` (case-insensitive) in the text under `root`: within a block (a paragraph, an item, a cell,
 * a code block) an occurrence may span elements — `**bold**`, a link, highlighted code's spans — as find counts
 * the rendered text (`src/shared/rendered-text.ts`); never across blocks. Text under `[data-find-skip]` (a code
 * block's language label) is not the message's and is left out.
 */
export function matchRanges(root: Node, query: string): Range[] {
  const needle = query.toLowerCase()
  if (!needle) return []
  const doc = root.ownerDocument ?? (root as Document)
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT)
  const out: Range[] = []
  // one block's text nodes at a time, joined
  let nodes: Text[] = []
  let block: Node | null = null
  const flush = () => {
    if (!nodes.length) return
    const starts: number[] = []
    let joined = ''
    for (const n of nodes) {
      starts.push(joined.length)
      joined += n.nodeValue ?? ''
    }
    const at = (offset: number, end: boolean): [Text, number] => {
      // the node holding `offset` (an end offset at a node's end stays in that node)
      let i = nodes.length - 1
      while (i > 0 && (end ? starts[i] >= offset : starts[i] > offset)) i--
      return [nodes[i], offset - starts[i]]
    }
    const text = joined.toLowerCase()
    for (let i = text.indexOf(needle); i >= 0 && out.length < MAX_RANGES; i = text.indexOf(needle, i + needle.length)) {
      const r = doc.createRange()
      r.setStart(...at(i, false))
      r.setEnd(...at(i + needle.length, true))
      out.push(r)
    }
    nodes = []
  }
  for (let node = walker.nextNode(); node && out.length < MAX_RANGES; node = walker.nextNode()) {
    if (node.parentElement?.closest('[data-find-skip]')) continue
    const b = blockOf(node)
    if (b !== block) {
      flush()
      block = b
    }
    nodes.push(node as Text)
  }
  if (out.length < MAX_RANGES) flush()
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
