// Views whose code is a chunk of its own (a dynamic import), fetched the first time they render, or
// earlier with preload() (the idle warm-up does), so first paint loads only what the chat view needs.
import { Component, Suspense, use, useEffect, useRef, type ComponentType, type ReactNode } from 'react'
import { Dialog } from '../components/Dialog'

/** A promise carrying its outcome in the fields React reads on the thenables it tracks: `use` returns
 * a fulfilled one's value at once instead of suspending, so a preloaded view renders without a fallback. */
type Tracked<T> = Promise<T> & { status?: 'pending' | 'fulfilled' | 'rejected'; value?: T; reason?: unknown }

export interface LazyView<P> {
  /** renders the view once its chunk is here (suspends until then: put it inside a LazyBoundary) */
  View: (props: P) => ReactNode
  /** fetches the chunk now; a later call asks import() again (a render does not), though Chromium keeps a failed module load failed until a reload */
  preload: () => Promise<ComponentType<P>>
}

export function lazyView<P extends object>(load: () => Promise<ComponentType<P>>): LazyView<P> {
  let loading: Tracked<ComponentType<P>> | undefined
  const preload = (): Promise<ComponentType<P>> => {
    if (!loading || loading.status === 'rejected') {
      const p: Tracked<ComponentType<P>> = load()
      p.status = 'pending'
      p.then(
        (value) => {
          Object.assign(p, { status: 'fulfilled', value })
        },
        (reason: unknown) => {
          Object.assign(p, { status: 'rejected', reason })
        },
      )
      loading = p
    }
    return loading
  }
  function View(props: P) {
    // a failed load is not fetched again here: the boundary shows it (retrying in render would loop)
    const Loaded = use(loading ?? preload())
    // eslint-disable-next-line react-hooks/static-components -- not created here: the one component the chunk exports, the same every render
    return <Loaded {...props} />
  }
  return { View, preload }
}

interface BoundaryProps {
  /** what the view is, for the fallback and the error ("Settings") */
  name: string
  /** class of the placeholder element (sized like the view's spot, styles.css) */
  className?: string
  /** closes the view: the failure notice offers it (and Escape), so a notice covering the window is not a trap */
  onClose?: () => void
  /** with onClose: more for the failure dialog's footer (Settings' toast strip, which its own footer held) */
  failureFooter?: ReactNode
  children: ReactNode
}

/** Suspense for a lazy view, with a small placeholder while its chunk loads and a notice instead of a
 * blank window when it cannot load (e.g. the app was updated under an open browser tab: the old
 * chunk names are gone, and only a reload fetches the new ones). */
export function LazyBoundary({ name, className, onClose, failureFooter, children }: BoundaryProps) {
  return (
    <LoadErrorBoundary name={name} className={className} onClose={onClose} failureFooter={failureFooter}>
      <Suspense
        fallback={
          <div className={`lazy-fallback ${className ?? ''}`} role="status">
            Loading {name}…
          </div>
        }
      >
        {children}
      </Suspense>
    </LoadErrorBoundary>
  )
}

class LoadErrorBoundary extends Component<BoundaryProps, { failed: boolean }> {
  state = { failed: false }
  static getDerivedStateFromError() {
    return { failed: true }
  }
  render() {
    if (!this.state.failed) return this.props.children
    const { name, className, onClose, failureFooter } = this.props
    if (onClose) return <LoadFailedDialog name={name} onClose={onClose} footer={failureFooter} />
    return <LoadFailed name={name} className={className} />
  }
}

/** The failure notice in place of a view (the Inspector): it takes focus, so the view's keyboard user is
 * not left on a control that went away. */
function LoadFailed({ name, className }: Pick<BoundaryProps, 'name' | 'className'>) {
  const reload = useRef<HTMLButtonElement>(null)
  useEffect(() => reload.current?.focus(), [])
  return (
    <div className={`lazy-fallback ${className ?? ''}`} role="alert">
      {name} could not be shown.{' '}
      <button ref={reload} type="button" className="btn btn-link btn-xs" onClick={() => location.reload()}>
        Reload
      </button>
    </div>
  )
}

/** The failure notice of a view that covers the window (Settings): a modal alert dialog like the view it
 * stands for — focus in it and back to the opener on close, Tab kept inside, the window behind inert and its
 * shortcuts off, Escape or Close give the chat back. A plain covering `alert` let Tab and a screen reader's
 * browse mode walk into the hidden window behind, and took the toasts with it (Settings' footer held them).
 * Its header's × is the Close. */
function LoadFailedDialog({ name, onClose, footer }: { name: string; onClose: () => void; footer?: ReactNode }) {
  return (
    <Dialog
      title={`${name} could not be shown`}
      role="alertdialog"
      onClose={onClose}
      className="modal-sm"
      footer={
        <>
          {footer}
          <button type="button" className="btn btn-primary" data-autofocus onClick={() => location.reload()}>
            Reload
          </button>
        </>
      }
    >
      <p>Its part of the app could not be loaded (it may have been updated meanwhile). Reload the window to try again.</p>
    </Dialog>
  )
}
