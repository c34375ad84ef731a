// Audit (disk full mid-reply): the window showed the storage error with Retry but none of the reply it had just
// streamed. The run's end refetches history, which has only the message (the reply's line was refused), and a
// run found in history was drawn from history alone. A finished run whose history holds only its message is
// drawn from its events instead, when the ring has them whole: the streamed reply above the storage error.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import type { ChatHistoryPage, HistoryMessage } from '../../../shared/methods'
import { reduce } from './run-reducer'
import { emptyTranscript, type Transcript } from './types'

const SK = 'agent:main:full'
const FULL = 'Storage error (ENOSPC): the disk is full, so the conversation could not be saved and the run was stopped.'
const ev = (runId: string, seq: number, stream: string, data: Record<string, unknown>): AgentEvent => ({ runId, seq, stream, ts: 1000 + seq, data, sessionKey: SK }) as AgentEvent
const events = (runId: string): AgentEvent[] => [
  ev(runId, 1, 'lifecycle', { phase: 'start', startedAt: 1001 }),
  ev(runId, 2, 'assistant', { text: 'Half of ', delta: 'Half of ' }),
  ev(runId, 3, 'assistant', { text: 'Half of the reply', delta: 'the reply' }),
  ev(runId, 4, 'lifecycle', { phase: 'error', error: FULL, endedAt: 1004 }),
]
const userRow = (runId: string, text: string, ts: number): HistoryMessage => ({ id: `${runId}-u`, runId, role: 'user', timestamp: ts, content: [{ type: 'text', text }] })
const page = (messages: HistoryMessage[]): ChatHistoryPage => ({ sessionKey: SK, sessionId: 's1', messages, hasMore: false })
const shown = (t: Transcript) =>
  t.items.map((i) => (i.kind === 'assistant' ? `assistant:${i.text}` : i.kind === 'run' ? `run:${i.status}:${i.error ?? ''}` : i.kind === 'user' ? `user:${i.text}` : i.kind))

describe('a reply the disk refused', () => {
  it('keeps the streamed text above the storage error when the run end refetches history (message only)', () => {
    const live = reduce(emptyTranscript(SK), [{ type: 'local.send', id: 'r1', text: 'tell me', ts: 900 }, ...events('r1').map((event) => ({ type: 'agent' as const, event }))])
    expect(shown(live)).toEqual(['user:tell me', 'assistant:Half of the reply', `run:error:${FULL}`])
    const after = reduce(live, { type: 'hydrate', history: page([userRow('r1', 'tell me', 1000)]), recent: { events: events('r1'), approvals: [] } })
    expect(shown(after)).toEqual(['user:tell me', 'assistant:Half of the reply', `run:error:${FULL}`])
  })

  it('keeps what this window streamed when the ring has only the tail of the run (a long reply)', () => {
    const live = reduce(emptyTranscript(SK), [{ type: 'local.send', id: 'r1', text: 'tell me', ts: 900 }, ...events('r1').map((event) => ({ type: 'agent' as const, event }))])
    const after = reduce(live, { type: 'hydrate', history: page([userRow('r1', 'tell me', 1000)]), recent: { events: events('r1').slice(2), approvals: [] } })
    expect(shown(after)).toEqual(['user:tell me', 'assistant:Half of the reply', `run:error:${FULL}`])
    // a late duplicate of a streamed event changes nothing
    expect(shown(reduce(after, { type: 'agent', event: events('r1')[2] }))).toEqual(shown(after))
  })

  it('a reload reads the same from history and the ring', () => {
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page([userRow('r1', 'tell me', 1000)]), recent: { events: events('r1'), approvals: [] } })
    expect(shown(t)).toEqual(['user:tell me', 'assistant:Half of the reply', `run:error:${FULL}`])
  })

  it('also when its message opens the loaded page and was stamped after the run started', () => {
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page([userRow('r1', 'tell me', 5000)]), recent: { events: events('r1'), approvals: [] } })
    expect(shown(t)).toEqual(['user:tell me', 'assistant:Half of the reply', `run:error:${FULL}`])
  })

  it('a message recovery put back (no events of its run) still reads as interrupted', () => {
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page([userRow('r1', 'tell me', 1000)]), recent: { events: [], approvals: [] } })
    expect(t.items.find((i) => i.kind === 'run')).toMatchObject({ status: 'error', interrupted: true })
  })
})
