import { describe, expect, it } from 'vitest'
import type { AnyEvent } from '../../../shared/events'
import { eventSummary } from './event-summary'

const agent = (stream: string, data: Record<string, unknown>) =>
  eventSummary({ event: { event: 'agent', payload: { runId: 'r1', seq: 1, stream, ts: 0, data } } as AnyEvent } as never)

describe('eventSummary', () => {
  it("reads a run's approval, block and seq-gap events instead of printing their JSON", () => {
    expect(agent('approval', { phase: 'requested', id: 'a1', command: 'ls -la', cwd: '/w' })).toBe('requested: ls -la')
    expect(agent('approval', { phase: 'resolved', id: 'a1', decision: 'deny', resolvedBy: 'timeout' })).toBe('resolved: deny by timeout')
    expect(agent('block', { text: 'first paragraph' })).toBe('"first paragraph"')
    expect(agent('block', { text: 'why', isReasoning: true })).toBe('reasoning "why"')
    expect(agent('error', { reason: 'seq gap', expected: 4, received: 7 })).toBe('seq gap: expected #4, got #7')
  })
  it('a run waiting for a slot: what it waits for, in the footer\'s words', () => {
    expect(agent('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0 })).toBe('Waiting for a free slot — 4 other sessions are running (limit 4)')
    expect(agent('lane', { phase: 'waiting', lane: 'session', ahead: 0 })).toBe('Waiting for this session’s earlier run to finish')
  })

  it('reasoning blocks: start / end, the text only when the event has it (level on)', () => {
    expect(agent('reasoning', { phase: 'start' })).toBe('start')
    expect(agent('reasoning', { phase: 'end' })).toBe('end')
    expect(agent('reasoning', { phase: 'end', text: 'weigh it' })).toBe('end "weigh it"')
  })
  it('lifecycle and tool events as before', () => {
    expect(agent('lifecycle', { phase: 'end', aborted: true })).toBe('end (aborted)')
    expect(agent('tool', { phase: 'result', name: 'exec', isError: true })).toBe('result exec (error)')
  })
})
