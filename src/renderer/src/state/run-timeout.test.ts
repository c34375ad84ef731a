// Regression (found by the faults suite, test/faults/model-faults.test.ts): a run stopped by its timeout
// was shown exactly like a run the user stopped ("Stopped"), so the user never learned it timed out.
import { describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import { reduce } from './run-reducer'
import { emptyTranscript, type RunItem } from './types'

const SK = 'agent:main:main'
const ev = (runId: string, seq: number, data: Record<string, unknown>): AgentEvent => ({ runId, seq, stream: 'lifecycle', ts: 1000 + seq, data, sessionKey: SK })
const runItem = (items: Array<{ kind: string }>) => items.find((i) => i.kind === 'run') as RunItem

describe('run timeout in the conversation', () => {
  it('lifecycle end {aborted, stopReason: timeout} shows an error saying the run timed out', () => {
    const t = reduce(emptyTranscript(SK), [
      { type: 'agent', event: ev('r1', 1, { phase: 'start', startedAt: 1000 }) },
      { type: 'agent', event: ev('r1', 2, { phase: 'end', endedAt: 3000, aborted: true, stopReason: 'timeout' }) },
    ])
    expect(runItem(t.items)).toMatchObject({ status: 'error', error: 'The run timed out and was stopped.' })
  })

  it('a user stop is still "stopped"', () => {
    const t = reduce(emptyTranscript(SK), [
      { type: 'agent', event: ev('r2', 1, { phase: 'start', startedAt: 1000 }) },
      { type: 'agent', event: ev('r2', 2, { phase: 'end', endedAt: 3000, aborted: true, stopReason: 'aborted' }) },
    ])
    expect(runItem(t.items)).toMatchObject({ status: 'stopped' })
  })

  it('the chat projection alone (aborted, stopReason timeout) shows the same error', () => {
    const chat: ChatEvent = { runId: 'r3', sessionKey: SK, seq: 2, state: 'aborted', stopReason: 'timeout', errorMessage: 'The run timed out and was stopped.' }
    const t = reduce(emptyTranscript(SK), [{ type: 'chat', event: chat }])
    expect(runItem(t.items)).toMatchObject({ status: 'error', error: 'The run timed out and was stopped.' })
  })
})
