// A screen reader hears a run's state changes once each, not its ticking seconds or streaming text.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LONG, renderApp } from '../test-utils'
import { laneWaitText } from '../../../shared/lane-wait-text'
import type { RunItem } from '../state/types'
import { runAnnouncement } from './RunAnnouncer'
import { preloadSettings } from '../lazy-views'

beforeAll(async () => {
  await preloadSettings()
})

beforeEach(() => localStorage.clear())

const announcer = () => document.querySelector<HTMLElement>('.run-announcer')!

/** Every text the announcer held, in order, without repeats. */
function record(): string[] {
  const seen: string[] = []
  const note = () => {
    const t = announcer().textContent ?? ''
    if (seen.at(-1) !== t) seen.push(t)
  }
  note()
  new MutationObserver(note).observe(announcer(), { subtree: true, childList: true, characterData: true })
  return seen
}

describe('run announcements', () => {
  it('says Running, Waiting for approval and Done once each; the ticking footer is not a live region', async () => {
    await renderApp()
    const user = userEvent.setup({ delay: null })
    expect(announcer()).toHaveAttribute('role', 'status')
    expect(announcer().closest('[role=log]')).toBeNull() // outside the log, which is aria-busy while streaming
    const seen = record()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve the cleanup{Enter}')
    const card = await screen.findByRole('group', { name: 'Approval required' }, LONG)
    await waitFor(() => expect(announcer()).toHaveTextContent('Waiting for approval'))
    const footer = within(screen.getByRole('log')).getAllByRole('status').at(-1)!
    expect(footer).toHaveAttribute('aria-live', 'off')
    await user.click(within(card).getByRole('button', { name: 'Approve' }))
    await waitFor(() => expect(announcer()).toHaveTextContent(/^Done$/), LONG)
    expect(seen).toEqual(['', 'Running', 'Waiting for approval: the agent wants to run a command', 'Running', 'Done'])
  })

  it('a run that ends while Settings is open is still announced: the announcer is not made inert', async () => {
    const { controller, stores } = await renderApp()
    const user = userEvent.setup({ delay: null })
    const seen = record()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve the cleanup{Enter}')
    await screen.findByRole('group', { name: 'Approval required' }, LONG)
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    // the conversation behind it is inert, the live region in it is not (inert takes it out of the a11y tree)
    expect(screen.getByRole('log', { name: 'Conversation' }).closest('[inert]')).not.toBeNull()
    expect(announcer().closest('[inert]')).toBeNull()
    const key = stores.sessions.getState().selectedKey!
    const [id] = Object.keys(stores.sessions.getState().pendingApprovals[key])
    await act(() => controller.resolveApproval(key, id, 'allow-once'))
    await waitFor(() => expect(announcer()).toHaveTextContent(/^Done$/), LONG)
    expect(dialog).toBeInTheDocument()
    expect(announcer().closest('[inert]')).toBeNull()
    expect(seen.at(-1)).toBe('Done')
  })

  it('a session opened on a finished run says nothing until something changes', async () => {
    await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main', messages: 2 }] })
    const log = await screen.findByRole('log')
    await waitFor(() => expect(within(log).getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    expect(announcer()).toHaveTextContent(/^$/)
  })
})

describe('runAnnouncement', () => {
  const run = (over: Partial<RunItem>): RunItem => ({ kind: 'run', id: 'r1', runId: 'r1', status: 'pending', ...over }) as RunItem

  it('a run waiting for a slot says what it waits for, then Running once it starts', () => {
    const waiting = run({ waiting: { lane: 'global', running: 4, limit: 4, ahead: 0 } })
    expect(runAnnouncement(waiting, 0)).toBe(laneWaitText({ lane: 'global', running: 4, limit: 4, ahead: 0 }))
    expect(runAnnouncement(run({ status: 'running' }), 0)).toBe('Running')
  })

  it('a live run while the gateway is away says the connection is lost; a finished one keeps its outcome', () => {
    expect(runAnnouncement(run({ status: 'running' }), 0, true)).toBe('Connection lost, waiting for the gateway')
    expect(runAnnouncement(run({ status: 'done' }), 0, true)).toBe('Done')
  })

  it('a silent run says there was no reply', () => {
    expect(runAnnouncement(run({ status: 'done', notice: 'silent' }), 0)).toBe('Done: no reply')
  })
})
