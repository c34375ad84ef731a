// Exec approvals seen from outside their conversation: the sidebar row, the window title, the tool card.
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { AppContext } from '../app-context'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from '../state/controller'
import { createAppStores } from '../state/stores'
import type { ToolItem } from '../state/types'
import { LONG, renderApp } from '../test-utils'
import { ToolCard } from './ToolCard'

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

describe('a session another client started', () => {
  it('is named after its first message while its run waits on an approval, not after its key', async () => {
    const { bridge } = await renderApp({ seed, scripts: [{ steps: [{ kind: 'tool', name: 'exec', args: { command: 'make deploy' }, result: text('ok'), approval: true }] }] })
    // as `loopdesk agent --session-id …` does: the window sends nothing, the row comes from sessions.changed
    await act(() => bridge.run({ sessionKey: 'agent:main:cli-7f3a', message: 'Deploy the docs site\nthen tell me', idempotencyKey: 'cli-run-1' }))
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await waitFor(() => expect(row('Deploy the docs site then tell me')).toHaveTextContent('Needs approval'), LONG)
    expect(within(nav).queryByText('cli-7f3a')).toBeNull()
    expect(bridge.isRunning('agent:main:cli-7f3a')).toBe(true) // named before the run ended, not by its end
  })
})

const text = (t: string) => ({ content: [{ type: 'text', text: t }] })
const call = (over: Partial<ToolItem>): ToolItem => ({
  kind: 'tool',
  key: 'tool:c1',
  runId: 'r1',
  ts: 1,
  toolCallId: 'c1',
  name: 'exec',
  args: { command: 'rm -rf build' },
  status: 'failed',
  startedAt: 1000,
  endedAt: 1200,
  ...over,
})

function card(item: ToolItem) {
  const stores = createAppStores()
  const controller = new Controller(new FakeBridge(), stores)
  const { unmount } = render(
    <AppContext.Provider value={{ controller, stores }}>
      <ToolCard item={item} />
    </AppContext.Provider>,
  )
  const el = screen.getByRole('group', { name: 'Tool exec' })
  return { badge: el.querySelector('.badge')!.textContent, text: el.textContent ?? '', unmount }
}

describe('the tool card tells a command that did not run from one that failed', () => {
  it('from the runtime\'s result text (what a reloaded transcript has)', () => {
    const cases: Array<[string, string]> = [
      ['exec denied by user: the command was not run', 'Denied'],
      ['exec approval timed out: nobody approved the command, so it was not run', 'Approval timed out'],
      ['exec aborted', 'Stopped'],
      ['exec aborted: the command and its child processes were killed\n\nOutput so far:\nx', 'Stopped'],
      ['Operation aborted', 'Stopped'],
      ['Command exited with code 1\n\nerror: no such file', 'Failed'],
      ['exec timed out after 30s: the command and its child processes were killed', 'Failed'],
    ]
    for (const [result, label] of cases) {
      const c = card(call({ result: text(result) }))
      expect(c.badge, result).toBe(label)
      c.unmount()
    }
    const denied = card(call({ result: text('exec denied by user: the command was not run') }))
    expect(denied.text).toContain('Denied — the command was not run')
    denied.unmount()
    const late = card(call({ result: text('exec approval timed out: nobody approved the command, so it was not run') }))
    expect(late.text).toContain('Nobody answered the approval in time — the command was not run')
    late.unmount()
  })

  it('from the approval\'s answer, and keeps who decided once the approval card is gone', () => {
    const cases: Array<[Partial<ToolItem>, string, string | undefined]> = [
      [{ status: 'done', result: text('removed'), approval: { decision: 'allow-once', resolvedBy: 'user' } }, 'Done', 'Approved once'],
      [{ status: 'done', result: text('removed'), approval: { decision: 'allow-always', resolvedBy: 'user' } }, 'Done', 'Always allowed'],
      [{ status: 'failed', result: text('Command exited with code 2'), approval: { decision: 'allow-once', resolvedBy: 'user' } }, 'Failed', 'Approved once'],
      [{ result: text('some other wording'), approval: { decision: 'deny', resolvedBy: 'user' } }, 'Denied', 'Denied'],
      [{ result: text('some other wording'), approval: { decision: 'deny', resolvedBy: 'timeout' } }, 'Approval timed out', 'Nobody answered'],
      [{ result: text('exec aborted'), approval: { decision: 'deny', resolvedBy: 'abort' } }, 'Stopped', 'stopped while the approval waited'],
      [{ status: 'done', result: text('ok') }, 'Done', undefined],
      // a reloaded transcript: no approval event, the result's details say (tools/exec.ts details.approval)
      [{ status: 'done', result: { ...text('removed'), details: { exitCode: 0, approval: 'allow-once' } } }, 'Done', 'Approved once'],
      [{ status: 'done', result: { ...text('removed'), details: { approval: 'allow-always' } } }, 'Done', 'Always allowed'],
      [{ status: 'done', result: { ...text('removed'), details: { approval: 'allowed-before' } } }, 'Done', 'Allowed earlier in this session'],
      [{ status: 'done', result: { ...text('ok'), details: { approval: 'allowlist' } } }, 'Done', undefined],
    ]
    for (const [over, label, record] of cases) {
      const c = card(call(over))
      expect(c.badge).toBe(label)
      if (record) expect(c.text).toContain(record)
      else expect(c.text).not.toMatch(/Approved|allowed|Denied|answered/)
      c.unmount()
    }
  })

  it('end to end: Deny shows "Denied" (not "Failed"), Approve "Approved once" — still after the transcript is reloaded', async () => {
    const user = userEvent.setup({ delay: null })
    const { controller } = await renderApp({ seed })
    const tool = () => screen.getByRole('group', { name: 'Tool exec' })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve the cleanup{Enter}')
    let approval = await screen.findByRole('group', { name: 'Approval required' }, LONG)
    await user.click(within(approval).getByRole('button', { name: 'Deny' }))
    await waitFor(() => expect(tool().querySelector('.badge')).toHaveTextContent(/^Denied$/), LONG)
    expect(tool()).toHaveTextContent('Denied — the command was not run')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await act(() => controller.loadTranscript('agent:main:main'))
    expect(screen.queryByRole('group', { name: 'Approval required' })).toBeNull()
    expect(tool().querySelector('.badge')).toHaveTextContent(/^Denied$/)

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve it again{Enter}')
    await waitFor(() => expect(screen.getAllByRole('group', { name: 'Approval required' })).toHaveLength(1), LONG)
    approval = screen.getByRole('group', { name: 'Approval required' })
    await user.click(within(approval).getByRole('button', { name: 'Approve' }))
    const last = () => screen.getAllByRole('group', { name: 'Tool exec' }).at(-1)!
    await waitFor(() => expect(last()).toHaveTextContent('Done'), LONG)
    expect(last()).toHaveTextContent('Approved once')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await act(() => controller.loadTranscript('agent:main:main'))
    expect(screen.queryByRole('group', { name: 'Approval required' })).toBeNull()
    expect(last()).toHaveTextContent('Approved once')
    expect(screen.getAllByRole('group', { name: 'Tool exec' })[0].querySelector('.badge')).toHaveTextContent(/^Denied$/)
  })
})
