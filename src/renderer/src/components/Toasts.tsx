// Toasts: errors and notes from the controller. Normally a stack floating at the bottom right; inside
// a dialog (`inline`) they take their own strip in its footer, so they never cover its buttons.
import { useAppStore, useController } from '../app-context'

export function Toasts({ inline = false }: { inline?: boolean }) {
  const controller = useController()
  const toasts = useAppStore('ui', (s) => s.toasts)
  return (
    <div className={inline ? 'toasts toasts-inline' : 'toasts'} aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          <button type="button" className="btn btn-ghost btn-icon" aria-label="Dismiss" onClick={() => controller.dismissToast(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
