import { describe, expect, it } from 'vitest'
import type { QueueItem } from '../../../shared/events'
import type { TranscriptEntry } from '../contracts'
import { PENDING_INPUTS_PAGE, inputReceipts, pendingInputsPage, type InputState } from './pending-inputs'

const KEY = 'agent:main:main'
const item = (n: number, over: Partial<QueueItem> = {}): QueueItem => ({
  id: `q${n}`,
  sessionKey: KEY,
  mode: 'followup',
  text: `message ${n}`,
  enqueuedAt: 1000 + n,
  status: 'queued',
  runId: `run-${n}`,
  ...over,
})
const user = (id: string, runId: string, text: string): TranscriptEntry => ({
  type: 'message',
  id,
  timestamp: 1,
  runId,
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 },
})

describe('pendingInputs', () => {
  it('waiting items only, oldest first, as user messages', () => {
    const page = pendingInputsPage([item(2), item(1), item(3, { status: 'started' }), item(4, { status: 'removed' })])
    expect(page).toEqual({
      total: 2,
      items: [1, 2].map((n) => ({
        id: `q${n}`,
        runId: `run-${n}`,
        message: { role: 'user', content: [{ type: 'text', text: `message ${n}` }], timestamp: 1000 + n },
        acceptedAt: 1000 + n,
        state: 'queued',
      })),
    })
    expect(pendingInputsPage([])).toEqual({ items: [], total: 0 })
  })

  it(`pages of ${PENDING_INPUTS_PAGE} backwards with pendingBefore / nextBefore`, () => {
    const all = Array.from({ length: 25 }, (_, i) => item(i + 1))
    const p1 = pendingInputsPage(all)
    expect(p1.items.map((i) => i.id)).toEqual(all.slice(5).map((i) => i.id))
    expect(p1).toMatchObject({ total: 25, nextBefore: 6 })
    const p2 = pendingInputsPage(all, p1.nextBefore)
    expect(p2.items.map((i) => i.id)).toEqual(['q1', 'q2', 'q3', 'q4', 'q5'])
    expect(p2).not.toHaveProperty('nextBefore')
    expect(pendingInputsPage(all, 1)).toEqual({ items: [], total: 25 })
    expect(pendingInputsPage(all, 1000).items).toHaveLength(PENDING_INPUTS_PAGE)
  })
})

describe('inputReceipts', () => {
  const state = (over: Partial<InputState>): InputState => ({ entries: [], itemFor: () => undefined, isTracked: () => false, ...over })

  it('consumed by the user message of its own run; pending while queued or its run has not written it; unknown ones left out', () => {
    const s = state({
      entries: [user('e1', 'done', 'hi'), user('e2', 'done', 'again')],
      itemFor: (r) => (r === 'waiting' ? item(1, { runId: 'waiting' }) : undefined),
      isTracked: (r) => r === 'starting',
    })
    expect(inputReceipts(['waiting', 'done', 'nobody', 'starting'], s)).toEqual([
      { runId: 'waiting', state: 'pending' },
      { runId: 'done', state: 'consumed', consumedByEventId: 'e1' },
      { runId: 'starting', state: 'pending' },
    ])
  })

  it('a collected message is consumed by its batch run; a steered one by the user message with its text', () => {
    const s = state({
      entries: [user('b1', 'batch', 'collected prompt'), user('a1', 'active', 'first'), user('a2', 'active', 'steer me')],
      itemFor: (r) =>
        r === 'folded' ? item(1, { status: 'collected', runId: 'batch' }) : r === 'steered' ? item(2, { status: 'steered', runId: 'active', text: 'steer me' }) : undefined,
    })
    expect(inputReceipts(['folded', 'steered'], s)).toEqual([
      { runId: 'folded', state: 'consumed', consumedByEventId: 'b1' },
      { runId: 'steered', state: 'consumed', consumedByEventId: 'a2' },
    ])
    // the batch run started but has not written its message yet; a removed item is no input any more
    const early = state({
      isTracked: (r) => r === 'batch',
      itemFor: (r) => (r === 'folded' ? item(1, { status: 'collected', runId: 'batch' }) : item(2, { status: 'removed' })),
    })
    expect(inputReceipts(['folded', 'gone'], early)).toEqual([{ runId: 'folded', state: 'pending' }])
  })
})
