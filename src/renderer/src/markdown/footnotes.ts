// Footnote links within one message (the tokenizers: src/shared/markdown-footnotes.ts).
export { footnoteDef, footnoteRef, type FootnoteDefToken, type FootnoteRefToken } from '../../../shared/markdown-footnotes'

/**
 * Scrolls to the other end of a footnote link in the same message (`.md`): from a reference to its
 * definition, or from a definition back to the first reference. Returns false when there is none.
 */
export function jumpToFootnote(from: Element, label: string, to: 'def' | 'ref'): boolean {
  const root = from.closest('.md')
  if (!root) return false
  const attr = to === 'def' ? 'data-footnote' : 'data-footnote-ref'
  for (const el of root.querySelectorAll(`[${attr}]`)) {
    if (el.getAttribute(attr) !== label) continue
    el.scrollIntoView({ block: 'nearest' })
    ;(el as HTMLElement).focus({ preventScroll: true })
    return true
  }
  return false
}
