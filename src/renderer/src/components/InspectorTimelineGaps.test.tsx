// The Inspector's run timeline when the log misses some of a run's events. A run that ended while the window was
// not connected: no end event reached the log (a gateway restart loses them), but the conversation — read again
// from the runtime — knows how the run ended, and the timeline says so instead of "In progress" forever. A run
// joined in the middle: its start is not in the log, and "Started" still comes first.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AnyEvent } from '../../../shared/events'
import { endedAsConversation, type RunTimeline } from '../state/run-timelines'
import type { RunItem } from '../state/types'
import { ConnectedFake, LONG, renderApp, settle } from '../test-utils'
import { preloadInspector } from '../lazy-views'

beforeAll(async () => {
  await preloadInspector()
})
beforeEach(() => localStorage.clear())

/** A gateway connection that loses what is sent while it is down (the fake's events otherwise always arrive). */
class LossyFake extends ConnectedFake {
  subscribe(filter: Parameters<ConnectedFake['subscribe']>[0], listener: (event: AnyEvent) => void) {
    return super.subscribe(filter, (e) => {
      if (this.connection.state === 'open') listener(e)
    })
  }
}

const log = () => screen.getByRole('log', { name: 'Conversation' })
const footer = () => within(log()).getAllByRole('status').at(-1)!

describe('inspector: a run that ended out of sight', () => {
  it('its timeline ends as the conversation says (Stopped), not "In progress"', async () => {
    const bridge = new LossyFake({ tickMs: 1, scripts: [{ steps: [{ kind: 'text', text: 'Working' }, { kind: 'untilAborted' }] }] })
    await renderApp({}, bridge)
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Start{Enter}')
    await waitFor(() => expect(footer()).toHaveTextContent(/^Running/), LONG)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const timeline = () => within(panel).getByRole('list', { name: /Timeline of run/ })
    await waitFor(() => expect(timeline()).toHaveTextContent('In progress'), LONG)

    // the connection drops; meanwhile the run is stopped elsewhere (another window, the CLI) and ends
    act(() => bridge.set({ state: 'reconnecting' }))
    await bridge.abort({ sessionKey: 'agent:main:main' })
    await settle(100)
    act(() => bridge.set({ state: 'open' }))
    await waitFor(() => expect(footer()).toHaveTextContent(/^Stopped/), LONG)
    await waitFor(() => expect(timeline()).toHaveTextContent('Stopped'), LONG)
    expect(timeline()).not.toHaveTextContent('In progress')
  })
})

describe('endedAsConversation', () => {
  const t: RunTimeline = { runId: 'r1', tools: [], startedAt: 1000 }
  const footer = (f: Partial<RunItem>): RunItem => ({ kind: 'run', key: 'run:r1', runId: 'r1', ts: 0, status: 'running', ...f })
  it('ends a timeline without an end event as its footer says; a crash reads Interrupted', () => {
    expect(endedAsConversation(t, footer({ status: 'error', interrupted: true, endedAt: 4000 }))).toMatchObject({ outcome: 'error', interrupted: true, endedAt: 4000 })
    expect(endedAsConversation(t, footer({ status: 'done' }))).toMatchObject({ outcome: 'done' })
  })
  it('leaves a running run, a missing footer and an end the log has as they are', () => {
    expect(endedAsConversation(t, footer({ status: 'running' }))).toBe(t)
    expect(endedAsConversation(t, undefined)).toBe(t)
    const ended: RunTimeline = { ...t, outcome: 'stopped', endedAt: 2000 }
    expect(endedAsConversation(ended, footer({ status: 'error' }))).toBe(ended)
  })
})

describe('inspector: a run joined in the middle', () => {
  it('with no start event logged, its timeline still reads Started before First delta', async () => {
    const user = userEvent.setup({ delay: null })
    const { controller } = await renderApp()
    // what a window opened mid-run holds: the runtime's last few events of the run, its start not among them
    for (let seq = 40; seq < 43; seq++)
      controller.log.record('agent:main:main', { event: 'agent', payload: { runId: 'r-mid', seq, stream: 'assistant', ts: 1000 + seq, data: { text: 'x', delta: 'x' }, sessionKey: 'agent:main:main' } })
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const steps = within(within(panel).getByRole('list', { name: /Timeline of run/ })).getAllByRole('listitem').map((li) => li.textContent)
    expect(steps.map((s) => s?.replace(/[—+].*$/, ''))).toEqual(['Started', 'First delta', 'In progress'])
  })
})
