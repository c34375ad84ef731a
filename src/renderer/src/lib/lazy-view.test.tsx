import { act, fireEvent, render, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { LazyBoundary, lazyView } from './lazy-view'

function Hello({ who }: { who: string }) {
  return <p>Hello {who}</p>
}

describe('lazy views', () => {
  it('show a small placeholder while the chunk loads, then the view; the chunk is fetched once', async () => {
    let release!: () => void
    const load = vi.fn(() => new Promise<typeof Hello>((resolve) => (release = () => resolve(Hello))))
    const { View } = lazyView(load)
    // a suspending render in a test must be awaited in act (React pings it when the chunk arrives)
    const { rerender } = await act(async () =>
      render(
        <LazyBoundary name="Greeting">
          <View who="you" />
        </LazyBoundary>,
      ),
    )
    expect(screen.getByRole('status')).toHaveTextContent('Loading Greeting…')
    await act(async () => release())
    expect(screen.getByText('Hello you')).toBeInTheDocument()
    expect(screen.queryByRole('status')).toBeNull()
    rerender(
      <LazyBoundary name="Greeting">
        <View who="again" />
      </LazyBoundary>,
    )
    expect(screen.getByText('Hello again')).toBeInTheDocument()
    expect(load).toHaveBeenCalledTimes(1)
  })

  it('a preloaded view renders in its first render, without the placeholder', async () => {
    const { View, preload } = lazyView(async () => Hello)
    await preload()
    render(
      <LazyBoundary name="Greeting">
        <View who="at once" />
      </LazyBoundary>,
    )
    expect(screen.getByText('Hello at once')).toBeInTheDocument()
    expect(screen.queryByRole('status')).toBeNull()
  })

  it('a chunk that cannot load says so with a Reload instead of blanking the window; preload tries again', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {}) // React reports the caught error
    const load = vi.fn(() => Promise.reject(new Error('Failed to fetch dynamically imported module')))
    const { View, preload } = lazyView<{ who: string }>(load)
    await act(async () =>
      render(
        <div>
          <p>the rest of the window</p>
          <LazyBoundary name="Settings">
            <View who="x" />
          </LazyBoundary>
        </div>,
      ),
    )
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent('Settings could not be shown.')
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument()
    expect(screen.getByText('the rest of the window')).toBeInTheDocument()
    await expect(preload()).rejects.toThrow('Failed to fetch')
    expect(load).toHaveBeenCalledTimes(2)
    vi.restoreAllMocks()
  })

  it('a failed view covering the window (Settings) is a modal alert dialog: focus in and back, the rest inert, Close or Escape', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { View } = lazyView<{ who: string }>(() => Promise.reject(new Error('Failed to fetch dynamically imported module')))
    const onClose = vi.fn()
    function Window({ open }: { open: boolean }) {
      return (
        <div>
          <main>
            <button type="button">Settings</button>
            <textarea aria-label="Message" />
          </main>
          {open && (
            <LazyBoundary name="Settings" className="modal-backdrop" onClose={onClose} failureFooter={<p>toasts here</p>}>
              <View who="x" />
            </LazyBoundary>
          )}
        </div>
      )
    }
    const { rerender } = render(<Window open={false} />)
    const opener = screen.getByRole('button', { name: 'Settings' })
    opener.focus()
    await act(async () => rerender(<Window open />))
    const dialog = screen.getByRole('alertdialog', { name: 'Settings could not be shown' })
    expect(dialog).toHaveAttribute('aria-modal', 'true')
    expect(screen.getByRole('button', { name: 'Reload' })).toHaveFocus()
    expect(within(dialog).getByText('toasts here')).toBeInTheDocument()
    // the window behind is inert (screen readers and the mouse), and Tab stays in the dialog
    expect(screen.getByRole('main', { hidden: true }).closest('[inert]')).not.toBeNull()
    fireEvent.keyDown(document.activeElement!, { key: 'Tab' })
    fireEvent.keyDown(document.activeElement!, { key: 'Tab' })
    expect(dialog.contains(document.activeElement)).toBe(true)
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }))
    expect(onClose).toHaveBeenCalledTimes(1)
    fireEvent.keyDown(document.body, { key: 'Escape' })
    expect(onClose).toHaveBeenCalledTimes(2)
    // closed: the window is usable again and focus is back where it was
    await act(async () => rerender(<Window open={false} />))
    expect(document.querySelector('[inert]')).toBeNull()
    expect(opener).toHaveFocus()
    vi.restoreAllMocks()
  })

  it('without onClose the notice offers only Reload and leaves Escape alone', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { View } = lazyView<{ who: string }>(() => Promise.reject(new Error('Failed to fetch dynamically imported module')))
    await act(async () =>
      render(
        <LazyBoundary name="Inspector">
          <View who="x" />
        </LazyBoundary>,
      ),
    )
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull()
    const esc = new KeyboardEvent('keydown', { key: 'Escape', cancelable: true })
    window.dispatchEvent(esc)
    expect(esc.defaultPrevented).toBe(false)
    vi.restoreAllMocks()
  })
})
