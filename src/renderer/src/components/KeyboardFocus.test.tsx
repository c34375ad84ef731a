// Focus after an action whose control goes away: it moves to the nearest sensible place, not to <body>
// (where the next Tab starts over at the top of the window and a screen reader loses its place).
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadInspector } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())
// the Inspector is a lazily loaded chunk: load it first, as the app's idle warm-up does
beforeAll(async () => {
  await preloadInspector()
})

const slow = { kind: 'text' as const, text: 'word '.repeat(400) }

describe('focus after an action removes its control', () => {
  it('removing a queued message moves to the next one’s Remove, the last one to the message box', async () => {
    const { bridge } = await renderApp({ tickMs: 5, scripts: [{ steps: [slow] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    for (const text of ['alpha', 'beta']) await user.type(box, `${text}{Enter}`)
    const queue = await screen.findByRole('region', { name: 'Queued messages' })
    await waitFor(() => expect(within(queue).getAllByRole('button', { name: /^Remove queued message/ })).toHaveLength(2))
    within(queue).getByRole('button', { name: 'Remove queued message: alpha' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(within(queue).getByRole('button', { name: 'Remove queued message: beta' })).toHaveFocus())
    await user.keyboard('{Enter}')
    await waitFor(() => expect(box).toHaveFocus())
    // Clear finished goes too: back to the message box
    within(queue).getByRole('button', { name: 'Clear finished' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Queued messages' })).not.toBeInTheDocument())
    expect(box).toHaveFocus()
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
  })

  it('dismissing a toast moves to the next toast’s Dismiss, the last one to the message box', async () => {
    const { controller } = await renderApp()
    const user = userEvent.setup()
    act(() => {
      controller.notify('first note')
      controller.notify('second note')
    })
    const dismiss = () => screen.getAllByRole('button', { name: 'Dismiss' })
    await waitFor(() => expect(dismiss()).toHaveLength(2))
    dismiss()[0].focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(dismiss()).toHaveLength(1))
    expect(dismiss()[0]).toHaveFocus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Dismiss' })).not.toBeInTheDocument())
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus()
  })

  it('answering an approval from the keyboard moves focus to its tool card, which carries the outcome', async () => {
    await renderApp()
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve the cleanup{Enter}')
    const card = await screen.findByRole('group', { name: 'Approval required' }, LONG)
    within(card).getByRole('button', { name: 'Approve' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(card).not.toBeInTheDocument())
    const tool = screen.getByRole('group', { name: 'Tool exec' })
    expect(tool).toHaveTextContent('Approved once')
    await waitFor(() => expect(tool.querySelector('.tool-head')).toHaveFocus())
  })

  it('closing the inspector from its Close button gives focus to the header’s Inspector button', async () => {
    await renderApp()
    const user = userEvent.setup({ delay: null })
    await user.keyboard('{Control>}{Shift>}I{/Shift}{/Control}')
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    within(panel).getByRole('button', { name: 'Close inspector' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(screen.queryByRole('complementary', { name: 'Inspector' })).not.toBeInTheDocument())
    expect(screen.getByRole('button', { name: 'Inspector' })).toHaveFocus()
  })
})
