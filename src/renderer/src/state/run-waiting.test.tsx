// A run accepted but not started (the runtime's `lane` stream: every global slot is taken, or its session's
// earlier run still goes) says so in its footer, and its session's sidebar row and the header read "Waiting for a
// slot" — not "Running…" in the conversation and "Idle" everywhere else. Lifecycle start turns it into Running.
import { act, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { runStatusText } from '../components/Messages'
import { renderApp } from '../test-utils'
import { reduce } from './run-reducer'
import { emptyTranscript, type RunItem, type Transcript } from './types'

const SK = 'agent:main:main'
const run = (runId: string, sessionKey = SK) => {
  let seq = 0
  return (stream: AgentEvent['stream'], data: Record<string, unknown>, ts: number): AgentEvent => ({ runId, seq: ++seq, stream, ts, data, sessionKey })
}
const apply = (t: Transcript, ...evs: AgentEvent[]) => reduce(t, evs.map((event) => ({ type: 'agent' as const, event })))
const footer = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run')!
const sent = () => reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'go', ts: 1 })

beforeEach(() => localStorage.clear())

describe('a run waiting for a slot', () => {
  it('the footer names what it waits for, without a timer, until the run starts', () => {
    const ev = run('r1')
    let t = apply(sent(), ev('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0 }, 1_000))
    expect(runStatusText(footer(t), 5_000)).toBe('Waiting for a free slot — 4 other sessions are running (limit 4)')
    t = apply(t, ev('lifecycle', { phase: 'start', startedAt: 6_000 }, 6_000))
    expect(footer(t).waiting).toBeUndefined()
    expect(runStatusText(footer(t), 6_500)).toBe('Running… · 500 ms')
  })

  it('others queued before it, one other session, and a session lane wait read as such', () => {
    const w = (data: Record<string, unknown>) => runStatusText(footer(apply(sent(), run('r1')('lane', { phase: 'waiting', ...data }, 1_000))))
    expect(w({ lane: 'global', running: 2, limit: 2, ahead: 3 })).toBe('Waiting for a free slot — 2 other sessions are running (limit 2, 3 more waiting before this one)')
    expect(w({ lane: 'global', running: 1, limit: 1, ahead: 0 })).toBe('Waiting for a free slot — 1 other session is running (limit 1)')
    expect(w({ lane: 'session', ahead: 0 })).toBe('Waiting for this session’s earlier run to finish')
    expect(w({ lane: 'elsewhere' })).toBe('Running…')
  })

  it('cancelled while it waited: Stopped, no longer waiting', () => {
    const ev = run('r1')
    const t = apply(sent(), ev('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0 }, 1_000), ev('lifecycle', { phase: 'end', endedAt: 2_000, aborted: true }, 2_000))
    expect(footer(t).waiting).toBeUndefined()
    expect(runStatusText(footer(t))).toMatch(/^Stopped/)
  })

  it('after a reload: the runtime’s ring replays the lane event, so the footer waits again instead of "Running…"', () => {
    for (const inFlightRun of [undefined, { runId: 'r9', text: '' }]) {
      const ev = run('r9')
      const lane = ev('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0 }, 1_000)
      let t = reduce(emptyTranscript(SK), {
        type: 'hydrate',
        history: { sessionKey: SK, sessionId: 's', hasMore: false, messages: [], ...(inFlightRun ? { inFlightRun } : {}) },
        recent: { events: [lane], approvals: [] },
      })
      const f = t.items.find((i): i is RunItem => i.kind === 'run' && i.runId === 'r9')!
      expect(f.status).toBe('pending')
      expect(runStatusText(f, 2_000)).toBe('Waiting for a free slot — 4 other sessions are running (limit 4)')
      t = apply(t, ev('lifecycle', { phase: 'start', startedAt: 3_000 }, 3_000))
      expect(runStatusText(footer(t), 3_100)).toBe('Running… · 100 ms')
    }
  })

  it('the sidebar row and the header say "Waiting for a slot", open or not, until the run starts', async () => {
    const seed = [
      { key: 'agent:main:main', label: 'Main', messages: 2 },
      { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
    ]
    const { bridge } = await renderApp({ seed })
    const row = (title: string) => within(screen.getByRole('navigation', { name: 'Sessions' })).getByText(title).closest('li')!
    const header = () => screen.getByRole('banner')
    const taxes = run('rt', 'agent:main:taxes')
    const main = run('rm', 'agent:main:main')
    act(() => {
      bridge.inject({ event: 'agent', payload: taxes('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0 }, Date.now()) })
      bridge.inject({ event: 'agent', payload: main('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 1 }, Date.now()) })
    })
    await waitFor(() => expect(row('Tax questions')).toHaveTextContent('Waiting for a slot'))
    expect(row('Tax questions')).not.toHaveTextContent('Idle')
    expect(row('Main')).toHaveTextContent('Waiting for a slot')
    expect(header()).toHaveTextContent('Waiting for a slot')
    act(() => bridge.inject({ event: 'agent', payload: taxes('lifecycle', { phase: 'start', startedAt: Date.now() }, Date.now()) }))
    await waitFor(() => expect(row('Tax questions')).not.toHaveTextContent('Waiting'))
    expect(row('Main')).toHaveTextContent('Waiting for a slot')
    act(() => bridge.inject({ event: 'agent', payload: main('lifecycle', { phase: 'end', endedAt: Date.now(), aborted: true }, Date.now()) }))
    await waitFor(() => expect(header()).not.toHaveTextContent('Waiting'))
  })
})
