// Regression (found by the faults suite, test/faults/ui-reconnect.test.ts): after a gateway crash the
// conversation reloaded from history showed the acknowledged-but-unanswered messages with no run status
// at all, and the sidebar showed the interrupted session as "Idle".
import { describe, expect, it } from 'vitest'
import type { HistoryMessage, SessionRow } from '../../../shared/methods'
import { runStatusText } from '../components/Messages'
import { sessionState } from '../components/Sidebar'
import { reduce, retryableRun } from './run-reducer'
import { emptyTranscript, type AssistantItem, type RunItem } from './types'

const SK = 'agent:main:ui'
const user = (runId: string, text: string, ts: number): HistoryMessage =>
  ({ role: 'user', content: [{ type: 'text', text }], timestamp: ts, id: `${runId}-u`, runId }) as HistoryMessage
const assistant = (runId: string, text: string, ts: number): HistoryMessage =>
  ({ role: 'assistant', content: [{ type: 'text', text }], timestamp: ts, id: `${runId}-a`, runId, stopReason: 'stop' }) as HistoryMessage

describe('history after a crash', () => {
  it('a run with a message but no reply shows as interrupted; answered runs and the in-flight run do not', () => {
    const history = {
      sessionKey: SK,
      sessionId: 's',
      hasMore: false,
      messages: [user('r0', 'earlier', 1), assistant('r0', 'answer', 2), user('r1', 'cut off', 3), user('r2', 'queued behind', 4), user('r3', 'running now', 5)],
      inFlightRun: { runId: 'r3', text: '' },
    }
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history })
    const footer = (runId: string) => t.items.find((i) => i.kind === 'run' && i.runId === runId) as RunItem | undefined
    expect(footer('r0')).toMatchObject({ status: 'done' })
    expect(footer('r1')).toMatchObject({ status: 'error', error: expect.stringContaining('Interrupted') })
    expect(footer('r2')).toMatchObject({ status: 'error', error: expect.stringContaining('Interrupted') })
    expect(footer('r3')?.status).not.toBe('error')
    // never answered, nothing known of when it stopped: no made-up "0 ms"
    expect(runStatusText(footer('r1')!)).toBe('Interrupted: Loopdesk stopped before this message was answered.')
  })

  // what runtime recovery (runner/recovery.ts) writes for a run a crash cut off
  const closing = (runId: string, text: string, ts: number, at: number, errorMessage: string): HistoryMessage =>
    ({
      role: 'assistant',
      content: text ? [{ type: 'text', text }] : [],
      timestamp: ts,
      completedAt: at,
      id: `${runId}-x`,
      runId,
      stopReason: 'error',
      errorMessage,
      interrupted: true,
    }) as HistoryMessage
  const hydrate = (messages: HistoryMessage[]) =>
    reduce(emptyTranscript(SK), { type: 'hydrate', history: { sessionKey: SK, sessionId: 's', hasMore: false, messages } })

  it('a reply cut off mid-stream keeps its text, reads Interrupted with its real duration, and can be retried', () => {
    const t = hydrate([user('r1', 'tell me', 1000), closing('r1', 'Once upon a', 1200, 3300, 'Interrupted: Loopdesk stopped while this reply was being written.')])
    const seg = t.items.find((i) => i.kind === 'assistant') as AssistantItem
    expect(seg.text).toBe('Once upon a')
    const run = t.items.find((i) => i.kind === 'run') as RunItem
    expect(run).toMatchObject({ status: 'error', interrupted: true, startedAt: 1000, endedAt: 3300 })
    expect(runStatusText(run)).toBe('Interrupted: Loopdesk stopped while this reply was being written. · 2.3 s')
    expect(retryableRun(t)).toBe('r1')
  })

  /** run r1's first turn: some text, then an exec call */
  const checkingWithTool = {
    role: 'assistant',
    content: [{ type: 'text', text: 'Checking.' }, { type: 'toolCall', id: 'c1', name: 'exec', arguments: {} }],
    timestamp: 1100,
    id: 'a1',
    runId: 'r1',
    stopReason: 'toolUse',
  } as HistoryMessage

  it('a run cut off after some tools is Interrupted with Retry, not Done', () => {
    const t = hydrate([
      user('r1', 'check then tell', 1000),
      checkingWithTool,
      { role: 'toolResult', content: [{ type: 'text', text: 'ok' }], timestamp: 1500, id: 't1', runId: 'r1', toolCallId: 'c1', isError: false } as HistoryMessage,
      closing('r1', 'The check', 1600, 3300, 'Interrupted: Loopdesk stopped while this reply was being written.'),
    ])
    expect(t.items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'done' })
    const run = t.items.find((i) => i.kind === 'run') as RunItem
    expect(run).toMatchObject({ status: 'error', interrupted: true })
    expect(runStatusText(run)).toMatch(/^Interrupted: /)
    expect(retryableRun(t)).toBe('r1')
  })

  it('a run an older recovery left ending on its tool turn (chat.history marks that row) is Interrupted, not Done', () => {
    // runner/interrupted-before.ts: the tool turn's row carries interrupted + the error; stopReason stays toolUse
    const t = hydrate([
      user('r1', 'check then tell', 1000),
      { ...checkingWithTool, interrupted: true, errorMessage: 'Interrupted: Loopdesk stopped before this run finished.' } as HistoryMessage,
      { role: 'toolResult', content: [{ type: 'text', text: 'Tool result missing: the run was interrupted before this tool finished.' }], timestamp: 9000, id: 't1', runId: 'r1', toolCallId: 'c1', isError: true } as HistoryMessage,
    ])
    const run = t.items.find((i) => i.kind === 'run') as RunItem
    expect(run).toMatchObject({ status: 'error', interrupted: true })
    expect(runStatusText(run)).toMatch(/^Interrupted: Loopdesk stopped before this run finished\./)
    expect(retryableRun(t)).toBe('r1')
  })

  it('the sidebar shows an interrupted session as an error state (its lastError explains)', () => {
    // the wire row (OpenClaw status enum): an interrupted run is `failed` + `interrupted: true`
    const row = { key: SK, kind: 'direct', status: 'failed', interrupted: true, lastError: 'the run was interrupted' } as unknown as SessionRow
    expect(sessionState(row)).toBe('error')
    // idle rows carry no status at all
    expect(sessionState({ key: SK, kind: 'direct' } as unknown as SessionRow)).toBe('idle')
  })

  it('live after a reconnect: the run the window watched stream becomes Interrupted with Retry once history is reloaded', () => {
    let seq = 0
    const ev = (stream: string, data: Record<string, unknown>, ts: number) =>
      ({ type: 'agent', event: { runId: 'r1', seq: ++seq, stream, ts, data, sessionKey: SK } }) as const
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'check then tell', ts: 1000 })
    for (const a of [
      ev('lifecycle', { phase: 'start', startedAt: 1000 }, 1000),
      ev('assistant', { text: 'Checking.', delta: 'Checking.' }, 1100),
      ev('tool', { phase: 'start', name: 'exec', toolCallId: 'c1', args: {} }, 1200),
      ev('tool', { phase: 'result', name: 'exec', toolCallId: 'c1', result: { content: [] }, isError: false }, 1500),
      ev('assistant', { text: 'The check', delta: 'The check' }, 1600),
    ]) {
      t = reduce(t, a as never)
    }
    expect((t.items.find((i) => i.kind === 'run') as RunItem).status).toBe('running')
    // the gateway died and came back: the window reloads the session (no run in flight any more)
    t = reduce(t, {
      type: 'hydrate',
      history: {
        sessionKey: SK,
        sessionId: 's',
        hasMore: false,
        messages: [
          user('r1', 'check then tell', 1000),
          checkingWithTool,
          { role: 'toolResult', content: [], timestamp: 1500, id: 't1', runId: 'r1', toolCallId: 'c1', isError: false } as HistoryMessage,
          closing('r1', 'The check', 1600, 2300, 'Interrupted: Loopdesk stopped while this reply was being written.'),
        ],
      },
    })
    const run = t.items.find((i) => i.kind === 'run') as RunItem
    expect(run).toMatchObject({ status: 'error', interrupted: true })
    expect(t.items.filter((i) => i.kind === 'assistant').map((i) => (i as AssistantItem).text)).toEqual(['Checking.', 'The check'])
    expect(retryableRun(t)).toBe('r1')
  })
})
