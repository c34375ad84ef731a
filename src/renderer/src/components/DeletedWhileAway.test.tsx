// The open session deleted in another window (or by the CLI) while this window was off the gateway: its
// `sessions.changed` delete never arrived. After the reconnect the session list no longer has it; the window
// leaves it as the event would have (another session opens) instead of keeping a composer on a session that
// does not exist — a Send there would start a new session under the dead key.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, expect, it } from 'vitest'
import { ConnectedFake, LONG, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())

const seed = [
  { key: 'agent:main:main', label: 'Main', messages: 2 },
  { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
]

it('the open session deleted while away: after the reconnect another one is open and the deleted one is gone', async () => {
  const bridge = new ConnectedFake({ tickMs: 1, seed })
  bridge.lossy = true
  const { stores } = await renderApp({}, bridge)
  const user = userEvent.setup({ delay: null })
  const nav = screen.getByRole('navigation', { name: 'Sessions' })
  await user.click(within(nav).getByText('Tax questions'))
  await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:taxes'))

  act(() => bridge.set({ state: 'reconnecting' }))
  await act(() => bridge.sessionsDelete({ key: 'agent:main:taxes' }))
  act(() => bridge.set({ state: 'open' }))

  await waitFor(() => expect(within(nav).queryByText('Tax questions')).toBeNull(), LONG)
  await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:main'), LONG)
  expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Main')
  expect(stores.runs.getState().transcripts['agent:main:taxes']).toBeUndefined()
})

it('a session still listed stays open across the reconnect', async () => {
  const bridge = new ConnectedFake({ tickMs: 1, seed })
  bridge.lossy = true
  const { stores } = await renderApp({}, bridge)
  const user = userEvent.setup({ delay: null })
  await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Tax questions'))
  await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:taxes'))
  act(() => bridge.set({ state: 'reconnecting' }))
  act(() => bridge.set({ state: 'open' }))
  await waitFor(() => expect(bridge.calls.filter((c) => c.name === 'sessionsList').length).toBeGreaterThanOrEqual(2))
  await act(() => new Promise((r) => setTimeout(r, 50)))
  expect(stores.sessions.getState().selectedKey).toBe('agent:main:taxes')
})
