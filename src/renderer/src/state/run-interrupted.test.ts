// Regression (found by the faults suite, test/faults/ui-reconnect.test.ts): after a gateway crash the
// conversation reloaded from history showed the acknowledged-but-unanswered messages with no run status
// at all, and the sidebar showed the interrupted session as "Idle".
import { describe, expect, it } from 'vitest'
import type { HistoryMessage, SessionRow } from '../../../shared/methods'
import { sessionState } from '../components/Sidebar'
import { reduce } from './run-reducer'
import { emptyTranscript, type RunItem } from './types'

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
  })

  it('the sidebar shows an interrupted session as an error state (its lastError explains)', () => {
    // the wire row (OpenClaw status enum): an interrupted run is `failed` + `interrupted: true`
    const row = { key: SK, kind: 'direct', status: 'failed', interrupted: true, lastError: 'the run was interrupted' } as unknown as SessionRow
    expect(sessionState(row)).toBe('error')
    // idle rows carry no status at all
    expect(sessionState({ key: SK, kind: 'direct' } as unknown as SessionRow)).toBe('idle')
  })
})
