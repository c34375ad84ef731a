// New session (and Fork) create the session, then open it. In between, the message box on screen still belongs to
// the old session: a message typed and sent in that moment went there, and the new session opened empty (a loaded
// CI box caught it in e2e). Until the new one opens, the box takes no input and Send is off; then it has focus.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { LONG, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())

describe('opening a new session', () => {
  it('a message typed while the new session is being created is not sent to the old one', async () => {
    const { bridge, stores } = await renderApp({ seed: [{ key: 'agent:main:old', label: 'Old talk' }] })
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:old'))
    // the gateway takes its time to create the session
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const create = bridge.sessionsCreate.bind(bridge)
    bridge.sessionsCreate = async (p) => {
      await gate
      return create(p)
    }
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'New session' }))
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'meant for the new one{Enter}')
    expect(box).toHaveValue('')
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled()
    expect(screen.getByText('Opening the new session…')).toBeInTheDocument()
    expect(bridge.calls.filter((c) => c.name === 'send' || c.name === 'run')).toEqual([])
    await act(async () => release())
    await waitFor(() => expect(stores.sessions.getState().selectedKey).not.toBe('agent:main:old'), LONG)
    const fresh = screen.getByRole('textbox', { name: 'Message' })
    await waitFor(() => expect(fresh).toHaveFocus())
    await user.type(fresh, 'meant for the new one{Enter}')
    await waitFor(() => expect(bridge.calls.filter((c) => c.name === 'send' || c.name === 'run')).toHaveLength(1))
    const sent = bridge.calls.find((c) => c.name === 'send' || c.name === 'run')!.params as { sessionKey: string }
    expect(sent.sessionKey).toBe(stores.sessions.getState().selectedKey)
    expect(within(screen.getByRole('log', { name: 'Conversation' })).getByText('meant for the new one')).toBeInTheDocument()
  })

  it("the new session's box takes input as soon as it is shown, not only once its history has loaded", async () => {
    const { bridge, stores } = await renderApp({ seed: [{ key: 'agent:main:old', label: 'Old talk' }] })
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:old'))
    // the new session's history is slow to come
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const history = bridge.history.bind(bridge) as (p: unknown) => Promise<unknown>
    ;(bridge as unknown as { history: (p: unknown) => Promise<unknown> }).history = async (p) => {
      if ((p as { sessionKey: string }).sessionKey !== 'agent:main:old') await gate
      return history(p)
    }
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'New session' }))
    await waitFor(() => expect(stores.sessions.getState().selectedKey).not.toBe('agent:main:old'), LONG)
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'typed at once')
    expect(box).toHaveValue('typed at once')
    expect(screen.queryByText('Opening the new session…')).toBeNull()
    await act(async () => release())
  })
})
