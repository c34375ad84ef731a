// Modal dialog with focus handling: focus moves in on open, Tab stays inside, Escape closes, focus
// returns to the opener on close.
// Escape and Tab are handled at the document for the topmost open dialog, not only inside it: a form a
// save rebuilds (Settings' endpoint form) drops the focused button, focus falls to <body>, and a handler
// on the dialog itself then never heard Escape again and let Tab walk into the window behind.
// Everything outside the topmost dialog is `inert` (lib/inert-outside.ts), so a screen reader's browse
// mode does not wander behind it either; a confirmation inside Settings leaves Settings inert meanwhile.
import { useEffect, useId, useRef, type ReactNode } from 'react'
import { inertOutside } from '../lib/inert-outside'

interface Props {
  title: string
  onClose: () => void
  children: ReactNode
  role?: 'dialog' | 'alertdialog'
  className?: string
  footer?: ReactNode
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])'

/** Open dialogs, innermost last: a confirmation opened inside Settings takes Escape and Tab first. */
const openDialogs: HTMLElement[] = []
let undoInert: (() => void) | undefined

/** Makes all but the topmost open dialog inert (none open: nothing), after the stack changed. */
function updateInert() {
  undoInert?.()
  const top = openDialogs.at(-1)
  undoInert = top ? inertOutside(top) : undefined
}

/** What Tab can reach in `root`: not in a hidden section (Settings keeps its other sections mounted, hidden). */
function tabbable(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest('[hidden], details:not([open]) > :not(summary)'))
}

export function Dialog({ title, onClose, children, role = 'dialog', className, footer }: Props) {
  const ref = useRef<HTMLDivElement>(null)
  const titleId = useId()
  // the document's key handler outlives renders: it calls the latest onClose
  const closeRef = useRef(onClose)
  useEffect(() => {
    closeRef.current = onClose
  })
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const opener = document.activeElement as HTMLElement | null
    openDialogs.push(el)
    updateInert()
    const first = el.querySelector<HTMLElement>('[data-autofocus]') ?? tabbable(el)[0]
    first?.focus()
    const onKey = (e: KeyboardEvent) => {
      if (openDialogs.at(-1) !== el || e.defaultPrevented) return
      if (e.key === 'Escape') {
        // a native <select>'s open list takes Escape itself (no keydown reaches the page)
        e.preventDefault()
        e.stopPropagation()
        closeRef.current()
      } else if (e.key === 'Tab') {
        const items = tabbable(el)
        if (!items.length) return
        const i = items.indexOf(document.activeElement as HTMLElement)
        // focus outside (fallen to <body>): Tab comes back in instead of going to the window behind
        if (i < 0 && !el.contains(document.activeElement)) {
          e.preventDefault()
          ;(e.shiftKey ? items[items.length - 1] : items[0]).focus()
        } else if (e.shiftKey && i === 0) {
          e.preventDefault()
          items[items.length - 1].focus()
        } else if (!e.shiftKey && i === items.length - 1) {
          e.preventDefault()
          items[0].focus()
        }
      }
    }
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('keydown', onKey)
      openDialogs.splice(openDialogs.indexOf(el), 1)
      // before focus goes back: the opener is behind the dialog, inert until now
      updateInert()
      opener?.focus?.()
    }
  }, [])
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={ref} role={role} aria-modal="true" aria-labelledby={titleId} className={`modal ${className ?? ''}`}>
        <header className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="btn btn-ghost btn-icon" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-foot">{footer}</footer>}
      </div>
    </div>
  )
}

interface ConfirmProps {
  title: string
  message: ReactNode
  confirmLabel: string
  danger?: boolean
  onConfirm: () => void
  onCancel: () => void
}

export function ConfirmDialog({ title, message, confirmLabel, danger, onConfirm, onCancel }: ConfirmProps) {
  return (
    <Dialog
      title={title}
      role="alertdialog"
      onClose={onCancel}
      className="modal-sm"
      footer={
        <>
          <button type="button" className="btn" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" className={danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </>
      }
    >
      <p>{message}</p>
    </Dialog>
  )
}
