// Toasts: errors and notes from the controller. Normally a stack floating at the bottom right; inside
// a dialog (`inline`) they take their own strip in its footer, so they never cover its buttons. The strip
// stays reachable (not inert) behind an open dialog: lib/inert-outside.ts.
// Spoken once each: the strip is the one polite live region (an info toast is plain text in it; it also
// made each toast a `status`, heard twice), an error toast is an `alert`. The strip is there before its
// first toast — Settings keeps its footer strip while open, empty or not — since a live region added
// already filled in is not announced.
import { useRef } from 'react'
import { useAppStore, useController } from '../app-context'
import { messageBox, useRefocus } from '../lib/refocus'

export function Toasts({ inline = false }: { inline?: boolean }) {
  const controller = useController()
  const toasts = useAppStore('ui', (s) => s.toasts)
  const list = useRef<HTMLDivElement>(null)
  // a dismissed toast's button goes with it: the next toast's Dismiss (else the message box) takes focus
  const dismissed = useRef(0)
  const refocus = useRefocus(toasts, () => {
    const buttons = [...(list.current?.querySelectorAll<HTMLElement>('.toast button') ?? [])]
    return [buttons[dismissed.current] ?? buttons.at(-1), messageBox()]
  })
  return (
    <div ref={list} className={inline ? 'toasts toasts-inline' : 'toasts'} aria-live="polite" data-stays-reachable>
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : undefined}>
          <span>{t.text}</span>
          <button type="button" className="btn btn-ghost btn-icon" aria-label="Dismiss" onClick={() => {
              dismissed.current = toasts.indexOf(t)
              refocus()
              controller.dismissToast(t.id)
            }}>
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
