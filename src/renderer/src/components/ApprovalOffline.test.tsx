// An exec approval while the gateway connection is down: its buttons wait for the connection (saying why)
// instead of sending an answer that can only fail, and one answered elsewhere meanwhile reads as answered after
// the reconnect — not as still waiting until it expires.
import { act, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { approvalExec, ConnectedFake, LONG, renderApp } from '../test-utils'
import userEvent from '@testing-library/user-event'

beforeEach(() => {
  localStorage.clear()
  document.title = 'Loopdesk'
})

const row = () => within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Main').closest('li')!

describe('approvals while the gateway is away', () => {
  it('one approval: the buttons are disabled with the reason, enabled again on reconnect', async () => {
    const bridge = new ConnectedFake({ tickMs: 1, scripts: [{ steps: [approvalExec('make build'), { kind: 'text', text: 'built' }] }] })
    await renderApp({}, bridge)
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'build it{Enter}')
    const card = await screen.findByRole('group', { name: 'Approval required' }, LONG)
    const approve = within(card).getByRole('button', { name: 'Approve' })
    expect(approve).toBeEnabled()

    act(() => bridge.set({ state: 'reconnecting' }))
    for (const name of ['Approve', 'Always allow', 'Deny']) {
      const b = within(card).getByRole('button', { name })
      expect(b).toBeDisabled()
      expect(b).toHaveAccessibleDescription(expect.stringContaining('Not connected — reconnecting…'))
    }
    expect(card).toHaveTextContent('Not connected — reconnecting…')
    act(() => bridge.set({ state: 'failed', error: { message: 'closed' } }))
    expect(within(card).getByRole('button', { name: 'Deny' })).toHaveAccessibleDescription('Not connected to the gateway')

    act(() => bridge.set({ state: 'open' }))
    await waitFor(() => expect(within(card).getByRole('button', { name: 'Approve' })).toBeEnabled())
    expect(within(card).getByRole('button', { name: 'Approve' })).not.toHaveAccessibleDescription()
    expect(card).not.toHaveTextContent('Not connected')
    await user.click(within(card).getByRole('button', { name: 'Approve' }))
    expect(bridge.calls.filter((c) => c.name === 'approvalResolve')).toHaveLength(1)
  })

  it('several approvals: the list and Allow all / Deny all wait too', async () => {
    const bridge = new ConnectedFake({
      tickMs: 1,
      scripts: [{ steps: [{ kind: 'parallel', tools: [approvalExec('make a'), approvalExec('make b')] }, { kind: 'text', text: 'done' }] }],
    })
    await renderApp({}, bridge)
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'both{Enter}')
    const list = await screen.findByRole('region', { name: '2 commands wait for approval' }, LONG)
    act(() => bridge.set({ state: 'reconnecting' }))
    const buttons = within(list).getAllByRole('button')
    expect(buttons.length).toBeGreaterThanOrEqual(4)
    for (const b of buttons) {
      expect(b).toBeDisabled()
      expect(b).toHaveAccessibleDescription('Not connected — reconnecting…')
    }
    act(() => bridge.set({ state: 'open' }))
    await waitFor(() => expect(within(list).getByRole('button', { name: 'Allow all 2' })).toBeEnabled())
  })

  it('answered in another window while this one was away: after the reconnect it no longer waits here', async () => {
    // the run goes on after the answer (still running at the reconnect)
    const bridge = new ConnectedFake({ tickMs: 1, scripts: [{ steps: [approvalExec('make build'), { kind: 'text', text: 'built it' }, { kind: 'untilAborted' }] }] })
    bridge.lossy = true
    await renderApp({}, bridge)
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'build it{Enter}')
    await screen.findByRole('group', { name: 'Approval required' }, LONG)
    await waitFor(() => expect(row()).toHaveTextContent('Needs approval'))

    act(() => bridge.set({ state: 'reconnecting' }))
    // another window answers; its resolved event (and the rest of the run) never reaches this one
    const [req] = bridge.pendingApprovals()
    await act(() => bridge.approvalResolve({ id: req.id, decision: 'allow-once' }))
    expect(bridge.pendingApprovals()).toHaveLength(0)

    act(() => bridge.set({ state: 'open' }))
    const log = screen.getByRole('log', { name: 'Conversation' })
    await waitFor(() => expect(log).toHaveTextContent('built it'), LONG)
    expect(screen.queryByRole('group', { name: 'Approval required' })).toBeNull()
    expect(within(log).queryByRole('button', { name: 'Approve' })).toBeNull()
    expect(row()).not.toHaveTextContent('Needs approval')
    expect(document.title).toBe('Loopdesk')
  })
})

describe('approvals in other sessions while the gateway is away', () => {
  it('one answered elsewhere meanwhile, in a session this window never opened, no longer says "Needs approval" after the reconnect', async () => {
    const seed = [
      { key: 'agent:main:main', label: 'Main', messages: 2 },
      { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
    ]
    const bridge = new ConnectedFake({ tickMs: 1, seed })
    bridge.lossy = true
    await renderApp({}, bridge)
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const taxes = () => within(nav).getByText('Tax questions').closest('li')!
    // asked by a run another client started there (its transcript is not loaded here)
    const now = Date.now()
    const req = { id: 'ap-x', runId: 'run-x', sessionKey: 'agent:main:taxes', toolCallId: 'call-x', command: 'make', cwd: '/w', createdAt: now, expiresAt: now + 120_000 }
    act(() => bridge.inject({ event: 'exec.approval.requested', payload: req }))
    await waitFor(() => expect(taxes()).toHaveTextContent('Needs approval'))

    // answered while this window is away: the runtime no longer lists it, its resolved event is lost
    act(() => bridge.set({ state: 'reconnecting' }))
    act(() => bridge.set({ state: 'open' }))
    await waitFor(() => expect(taxes()).not.toHaveTextContent('Needs approval'), LONG)
    expect(document.title).toBe('Loopdesk')
    expect(bridge.calls.filter((c) => c.name === 'recentEvents').map((c) => c.params)).toContainEqual({ sessionKey: 'agent:main:taxes', limit: 1 })
  })

  it('one still waiting there stays', async () => {
    const seed = [
      { key: 'agent:main:main', label: 'Main', messages: 2 },
      { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
    ]
    const bridge = new ConnectedFake({ tickMs: 1, seed, scripts: [{ steps: [approvalExec('make build'), { kind: 'untilAborted' }] }] })
    bridge.lossy = true
    await renderApp({}, bridge)
    const user = userEvent.setup({ delay: null })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const taxes = () => within(nav).getByText('Tax questions').closest('li')!
    await user.click(within(nav).getByText('Tax questions'))
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'build it{Enter}')
    await screen.findByRole('group', { name: 'Approval required' }, LONG)
    await user.click(within(nav).getByText('Main'))
    await waitFor(() => expect(taxes()).toHaveTextContent('Needs approval'))
    const reads = () => bridge.calls.filter((c) => c.name === 'recentEvents' && (c.params as { limit?: number }).limit === 1).length
    act(() => bridge.set({ state: 'reconnecting' }))
    act(() => bridge.set({ state: 'open' }))
    await waitFor(() => expect(reads()).toBe(1))
    // the read answered (the store is updated in the same turn as its answer)
    await act(() => new Promise((r) => setTimeout(r, 50)))
    expect(taxes()).toHaveTextContent('Needs approval')
  })
})
