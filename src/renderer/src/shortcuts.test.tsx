// The new-session shortcut (Ctrl/Cmd+Shift+O): it creates and opens a session, once per press, not behind
// Settings; the button says so (title, aria-keyshortcuts); Ctrl+, and Ctrl/Cmd+Shift+I still do their part.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { renderApp } from './test-utils'
import { preloadInspector, preloadSessionMenu, preloadSettings } from './lazy-views'
import { sessionStepOf, shortcutOf } from './shortcuts'

beforeEach(() => localStorage.clear())
// lazily loaded views: load them first, as the app's idle warm-up does (see narrow-layout.test.tsx)
beforeAll(async () => {
  await Promise.all([preloadInspector(), preloadSettings(), preloadSessionMenu()])
})

const press = (init: KeyboardEventInit) => {
  const e = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init })
  window.dispatchEvent(e)
  return e
}

describe('shortcutOf', () => {
  it('reads Ctrl or Cmd with Shift+O as new session, also on a non-Latin layout (by the physical key)', () => {
    const k = { ctrlKey: false, metaKey: false, altKey: false, shiftKey: true }
    expect(shortcutOf({ ...k, ctrlKey: true, key: 'O', code: 'KeyO' })).toBe('newSession')
    expect(shortcutOf({ ...k, metaKey: true, key: 'o', code: 'KeyO' })).toBe('newSession')
    expect(shortcutOf({ ...k, ctrlKey: true, key: 'Щ', code: 'KeyO' })).toBe('newSession')
    // Ctrl+N is the browser's; Ctrl+O without Shift is "open file"; Alt turns it into something else
    expect(shortcutOf({ ...k, shiftKey: false, ctrlKey: true, key: 'n', code: 'KeyN' })).toBeUndefined()
    expect(shortcutOf({ ...k, shiftKey: false, ctrlKey: true, key: 'o', code: 'KeyO' })).toBeUndefined()
    expect(shortcutOf({ ...k, ctrlKey: true, altKey: true, key: 'O', code: 'KeyO' })).toBeUndefined()
    expect(shortcutOf({ ...k, key: 'O', code: 'KeyO' })).toBeUndefined()
  })
})

describe('sessionStepOf', () => {
  const k = { ctrlKey: false, metaKey: false, altKey: false, shiftKey: false }
  it('Windows and Linux: Alt+↓ / Alt+↑', () => {
    expect(sessionStepOf({ ...k, altKey: true, key: 'ArrowDown' }, false)).toBe(1)
    expect(sessionStepOf({ ...k, altKey: true, key: 'ArrowUp' }, false)).toBe(-1)
    expect(sessionStepOf({ ...k, altKey: true, metaKey: true, key: 'ArrowDown' }, false)).toBeUndefined()
  })

  it('a Mac: Cmd+Option+↓ / ↑ — Option+↑/↓ alone stays the text field\'s paragraph move', () => {
    expect(sessionStepOf({ ...k, altKey: true, metaKey: true, key: 'ArrowDown' }, true)).toBe(1)
    expect(sessionStepOf({ ...k, altKey: true, metaKey: true, key: 'ArrowUp' }, true)).toBe(-1)
    expect(sessionStepOf({ ...k, altKey: true, key: 'ArrowDown' }, true)).toBeUndefined()
    expect(sessionStepOf({ ...k, altKey: true, key: 'ArrowUp' }, true)).toBeUndefined()
    expect(sessionStepOf({ ...k, metaKey: true, key: 'ArrowDown' }, true)).toBeUndefined() // ⌘↓: the end of the text
  })

  it('in the window on a Mac, Option+↓ in the message box is left to the text field; Cmd+Option+↓ opens the next session', async () => {
    const platform = Object.getOwnPropertyDescriptor(navigator, 'platform')
    Object.defineProperty(navigator, 'platform', { value: 'MacIntel', configurable: true })
    try {
      const { controller } = await renderApp()
      await controller.createSession()
      await controller.createSession()
      const before = controller.stores.sessions.getState().selectedKey
      const option = press({ key: 'ArrowDown', altKey: true })
      expect(option.defaultPrevented).toBe(false)
      expect(controller.stores.sessions.getState().selectedKey).toBe(before)
      const cmdOption = press({ key: 'ArrowDown', altKey: true, metaKey: true })
      expect(cmdOption.defaultPrevented).toBe(true)
      await waitFor(() => expect(controller.stores.sessions.getState().selectedKey).not.toBe(before))
    } finally {
      if (platform) Object.defineProperty(navigator, 'platform', platform)
      else delete (navigator as { platform?: string }).platform
    }
  })
})

