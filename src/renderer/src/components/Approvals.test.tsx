// Exec approvals seen from outside their conversation: the sidebar row, the window title, the tool card.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { LONG, renderApp } from '../test-utils'

beforeEach(() => {
  localStorage.clear()
  document.title = 'Loopdesk'
})

const seed = [
  { key: 'agent:main:main', label: 'Main', messages: 2 },
  { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
]

const row = (title: string) => within(screen.getByRole('navigation', { name: 'Sessions' })).getByText(title).closest('li')!

describe('a pending exec approval', () => {
  it('shows as "Needs approval" on its session and in the window title from another session; the tool card waits', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve the cleanup{Enter}')
    await screen.findByRole('group', { name: 'Approval required' }, LONG)
    const tool = screen.getByRole('group', { name: 'Tool exec' })
    expect(tool).toHaveTextContent('Waiting for approval')
    expect(tool).not.toHaveTextContent('Running…')
    expect(tool.querySelector('.spinner')).toBeNull()
    expect(document.title).toBe('(1) Approval needed — Loopdesk')

    await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Tax questions'))
    expect(row('Main')).toHaveTextContent('Needs approval')
    expect(row('Main')).toHaveAttribute('data-state', 'approval')
    expect(row('Main')).not.toHaveTextContent('Running')
    expect(row('Tax questions')).toHaveTextContent('Idle')
    expect(document.title).toBe('(1) Approval needed — Loopdesk')

    // answered (here by another client): the run goes on, nothing waits any more
    const [req] = bridge.pendingApprovals()
    await act(() => bridge.approvalResolve({ id: req.id, decision: 'allow-once' }))
    await waitFor(() => expect(row('Main')).not.toHaveTextContent('Needs approval'))
    expect(document.title).toBe('Loopdesk')
    await waitFor(() => expect(row('Main')).toHaveTextContent('Idle'), LONG)
  })

  it('a session never opened in this window shows it too (events of sessions without a transcript)', async () => {
    const { bridge } = await renderApp({ seed })
    const now = Date.now()
    const req = { id: 'ap-x', runId: 'run-x', sessionKey: 'agent:main:taxes', toolCallId: 'call-x', command: 'make', cwd: '/w', createdAt: now, expiresAt: now + 120_000 }
    act(() => bridge.inject({ event: 'exec.approval.requested', payload: req }))
    await waitFor(() => expect(row('Tax questions')).toHaveTextContent('Needs approval'))
    expect(row('Main')).not.toHaveTextContent('Needs approval')
    expect(document.title).toBe('(1) Approval needed — Loopdesk')
    act(() => bridge.inject({ event: 'exec.approval.resolved', payload: { id: 'ap-x', runId: 'run-x', sessionKey: 'agent:main:taxes', decision: 'deny', resolvedBy: 'timeout', ts: Date.now() } }))
    await waitFor(() => expect(row('Tax questions')).not.toHaveTextContent('Needs approval'))
    expect(document.title).toBe('Loopdesk')
  })
})
