// Everything outside an open modal dialog made `inert`: Tab and Escape are already kept inside by the
// dialog, but a screen reader's browse mode (and a mouse on what the backdrop does not cover) still
// reached the window behind. Dialogs render where they are used (no portal), so the dialog's
// ancestors stay as they are and every sibling along the way up to <body> gets `inert`.

/** `data-stays-reachable` marks what stays reachable behind a dialog: the toast strip (floating above
 * the backdrops, or in Settings' footer under a confirmation) keeps its Dismiss and its announcements,
 * the run announcer (a live region in the conversation) its announcements: an inert live region is out
 * of the accessibility tree, and what changes in it is never spoken. */
const KEEP = '[data-stays-reachable]'

/** Sets `inert` on everything outside `target` (what is marked KEEP excepted), also on what is
 * added later beside it (a callout, a row a late answer adds); returns the undo, which removes only the
 * `inert` this call set. */
export function inertOutside(target: HTMLElement): () => void {
  const set: Element[] = []
  const visit = (node: Element) => {
    if (node.contains(target) || node.matches(KEEP) || node.hasAttribute('inert') || node.tagName === 'SCRIPT' || node.tagName === 'STYLE') return
    if (node.querySelector(KEEP)) {
      // something in it stays reachable: go down and make the rest inert
      observer.observe(node, { childList: true })
      for (const child of node.children) visit(child)
      return
    }
    node.setAttribute('inert', '')
    set.push(node)
  }
  const observer = new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n instanceof Element) visit(n)
  })
  for (let el: Element = target; el.parentElement && el !== document.body; el = el.parentElement) {
    const parent = el.parentElement
    observer.observe(parent, { childList: true })
    for (const sibling of parent.children) if (sibling !== el) visit(sibling)
  }
  return () => {
    observer.disconnect()
    for (const el of set) el.removeAttribute('inert')
  }
}
