// While the gateway connection is down during a run: what cannot work is disabled and says why, the run's
// timer does not count on as if it ran, and what the user types stays in the box.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { ConnectedFake, LONG, renderApp, settle } from '../test-utils'

beforeEach(() => localStorage.clear())

const log = () => screen.getByRole('log', { name: 'Conversation' })
const footer = () => within(log()).getAllByRole('status').at(-1)!

describe('composer while the gateway is away', () => {
  it('Steer, Queue and Stop are disabled with the reason; the footer says the connection is lost; the draft stays', async () => {
    const bridge = new ConnectedFake({ tickMs: 1, scripts: [{ steps: [{ kind: 'text', text: 'Working' }, { kind: 'untilAborted' }] }] })
    await renderApp({}, bridge)
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'Start{Enter}')
    await waitFor(() => expect(footer()).toHaveTextContent(/^Running/), LONG)
    await waitFor(() => expect(log().querySelector('.caret')).not.toBeNull(), LONG)

    const rowState = () => screen.getByRole('navigation').querySelector('.session-item.active .session-state, [aria-current] .session-state')
    const headerState = () => document.querySelector('.chat-header .session-state')
    await waitFor(() => expect(headerState()).toHaveTextContent('Running'), LONG)
    act(() => bridge.set({ state: 'reconnecting' }))
    expect(footer()).toHaveTextContent('Connection lost — waiting for the gateway')
    // the sidebar row and the header no longer claim it runs: nobody knows while the gateway is away
    expect(headerState()).toHaveTextContent('Connection lost')
    expect(rowState()).toHaveTextContent('Connection lost')
    expect(log().querySelector('.caret')).toBeNull()
    expect(footer()).not.toHaveTextContent(/Running|\d s/)
    const text = footer().textContent
    await settle(1200)
    expect(footer().textContent).toBe(text) // no timer ticking

    await user.type(box, 'typed while offline')
    for (const name of ['Steer', 'Queue']) {
      const b = screen.getByRole('button', { name })
      expect(b).toBeDisabled()
      expect(b).toHaveAccessibleDescription('Not connected — reconnecting…')
    }
    expect(screen.getByRole('button', { name: /Stop/ })).toBeDisabled()
    expect(screen.getByRole('button', { name: /Stop/ })).toHaveAccessibleDescription('Not connected — reconnecting…')
    const before = bridge.calls.filter((c) => c.name === 'send').length
    await user.keyboard('{Enter}')
    await settle(50)
    expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(before)
    expect(box).toHaveValue('typed while offline')

    // back: the turn is read again from the runtime, the controls work again
    act(() => bridge.set({ state: 'open' }))
    await waitFor(() => expect(footer()).toHaveTextContent(/^Running/), LONG)
    expect(headerState()).toHaveTextContent('Running')
    expect(screen.getByRole('button', { name: 'Queue' })).toBeEnabled()
    expect(box).toHaveValue('typed while offline')
  })

  it('with no run, Send says why it is disabled', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello')
    act(() => bridge.set({ state: 'failed', error: { message: 'closed' } }))
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Send' })).toHaveAccessibleDescription('Not connected to the gateway')
  })
})