describe('keyboard shortcuts in the window', () => {
  it('Ctrl/Cmd+Shift+O creates and opens a new session, one per press; the button names the shortcut', async () => {
    const { bridge } = await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main' }] })
    const creates = () => bridge.calls.filter((c) => c.name === 'sessionsCreate').length
    const button = screen.getByRole('button', { name: 'New session' })
    expect(button).toHaveAttribute('aria-keyshortcuts', 'Control+Shift+O Meta+Shift+O')
    expect(button.title).toMatch(/^New session \((Ctrl\+|⌘)Shift\+O\)$/)

    const e = press({ key: 'O', code: 'KeyO', ctrlKey: true, shiftKey: true })
    expect(e.defaultPrevented).toBe(true)
    await waitFor(() => expect(creates()).toBe(1))
    // held down: the auto-repeat creates no more
    press({ key: 'O', code: 'KeyO', ctrlKey: true, shiftKey: true, repeat: true })
    press({ key: 'o', code: 'KeyO', metaKey: true, shiftKey: true })
    await waitFor(() => expect(creates()).toBe(2))
    await waitFor(() => expect(screen.getAllByRole('heading', { level: 1 })[0]).not.toHaveTextContent('Main'))
  })

  it('not behind the open Settings dialog; Ctrl+, opens Settings and Ctrl+Shift+I the inspector', async () => {
    const { bridge, stores } = await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main' }] })
    const user = userEvent.setup()
    expect(screen.getByRole('button', { name: 'Inspector' })).toHaveAttribute('aria-keyshortcuts', 'Control+Shift+I Meta+Shift+I')
    await user.keyboard('{Control>}{Shift>}I{/Shift}{/Control}')
    expect(stores.inspector.getState().open).toBe(true)
    await user.keyboard('{Control>},{/Control}')
    await waitFor(() => expect(stores.settings.getState().settingsOpen).toBe(true))
    press({ key: 'O', code: 'KeyO', ctrlKey: true, shiftKey: true })
    await new Promise((r) => setTimeout(r, 50))
    expect(bridge.calls.filter((c) => c.name === 'sessionsCreate')).toHaveLength(0)
  })

  it('nothing changes behind an open dialog: not the inspector behind Settings, nor Settings or a session behind a confirmation', async () => {
    const { bridge, stores } = await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main' }] })
    const user = userEvent.setup()
    await user.keyboard('{Control>},{/Control}')
    await screen.findByRole('dialog', { name: 'Settings' })
    await user.keyboard('{Control>}{Shift>}I{/Shift}{/Control}')
    expect(stores.inspector.getState().open).toBe(false)
    await user.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument())

    await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByRole('button', { name: 'Actions for Main' }))
    await user.click(screen.getByRole('menuitem', { name: /^Reset/ }))
    const confirm = screen.getByRole('alertdialog', { name: 'Reset session?' })
    await user.keyboard('{Control>},{/Control}')
    await user.keyboard('{Control>}{Shift>}O{/Shift}{/Control}')
    await new Promise((r) => setTimeout(r, 50))
    expect(stores.settings.getState().settingsOpen).toBe(false)
    expect(bridge.calls.filter((c) => c.name === 'sessionsCreate')).toHaveLength(0)
    expect(confirm).toBeInTheDocument()
  })
})
