// Views whose code is a chunk of its own (a dynamic import), fetched the first time they render, or
// earlier with preload() (the idle warm-up does), so first paint loads only what the chat view needs.
import { Component, Suspense, use, useEffect, useRef, type ComponentType, type ReactNode } from 'react'

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
  children: ReactNode
}

/** Suspense for a lazy view, with a small placeholder while its chunk loads and a notice instead of a
 * blank window when it cannot load (e.g. the app was updated under an open browser tab: the old
 * chunk names are gone, and only a reload fetches the new ones). */
export function LazyBoundary({ name, className, onClose, children }: BoundaryProps) {
  return (
    <LoadErrorBoundary name={name} className={className} onClose={onClose}>
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
    return <LoadFailed name={this.props.name} className={this.props.className} onClose={this.props.onClose} />
  }
}

/** The failure notice. It takes focus (the view's keyboard user is not left on a covered button) and,
 * with onClose, closes with its Close button or Escape: the chat under a failed Settings stays usable. */
function LoadFailed({ name, className, onClose }: Omit<BoundaryProps, 'children'>) {
  const reload = useRef<HTMLButtonElement>(null)
  useEffect(() => reload.current?.focus(), [])
  useEffect(() => {
    if (!onClose) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return
      e.preventDefault()
      onClose()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [onClose])
  return (
    <div className={`lazy-fallback ${className ?? ''}`} role="alert">
      {name} could not be shown.{' '}
      <button ref={reload} type="button" className="btn btn-link btn-xs" onClick={() => location.reload()}>
        Reload
      </button>
      {onClose && (
        <button type="button" className="btn btn-link btn-xs" onClick={onClose}>
          Close
        </button>
      )}
    </div>
  )
}
