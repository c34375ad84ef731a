import { act, fireEvent, render, screen } from '@testing-library/react'
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

  it('a failed view covering the window (Settings) can be closed: Close or Escape; the notice takes focus', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { View } = lazyView<{ who: string }>(() => Promise.reject(new Error('Failed to fetch dynamically imported module')))
    const onClose = vi.fn()
    await act(async () =>
      render(
        <LazyBoundary name="Settings" onClose={onClose}>
          <View who="x" />
        </LazyBoundary>,
      ),
    )
    expect(screen.getByRole('button', { name: 'Reload' })).toHaveFocus()
    fireEvent.click(screen.getByRole('button', { name: 'Close' }))
    expect(onClose).toHaveBeenCalledTimes(1)
    fireEvent.keyDown(window, { key: 'Escape' })
    expect(onClose).toHaveBeenCalledTimes(2)
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
