// While a modal dialog is open everything outside the topmost one is inert (a screen reader's browse
// mode cannot wander behind it), the toast strip excepted; closing it gives the window back.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { renderApp } from '../test-utils'
import { preloadSessionMenu, preloadSettings } from '../lazy-views'

beforeAll(async () => {
  await Promise.all([preloadSettings(), preloadSessionMenu()])
})
beforeEach(() => localStorage.clear())

const inert = (el: Element) => el.closest('[inert]') !== null

describe('inert behind dialogs', () => {
  it('Settings makes the window inert, a confirmation inside it Settings too; toasts stay reachable', async () => {
    const user = userEvent.setup()
    const { stores } = await renderApp()
    const sessions = screen.getByRole('navigation', { name: 'Sessions' })
    const conversation = screen.getByRole('log', { name: 'Conversation' })
    expect(document.querySelector('[inert]')).toBeNull()

    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(inert(sessions)).toBe(true)
    expect(inert(conversation)).toBe(true)
    expect(inert(dialog)).toBe(false)
    act(() => stores.ui.setState({ toasts: [{ id: 1, kind: 'error', text: 'Could not save' }] }))
    const toast = await within(dialog).findByText('Could not save')
    expect(inert(toast)).toBe(false)

    await user.type(within(dialog).getByLabelText('Anthropic API key'), 'sk-unsaved')
    await user.keyboard('{Escape}')
    const confirm = await screen.findByRole('alertdialog', { name: 'Discard unsaved changes?' })
    expect(inert(confirm)).toBe(false)
    expect(inert(within(dialog).getByRole('navigation', { name: 'Settings sections' }))).toBe(true)
    expect(inert(within(dialog).getByLabelText('Anthropic API key'))).toBe(true)
    expect(inert(toast)).toBe(false)
    expect(inert(sessions)).toBe(true)

    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(confirm).not.toBeInTheDocument())
    expect(inert(within(dialog).getByLabelText('Anthropic API key'))).toBe(false)
    expect(inert(sessions)).toBe(true)

    await user.keyboard('{Escape}')
    await user.click(await screen.findByRole('button', { name: 'Discard and close' }))
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument())
    expect(document.querySelector('[inert]')).toBeNull()
  })

  it('a confirmation from the sidebar: the rest inert, also what appears behind it meanwhile, the floating toasts not', async () => {
    const user = userEvent.setup({ delay: null })
    const { controller, stores } = await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main', messages: 2 }, { key: 'agent:main:b', label: 'Other', messages: 2 }] })
    const sessions = screen.getByRole('navigation', { name: 'Sessions' })
    act(() => stores.ui.setState({ toasts: [{ id: 1, kind: 'info', text: 'Exported' }] }))
    await user.click(within(sessions).getByRole('button', { name: 'Actions for Other' }))
    await user.click(screen.getByRole('menuitem', { name: 'Delete' }))
    const confirm = screen.getByRole('alertdialog', { name: 'Delete session?' })
    expect(inert(confirm)).toBe(false)
    expect(inert(within(sessions).getByRole('button', { name: 'New session' }))).toBe(true)
    expect(inert(screen.getByRole('log', { name: 'Conversation' }))).toBe(true)
    expect(inert(screen.getByText('Exported'))).toBe(false)
    // the inspector opened from elsewhere (not the keyboard: its shortcut is off) while the dialog is open
    await act(async () => controller.setInspectorOpen(true))
    await waitFor(() => expect(document.querySelector('.inspector')).not.toBeNull())
    await waitFor(() => expect(inert(document.querySelector('.inspector')!)).toBe(true))

    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(document.querySelector('[inert]')).toBeNull()
  })
})
