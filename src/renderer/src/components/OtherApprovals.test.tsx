// Approvals waiting in sessions other than the open one: a line above the message box says how many, and each
// session's button opens it with focus on its first approval.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadApprovalBatch, preloadOtherApprovals } from '../lazy-views'
import { approvalExec, LONG, renderApp } from '../test-utils'
import { approvalsElsewhere, elsewhereText } from './OtherApprovals'

beforeAll(async () => {
  await Promise.all([preloadOtherApprovals(), preloadApprovalBatch()])
})
beforeEach(() => {
  localStorage.clear()
  document.title = 'Loopdesk'
})

const seed = [
  { key: 'agent:main:main', label: 'Main', messages: 2 },
  { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
  { key: 'agent:main:garden', label: 'Garden', messages: 2 },
]
const exec = approvalExec
const nav = () => screen.getByRole('navigation', { name: 'Sessions' })
const notice = (name: string | RegExp) => screen.findByRole('region', { name }, LONG)
const request = (id: string, sessionKey: string, expiresAt: number) => ({
  id,
  runId: `run-${id}`,
  sessionKey,
  toolCallId: `call-${id}`,
  command: `make ${id}`,
  cwd: '/w',
  createdAt: expiresAt - 120_000,
  expiresAt,
})

describe('approvals waiting in other sessions', () => {
  it('are named above the message box; the button (by keyboard) opens the session with focus on its approval', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed, scripts: [{ steps: [exec('make deploy'), { kind: 'text', text: 'Deployed.' }] }] })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'deploy it{Enter}')
    await screen.findByRole('group', { name: 'Approval required' }, LONG)
    // the open session's own approval is not "elsewhere"
    expect(screen.queryByRole('region', { name: /wait.? in other|in another session/ })).toBeNull()

    await user.click(within(nav()).getByText('Tax questions'))
    const region = await notice('1 approval waits in another session')
    const open = within(region).getByRole('button', { name: 'Open “Main”' })
    // keyboard: focus the button, Enter
    open.focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(within(nav()).getByText('Main').closest('li')).toHaveClass('selected'))
    const card = await screen.findByRole('group', { name: 'Approval required' }, LONG)
    await waitFor(() => expect(within(card).getByRole('button', { name: 'Approve' })).toHaveFocus(), LONG)
    expect(card).toHaveTextContent('make deploy')
    // here now: nothing waits elsewhere
    expect(screen.queryByRole('region', { name: /in another session/ })).toBeNull()
  })

  it('counts every other session, oldest first; two waiting in one session: focus on the list, its first Approve', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({
      seed,
      scripts: [{ steps: [{ kind: 'parallel', tools: [exec('make build'), exec('make test')] }, { kind: 'text', text: 'Both ran.' }] }],
    })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'build and test{Enter}')
    await screen.findByRole('region', { name: '2 commands wait for approval' }, LONG)
    // one more in Garden, asked later than Main's
    act(() => bridge.inject({ event: 'exec.approval.requested', payload: request('g1', 'agent:main:garden', Date.now() + 600_000) }))
    await user.click(within(nav()).getByText('Tax questions'))
    const region = await notice('3 approvals wait in other sessions')
    expect(within(region).getAllByRole('button').map((b) => b.textContent)).toEqual(['Open “Main” (2)', 'Open “Garden” (1)'])
    await user.click(within(region).getByRole('button', { name: 'Open “Main” (2)' }))
    const batch = await screen.findByRole('region', { name: '2 commands wait for approval' }, LONG)
    await waitFor(() => expect(within(batch).getAllByRole('button', { name: 'Approve' })[0]).toHaveFocus(), LONG)
    // from Main, only Garden's waits elsewhere
    expect(await notice('1 approval waits in another session')).toBeInTheDocument()
    // answered elsewhere (another client): the line goes
    act(() => bridge.inject({ event: 'exec.approval.resolved', payload: { id: 'g1', runId: 'run-g1', sessionKey: 'agent:main:garden', decision: 'deny', resolvedBy: 'user', ts: Date.now() } }))
    await waitFor(() => expect(screen.queryByRole('region', { name: /in another session/ })).toBeNull())
  })
})

describe('approvalsElsewhere / elsewhereText', () => {
  it('leaves out the open session and empty ones, the earliest asked first', () => {
    const pending = { a: { x: 300 }, b: {}, open: { y: 100 }, c: { z: 200, w: 500 } }
    expect(approvalsElsewhere(pending, 'open')).toEqual([
      { key: 'c', count: 2 },
      { key: 'a', count: 1 },
    ])
    expect(approvalsElsewhere(pending, undefined).map((w) => w.key)).toEqual(['open', 'c', 'a'])
  })
  it('says one and many', () => {
    expect(elsewhereText(1, 1)).toBe('1 approval waits in another session')
    expect(elsewhereText(2, 1)).toBe('2 approvals wait in another session')
    expect(elsewhereText(4, 2)).toBe('4 approvals wait in other sessions')
  })
})
