// Regression (window probe): removing a queued follow-up left an orange "Stopped" pill with no message under
// the running reply, live and after a reload. The runtime closes the removed message's run id with lifecycle
// end {aborted, stopReason:"removed"} (and its chat projection "aborted") with no start before it, so
// agent.wait and chat clients on that id settle; the conversation has nothing to show for it.
import { describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import type { ChatHistoryPage, HistoryMessage } from '../../../shared/methods'
import { reduce } from './run-reducer'
import { emptyTranscript, type Transcript } from './types'

const SK = 'agent:main:main'
const life = (runId: string, seq: number, data: Record<string, unknown>): AgentEvent => ({ runId, seq, stream: 'lifecycle', ts: 1000 + seq, data, sessionKey: SK })
const text = (runId: string, seq: number, t: string): AgentEvent => ({ runId, seq, stream: 'assistant', ts: 1000 + seq, data: { text: t, delta: t }, sessionKey: SK })
const removedEnd = (runId: string) => life(runId, 1, { phase: 'end', endedAt: 1500, aborted: true, stopReason: 'removed', reason: 'removed by user' })
const removedChat = (runId: string): ChatEvent => ({ runId, sessionKey: SK, seq: 1, state: 'aborted', stopReason: 'removed' })
const runsOf = (t: Transcript) => t.items.filter((i) => i.kind === 'run').map((i) => i.runId)

/** the reply running while the follow-up was queued (and then removed) */
const running = () =>
  reduce(emptyTranscript(SK), [
    { type: 'local.send', id: 'r1', text: 'first', ts: 900 },
    { type: 'agent', event: life('r1', 1, { phase: 'start', startedAt: 1000 }) },
    { type: 'agent', event: text('r1', 2, 'working') },
  ])

describe('a removed queued message', () => {
  it('draws no run, live: its lifecycle end and its chat "aborted" leave only the running reply', () => {
    const t = reduce(running(), [
      { type: 'agent', event: removedEnd('q1') },
      { type: 'chat', event: removedChat('q1') },
    ])
    expect(runsOf(t)).toEqual(['r1'])
    expect(t.items.some((i) => i.runId === 'q1')).toBe(false)
  })

  it('draws no run when only the chat projection arrives', () => {
    const t = reduce(running(), { type: 'chat', event: removedChat('q2') })
    expect(runsOf(t)).toEqual(['r1'])
  })

  it('draws no run after the running reply ends', () => {
    const t = reduce(running(), [
      { type: 'agent', event: removedEnd('q1') },
      { type: 'agent', event: life('r1', 3, { phase: 'end', endedAt: 2000 }) },
    ])
    expect(runsOf(t)).toEqual(['r1'])
    expect(t.items.find((i) => i.kind === 'run')).toMatchObject({ status: 'done' })
  })

  it('draws no run after a reload (history + the recent-event ring)', () => {
    const msgs: HistoryMessage[] = [
      { id: 'u1', runId: 'r1', role: 'user', timestamp: 1000, content: [{ type: 'text', text: 'first' }] },
      { id: 'a1', runId: 'r1', role: 'assistant', timestamp: 1010, content: [{ type: 'text', text: 'working' }] },
    ]
    const history: ChatHistoryPage = { sessionKey: SK, sessionId: 's1', messages: msgs, hasMore: false }
    const events = [life('r1', 1, { phase: 'start', startedAt: 1000 }), text('r1', 2, 'working'), { ...removedEnd('q1'), ts: 1600 }, life('r1', 3, { phase: 'end', endedAt: 2000 })]
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history, recent: { events, approvals: [] } })
    expect(runsOf(t)).toEqual(['r1'])
    // and its late duplicate (a live event after the reload) is still nothing
    expect(runsOf(reduce(t, { type: 'agent', event: removedEnd('q1') }))).toEqual(['r1'])
  })

  it('a run this window sent and stopped before it started still says "Stopped"', () => {
    const t = reduce(emptyTranscript(SK), [
      { type: 'local.send', id: 'r9', text: 'hello', ts: 900 },
      { type: 'agent', event: life('r9', 1, { phase: 'end', endedAt: 1500, aborted: true, stopReason: 'aborted' }) },
    ])
    expect(t.items.find((i) => i.kind === 'run')).toMatchObject({ runId: 'r9', status: 'stopped' })
  })
})
