// A run whose model chose to say nothing (NO_REPLY) is a finished run with no reply — live and after a reload —
// not "Interrupted: Loopdesk stopped before this message was answered." with a Retry button.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import type { HistoryMessage } from '../../../shared/methods'
import { runStatusText } from '../components/Messages'
import { reduce, retryableRun } from './run-reducer'
import { emptyTranscript, type RunItem, type Transcript } from './types'

const SK = 'agent:main:quiet'
const user = (runId: string, ts: number): HistoryMessage =>
  ({ role: 'user', content: [{ type: 'text', text: 'thanks' }], timestamp: ts, id: `${runId}-u`, runId }) as HistoryMessage
/** the row history gives the window (silentReplies) for a NO_REPLY reply */
const silentRow = (runId: string, ts: number): HistoryMessage =>
  ({ role: 'assistant', content: [], silent: true, timestamp: ts, id: `${runId}-a`, runId, stopReason: 'stop' }) as HistoryMessage
const footer = (t: Transcript, runId: string) => t.items.find((i) => i.kind === 'run' && i.runId === runId) as RunItem | undefined
const hydrate = (messages: HistoryMessage[]) => reduce(emptyTranscript(SK), { type: 'hydrate', history: { sessionKey: SK, sessionId: 's', hasMore: false, messages } })

describe('a silent run', () => {
  it('after a reload: Done · No reply, no error, no Retry, no assistant text', () => {
    const t = hydrate([user('r1', 1), silentRow('r1', 2)])
    expect(footer(t, 'r1')).toMatchObject({ status: 'done', notice: 'silent' })
    expect(footer(t, 'r1')?.error).toBeUndefined()
    expect(runStatusText(footer(t, 'r1')!)).toMatch(/^Done · No reply/)
    expect(retryableRun(t)).toBeUndefined()
    expect(t.items.filter((i) => i.kind === 'assistant')).toEqual([])
  })

  it('a run that never answered still reads as interrupted (no silent row)', () => {
    const t = hydrate([user('r1', 1)])
    expect(footer(t, 'r1')).toMatchObject({ status: 'error', error: expect.stringContaining('Interrupted') })
    expect(retryableRun(t)).toBe('r1')
  })

  it('a run that showed something (a message card) and then said NO_REPLY: plain Done', () => {
    const call = {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'c1', name: 'message', arguments: { text: 'Progress: all done here.' } }],
      timestamp: 2,
      id: 'r1-a0',
      runId: 'r1',
      stopReason: 'toolUse',
    } as HistoryMessage
    const result = { role: 'toolResult', toolCallId: 'c1', toolName: 'message', content: [{ type: 'text', text: 'sent' }], timestamp: 3, id: 'r1-t', runId: 'r1' } as HistoryMessage
    const t = hydrate([user('r1', 1), call, result, silentRow('r1', 4)])
    expect(footer(t, 'r1')).toMatchObject({ status: 'done' })
    expect(footer(t, 'r1')?.notice).toBeUndefined()
  })

  it('live: lifecycle end silentReply gives the same footer as the reload', () => {
    const ev = (seq: number, stream: string, data: Record<string, unknown>): AgentEvent => ({ runId: 'r1', seq, stream, ts: seq, sessionKey: SK, data }) as AgentEvent
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'thanks', ts: 0 })
    t = reduce(t, { type: 'agent', event: ev(1, 'lifecycle', { phase: 'start', startedAt: 1 }) })
    t = reduce(t, { type: 'agent', event: ev(2, 'lifecycle', { phase: 'end', startedAt: 1, endedAt: 2, stopReason: 'stop', silentReply: true }) })
    expect(footer(t, 'r1')).toMatchObject({ status: 'done', notice: 'silent' })
    expect(t.items.filter((i) => i.kind === 'assistant')).toEqual([])
  })
})
