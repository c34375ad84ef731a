// A run accepted but not started (the runtime's `lane` stream: every global slot is taken, or its session's
// earlier run still goes) says so in its footer, and its session's sidebar row and the header read "Waiting for a
// slot" — not "Running…" in the conversation and "Idle" everywhere else. Lifecycle start turns it into Running.
import { act, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import type { HistoryMessage } from '../../../shared/methods'
import { buildCollectPrompt } from '../../../shared/collect-prompt'
import { runStatusText } from '../components/Messages'
import { renderApp } from '../test-utils'
import { reduce } from './run-reducer'
import { emptyTranscript, type RunItem, type Transcript, type UserItem } from './types'

const SK = 'agent:main:main'
const run = (runId: string, sessionKey = SK) => {
  let seq = 0
  return (stream: AgentEvent['stream'], data: Record<string, unknown>, ts: number): AgentEvent => ({ runId, seq: ++seq, stream, ts, data, sessionKey })
}
const apply = (t: Transcript, ...evs: AgentEvent[]) => reduce(t, evs.map((event) => ({ type: 'agent' as const, event })))
const footer = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run')!
const footer9 = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run' && i.runId === 'r9')!
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

  it('after a reload: the waiting message shows (the lane event carries it), once, and once still after the run starts', () => {
    const message = 'look at this\n\n[File attached: notes.txt (text/plain, 10 bytes) saved at /s/media/notes.txt]'
    const ev = run('r9')
    const lane = ev('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0, message }, 1_000)
    const users = (t: Transcript) => t.items.filter((i): i is UserItem => i.kind === 'user')
    const earlier: HistoryMessage[] = [
      { id: 'u0', runId: 'r0', role: 'user', timestamp: 100, content: [{ type: 'text', text: 'earlier' }] },
      { id: 'a0', runId: 'r0', role: 'assistant', timestamp: 200, content: [{ type: 'text', text: 'sure' }] },
    ]
    const page = (messages: HistoryMessage[], inFlightRun?: { runId: string; text: string }) => ({ sessionKey: SK, sessionId: 's', hasMore: false, messages, ...(inFlightRun ? { inFlightRun } : {}) })
    const hydrate = (t: Transcript, messages: HistoryMessage[], events: AgentEvent[], inFlightRun?: { runId: string; text: string }) =>
      reduce(t, { type: 'hydrate', history: page(messages, inFlightRun), recent: { events, approvals: [] } })
    // the reload: history has only the earlier run; the ring has the wait
    let t = hydrate(emptyTranscript(SK), earlier, [lane])
    expect(users(t).map((u) => [u.runId, u.text])).toEqual([
      ['r0', 'earlier'],
      ['r9', message],
    ])
    // the message sits above its waiting footer
    const at = (key: string) => t.items.findIndex((i) => i.key === key)
    expect(at(users(t)[1].key)).toBe(at(footer9(t).key) - 1)
    expect(runStatusText(footer9(t), 2_000)).toMatch(/^Waiting for a free slot/)
    // a refetch while it still waits: still once
    t = hydrate(t, earlier, [lane])
    expect(users(t).filter((u) => u.runId === 'r9')).toHaveLength(1)
    // the run starts and replies; the transcript gets the real user turn
    const start = ev('lifecycle', { phase: 'start', startedAt: 3_000 }, 3_000)
    const reply = ev('assistant', { text: 'done', delta: 'done' }, 3_100)
    t = apply(t, start, reply)
    expect(users(t).filter((u) => u.runId === 'r9')).toHaveLength(1)
    const withTurn = [...earlier, { id: 'u9', runId: 'r9', role: 'user' as const, timestamp: 3_000, content: [{ type: 'text', text: message }] }]
    // a refetch mid-run (history has the user turn, the run is in flight) and the end-of-run one: once
    t = hydrate(t, withTurn, [lane, start, reply], { runId: 'r9', text: 'done' })
    expect(users(t).filter((u) => u.runId === 'r9').map((u) => u.text)).toEqual([message])
    const end = ev('lifecycle', { phase: 'end', endedAt: 4_000 }, 4_000)
    t = apply(t, end)
    const done = [...withTurn, { id: 'a9', runId: 'r9', role: 'assistant' as const, timestamp: 3_100, content: [{ type: 'text', text: 'done' }] }]
    t = hydrate(t, done, [lane, start, reply, end])
    expect(users(t).map((u) => [u.runId, u.text])).toEqual([
      ['r0', 'earlier'],
      ['r9', message],
    ])
    expect(footer9(t).status).toBe('done')
  })

  it('stopped while it waited behind its session’s running reply: the message and "Stopped", live and once the runtime wrote them after that reply', () => {
    const users = (t: Transcript) => t.items.filter((i): i is UserItem => i.kind === 'user')
    const running: HistoryMessage[] = [{ id: 'u0', runId: 'r0', role: 'user', timestamp: 100, content: [{ type: 'text', text: 'first' }] }]
    const ev = run('r9')
    const lane = ev('lane', { phase: 'waiting', lane: 'session', ahead: 0, message: 'second' }, 1_000)
    const end = ev('lifecycle', { phase: 'end', endedAt: 1_500, aborted: true, stopReason: 'aborted' }, 1_500)
    const page = (messages: HistoryMessage[]) => ({ type: 'hydrate' as const, history: { sessionKey: SK, sessionId: 's', hasMore: false, messages }, recent: { events: [lane, end], approvals: [] } })
    // live, in a window that did not send it (the lane event carries the message)
    const t = reduce(reduce(emptyTranscript(SK), page(running)), [lane, end].map((event) => ({ type: 'agent' as const, event })))
    expect(users(t).map((u) => [u.runId, u.text])).toEqual([
      ['r0', 'first'],
      ['r9', 'second'],
    ])
    expect(runStatusText(footer9(t))).toMatch(/^Stopped/)
    // the running reply ended; the runtime then wrote the stopped message after it: a reload reads the same, once
    const written: HistoryMessage[] = [
      ...running,
      { id: 'a0', runId: 'r0', role: 'assistant', timestamp: 200, content: [{ type: 'text', text: 'the first answer' }] },
      { id: 'u9', runId: 'r9', role: 'user', timestamp: 1_000, content: [{ type: 'text', text: 'second' }] },
      { id: 'a9', runId: 'r9', role: 'assistant', timestamp: 2_000, content: [], stopReason: 'aborted' } as HistoryMessage,
    ]
    for (const from of [t, emptyTranscript(SK)]) {
      const r = reduce(from, page(written))
      expect(users(r).map((u) => [u.runId, u.text])).toEqual([
        ['r0', 'first'],
        ['r9', 'second'],
      ])
      expect(runStatusText(footer9(r))).toMatch(/^Stopped/)
      const at = (key: string) => r.items.findIndex((i) => i.key === key)
      expect(at(users(r)[1].key)).toBeGreaterThan(at(r.items.find((i) => i.kind === 'run' && i.runId === 'r0')!.key))
    }
  })

  it('the window that sent it keeps its own bubble (no second one); a queued batch waiting shows its messages', () => {
    let t = apply(sent(), run('r1')('lane', { phase: 'waiting', lane: 'session', ahead: 0, message: 'go' }, 1_000))
    expect(t.items.filter((i) => i.kind === 'user').map((u) => u.text)).toEqual(['go'])
    const batch = buildCollectPrompt(['also this', 'and that'])
    t = apply(emptyTranscript(SK), run('rb')('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0, message: batch }, 1_000))
    expect(t.items.filter((i): i is UserItem => i.kind === 'user').map((u) => [u.text, u.via])).toEqual([
      ['also this', 'collect'],
      ['and that', 'collect'],
    ])
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
