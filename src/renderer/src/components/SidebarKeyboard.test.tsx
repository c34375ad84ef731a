// Switching sessions by keyboard: the list is one Tab stop (roving tabindex) with ↑/↓/Home/End between rows
// and → / Shift+F10 / the menu key for a row's "…" menu; Alt+↓ / Alt+↑ open the next / previous session from
// anywhere, in the sidebar's order.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { renderApp } from '../test-utils'
import { preloadSessionMenu } from '../lazy-views'

// a row's "…" menu is a chunk of its own: loaded first, as the idle warm-up does
beforeAll(async () => {
  await preloadSessionMenu()
})

const seed = Array.from({ length: 6 }, (_, i) => ({ key: `agent:main:s${i}`, label: `Session ${i}`, messages: 2 }))
const nav = () => screen.getByRole('navigation', { name: 'Sessions' })
const rowButton = (name: string) => within(nav()).getByText(name).closest('button')!
const rowNames = () => [...nav().querySelectorAll('li[data-key] .session-title')].map((e) => e.textContent)

beforeEach(() => localStorage.clear())

describe('session list: one Tab stop, arrow keys between rows', () => {
  it('Tab enters the list once at the open session; ↑/↓/Home/End move; Enter opens; Tab leaves the list', async () => {
    const user = userEvent.setup({ delay: null })
    const { stores } = await renderApp({ seed })
    const names = rowNames()
    const open = stores.sessions.getState().selectedKey!
    const openName = seed.find((s) => s.key === open)!.label
    // every row's main button but one, and every "…", is out of the Tab order
    const tabbable = [...nav().querySelectorAll<HTMLElement>('li[data-key] button')].filter((b) => b.tabIndex >= 0)
    expect(tabbable).toEqual([rowButton(openName)])
    within(nav()).getByRole('searchbox', { name: 'Search sessions' }).focus()
    await user.tab()
    expect(rowButton(openName)).toHaveFocus()
    await user.keyboard('{Home}')
    expect(rowButton(names[0]!)).toHaveFocus()
    await user.keyboard('{ArrowDown}{ArrowDown}')
    expect(rowButton(names[2]!)).toHaveFocus()
    await user.keyboard('{ArrowUp}')
    expect(rowButton(names[1]!)).toHaveFocus()
    await user.keyboard('{End}')
    expect(rowButton(names[names.length - 1]!)).toHaveFocus()
    await user.keyboard('{ArrowDown}') // no wrap
    expect(rowButton(names[names.length - 1]!)).toHaveFocus()
    // the row focused last is the list's Tab stop now (Shift+Tab back into it lands there)
    await user.tab()
    expect(nav().querySelector('.session-list')!.contains(document.activeElement)).toBe(false)
    await user.tab({ shift: true })
    expect(rowButton(names[names.length - 1]!)).toHaveFocus()
    await user.keyboard('{Home}{Enter}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(seed.find((s) => s.label === names[0])!.key))
  })

  it('→, Shift+F10 and the menu key open the row\'s actions; ← from "…" goes back to the row', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    const row = rowButton('Session 3')
    row.focus()
    await user.keyboard('{ArrowRight}')
    expect(within(screen.getByRole('menu', { name: 'Actions for Session 3' })).getAllByRole('menuitem')[0]).toHaveFocus()
    await user.keyboard('{Escape}')
    const more = within(nav()).getByRole('button', { name: 'Actions for Session 3' })
    expect(more).toHaveFocus()
    await user.keyboard('{ArrowLeft}')
    expect(row).toHaveFocus()
    await user.keyboard('{Shift>}{F10}{/Shift}')
    expect(screen.getByRole('menu', { name: 'Actions for Session 3' })).toBeInTheDocument()
    await user.keyboard('{Escape}{ArrowLeft}{ContextMenu}')
    expect(screen.getByRole('menu', { name: 'Actions for Session 3' })).toBeInTheDocument()
    // arrow keys inside the menu stay the menu's
    await user.keyboard('{ArrowDown}')
    expect(within(screen.getByRole('menu')).getAllByRole('menuitem')[1]).toHaveFocus()
  })
})

describe('Alt+↓ / Alt+↑: next / previous session', () => {
  it('steps through the list in its order from the composer, which keeps the focus; stops at the ends', async () => {
    const user = userEvent.setup({ delay: null })
    const { stores } = await renderApp({ seed })
    const order = rowNames().map((n) => seed.find((s) => s.label === n)!.key)
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.click(within(nav()).getByText(seed.find((s) => s.key === order[0])!.label))
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(order[0]))
    box.focus()
    await user.keyboard('{Alt>}{ArrowDown}{/Alt}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(order[1]))
    await user.keyboard('{Alt>}{ArrowDown}{ArrowDown}{/Alt}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(order[3]))
    await user.keyboard('{Alt>}{ArrowUp}{/Alt}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(order[2]))
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus()
    await user.keyboard('{Alt>}{ArrowUp}{ArrowUp}{ArrowUp}{/Alt}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(order[0]))
    // the list's Tab stop followed the open session (not the row clicked before)
    await user.keyboard('{Alt>}{ArrowDown}{/Alt}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(order[1]))
    within(nav()).getByRole('searchbox', { name: 'Search sessions' }).focus()
    await user.tab()
    expect(rowButton(seed.find((s) => s.key === order[1])!.label)).toHaveFocus()
  })

  it('follows a search: only the sessions listed', async () => {
    const user = userEvent.setup({ delay: null })
    const { stores } = await renderApp({ seed })
    await user.type(within(nav()).getByRole('searchbox', { name: 'Search sessions' }), 'Session 4')
    await waitFor(() => expect(rowNames()).toEqual(['Session 4']))
    await user.keyboard('{Alt>}{ArrowDown}{/Alt}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:s4'))
    await user.keyboard('{Alt>}{ArrowDown}{/Alt}')
    expect(stores.sessions.getState().selectedKey).toBe('agent:main:s4')
  })
})
