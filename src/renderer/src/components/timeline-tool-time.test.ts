// The Inspector timeline's tool durations leave an approval's wait out, as the tool card does.
import { describe, expect, it } from 'vitest'
import { EventLog } from '../state/event-log'
import { timelines } from '../state/run-timelines'
import { timelineToolTime } from './timeline-tool-time'

function run(opts: { decision?: 'allow-once' | 'deny'; details?: unknown; requestFirst?: boolean; result?: boolean }) {
  const log = new EventLog()
  let seq = 0
  const ev = (stream: string, data: Record<string, unknown>, ts: number) =>
    log.record('s', { event: 'agent', payload: { runId: 'r', seq: ++seq, stream: stream as 'tool', ts, data, sessionKey: 's' } })
  const request = () =>
    log.record('s', { event: 'exec.approval.requested', payload: { id: 'ap1', runId: 'r', sessionKey: 's', toolCallId: 'c', command: 'ls', cwd: '/w', createdAt: 1_010, expiresAt: 200_000 } })
  ev('lifecycle', { phase: 'start', startedAt: 900 }, 900)
  if (opts.requestFirst) request()
  ev('tool', { phase: 'start', name: 'exec', toolCallId: 'c' }, 1_000)
  if (!opts.requestFirst) request()
  if (opts.decision)
    log.record('s', { event: 'exec.approval.resolved', payload: { id: 'ap1', runId: 'r', sessionKey: 's', decision: opts.decision, resolvedBy: 'user', ts: 31_000 } })
  if (opts.result !== false)
    ev('tool', { phase: 'result', name: 'exec', toolCallId: 'c', isError: opts.decision === 'deny', result: { content: [], details: opts.details } }, opts.decision === 'deny' ? 31_000 : 31_100)
  const [t] = timelines(log.list('s'))
  return t.tools[0]
}

describe('a timeline tool step', () => {
  it('an approved command: its own run time, the wait said apart', () => {
    const tool = run({ decision: 'allow-once' })
    expect(tool.approval).toMatchObject({ askedAt: 1_010, decision: 'allow-once', resolvedAt: 31_000 })
    expect(timelineToolTime(tool)).toBe('100 ms · waited 30.0 s for approval')
  })

  it('exec\'s measured duration wins over the event gap, whichever event came first', () => {
    const tool = run({ decision: 'allow-once', details: { durationMs: 40, approval: 'allow-once' }, requestFirst: true })
    expect(timelineToolTime(tool)).toBe('40 ms · waited 30.0 s for approval')
  })

  it('a denied command did not run: only the wait', () => {
    expect(timelineToolTime(run({ decision: 'deny' }))).toBe('waited 30.0 s for approval')
  })

  it('still waiting says so, not "running"', () => {
    expect(timelineToolTime(run({ result: false }))).toBe('waiting for approval')
  })

  it('a call that asked nobody keeps its whole time', () => {
    const log = new EventLog()
    log.record('s', { event: 'agent', payload: { runId: 'r', seq: 1, stream: 'tool', ts: 1_000, data: { phase: 'start', name: 'read', toolCallId: 'c' }, sessionKey: 's' } })
    log.record('s', { event: 'agent', payload: { runId: 'r', seq: 2, stream: 'tool', ts: 3_500, data: { phase: 'result', name: 'read', toolCallId: 'c', isError: false }, sessionKey: 's' } })
    expect(timelineToolTime(timelines(log.list('s'))[0].tools[0])).toBe('2.5 s')
  })
})
