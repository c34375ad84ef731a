// The overlays of narrow windows: the sidebar toggle and backdrop, Escape, and the inspector drawer.
// jsdom applies no media queries, so this checks the behaviour; e2e/narrow-layout.spec.ts the layout.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeBridge } from './bridge/fake-bridge'
import { renderApp } from './test-utils'
import { preloadInspector, preloadSessionMenu } from './lazy-views'

const seed = [
  { key: 'agent:main:main', label: 'Main' },
  { key: 'agent:main:other', label: 'Other' },
]

// the Inspector is a lazily loaded chunk: load it first, as the idle warm-up does in the app (a view that
// suspends inside a click's act() would wait for a flush that never comes; lib/lazy-view.test.tsx
// covers the loading itself)
beforeAll(async () => {
  await Promise.all([preloadInspector(), preloadSessionMenu()])
})
beforeEach(() => localStorage.clear())
afterEach(() => vi.unstubAllGlobals())

/** window.matchMedia answering `narrow` for every query (jsdom has none). */
function stubMedia(narrow: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: narrow, media: query, addEventListener() {}, removeEventListener() {} }))
}

const toggle = () => screen.getByRole('button', { name: 'Show sessions' })
const app = (container: HTMLElement) => container.querySelector('.app')!

describe('narrow layout', () => {
  it('the sessions toggle opens the sidebar overlay; the backdrop, Escape and picking a session close it', async () => {
    const user = userEvent.setup({ delay: null })
    const { container } = await renderApp({ seed })
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
    expect(app(container)).not.toHaveClass('sidebar-open')

    await user.click(toggle())
    expect(toggle()).toHaveAttribute('aria-expanded', 'true')
    expect(app(container)).toHaveClass('sidebar-open')
    expect(screen.getByRole('button', { name: 'New session' })).toHaveFocus()
    await user.click(container.querySelector('.sidebar-backdrop')!)
    expect(app(container)).not.toHaveClass('sidebar-open')
    expect(container.querySelector('.sidebar-backdrop')).toBeNull()
    expect(toggle()).toHaveFocus()

    await user.click(toggle())
    await user.keyboard('{Escape}')
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
    expect(toggle()).toHaveFocus()

    await user.click(toggle())
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await user.click(within(nav).getByRole('button', { name: /^Other/ }))
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Other'))
    expect(toggle()).toHaveAttribute('aria-expanded', 'false')
  })

  it('Escape inside a session menu closes the menu, not the overlay', async () => {
    const user = userEvent.setup({ delay: null })
    const { container } = await renderApp({ seed })
    await user.click(toggle())
    await user.click(screen.getByRole('button', { name: 'Actions for Main' }))
    expect(screen.getByRole('menu')).toBeInTheDocument()
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('menu')).not.toBeInTheDocument()
    expect(app(container)).toHaveClass('sidebar-open')
  })

  it('Escape and the backdrop close the inspector where it is a drawer; a wide window keeps it on Escape', async () => {
    const user = userEvent.setup({ delay: null })
    const { container } = await renderApp({ seed })
    const panel = () => screen.queryByRole('complementary', { name: 'Inspector' })

    stubMedia(false)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    expect(panel()).toBeInTheDocument()
    await user.keyboard('{Escape}')
    expect(panel()).toBeInTheDocument()

    stubMedia(true)
    await user.keyboard('{Escape}')
    expect(panel()).not.toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    await user.click(container.querySelector('.inspector-backdrop')!)
    expect(panel()).not.toBeInTheDocument()
  })

  it('a remembered open Inspector opens at start only where it sits beside the conversation', async () => {
    for (const narrow of [true, false]) {
      stubMedia(narrow)
      const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24, seed })
      await bridge.prefsSet({ inspectorOpen: true })
      const { unmount } = await renderApp({}, bridge)
      const panel = screen.queryByRole('complementary', { name: 'Inspector' })
      if (narrow) expect(panel).not.toBeInTheDocument()
      else expect(panel).toBeInTheDocument()
      // asked for, it opens as a drawer
      if (narrow) {
        await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'Inspector' }))
        expect(await screen.findByRole('complementary', { name: 'Inspector' })).toBeInTheDocument()
      }
      unmount()
    }
  })
})
