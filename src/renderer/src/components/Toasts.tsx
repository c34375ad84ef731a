// Toasts: errors and notes from the controller. Normally a stack floating at the bottom right; inside
// a dialog (`inline`) they take their own strip in its footer, so they never cover its buttons. The strip
// stays reachable (not inert) behind an open dialog: lib/inert-outside.ts.
// Spoken once each, with the politeness of its kind: the strip itself is no live region; it holds two
// sibling ones, errors (assertive) above notes (polite). An error's `role="alert"` inside one polite strip
// was a live region in a live region — read twice by some screen readers, as a polite note by others. Not
// `role="alert"` on the error group either: that is aria-atomic, and a second error would re-read the first.
// Both groups are there before their first toast (Settings keeps its footer strip while open, empty or
// not), since a live region added already filled in is not announced.
import { useRef } from 'react'
import { useAppStore, useController } from '../app-context'
import { messageBox, useRefocus } from '../lib/refocus'
import type { Toast } from '../state/stores'

export function Toasts({ inline = false }: { inline?: boolean }) {
  const controller = useController()
  const toasts = useAppStore('ui', (s) => s.toasts)
  const list = useRef<HTMLDivElement>(null)
  // a dismissed toast's button goes with it: the next toast's Dismiss (else the message box) takes focus
  const dismissed = useRef(0)
  const buttons = () => [...(list.current?.querySelectorAll<HTMLElement>('.toast button') ?? [])]
  const refocus = useRefocus(toasts, () => {
    const left = buttons()
    return [left[dismissed.current] ?? left.at(-1), messageBox()]
  })
  const toast = (t: Toast) => (
    <div key={t.id} className={`toast toast-${t.kind}`}>
      <span>{t.text}</span>
      <button type="button" className="btn btn-ghost btn-icon" aria-label="Dismiss" onClick={(e) => {
          // by place on screen (errors come first), not by place in the store
          dismissed.current = buttons().indexOf(e.currentTarget)
          refocus()
          controller.dismissToast(t.id)
        }}>
        ×
      </button>
    </div>
  )
  return (
    <div ref={list} className={inline ? 'toasts toasts-inline' : 'toasts'} data-stays-reachable>
      <div className="toast-group" aria-live="assertive" aria-atomic="false">
        {toasts.filter((t) => t.kind === 'error').map(toast)}
      </div>
      <div className="toast-group" aria-live="polite" aria-atomic="false">
        {toasts.filter((t) => t.kind !== 'error').map(toast)}
      </div>
    </div>
  )
}
