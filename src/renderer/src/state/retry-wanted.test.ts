// "Stop and retry" whose stop came late: once the run has stopped its footer offers Retry (the user asked for the
// message to go again), and a history rebuild — the refetch at the run's end, a reconnect, a reloaded window —
// keeps that. History alone cannot tell it from a plain Stop, so the rebuilt item takes it from the item it
// replaces or from what the window kept (RetryWanted, localStorage).
import { beforeEach, describe, expect, it } from 'vitest'
import type { HistoryMessage } from '../../../shared/methods'
import { reduce, retryableRun } from './run-reducer'
import { RetryWanted } from './retry-wanted'
import { emptyTranscript, type RunItem, type Transcript } from './types'

const SK = 'agent:main:late-stop'
const user = (runId: string, text: string, ts: number): HistoryMessage =>
  ({ role: 'user', content: [{ type: 'text', text }], timestamp: ts, id: `${runId}-u`, runId }) as HistoryMessage
const stopped = (runId: string, ts: number): HistoryMessage =>
  ({
    role: 'assistant',
    content: [],
    timestamp: ts,
    id: `${runId}-a`,
    runId,
    usage: { input: 0, output: 0, totalTokens: 0 },
    stopReason: 'aborted',
    aborted: true,
    openclawAbort: { aborted: true, origin: 'rpc', runId },
  }) as HistoryMessage
const page = { sessionKey: SK, sessionId: 's', hasMore: false, messages: [user('r1', 'Summarise the notes', 1000), stopped('r1', 20_000)] }
const run = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run' && i.runId === 'r1')!

beforeEach(() => localStorage.clear())

describe('Retry after a late stop, across history rebuilds', () => {
  it('a plain stopped run rebuilt from history offers no Retry (Regenerate is its way)', () => {
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page })
    expect(run(t).status).toBe('stopped')
    expect(run(t).stopRetryTimedOut).toBeUndefined()
    expect(retryableRun(t, !!run(t).stopRetryTimedOut)).toBeUndefined()
  })

  it('a refetch keeps the wish the live item carried: the stopped run is still the one Retry sends', () => {
    // live: the run went on past Stop and retry's wait (the flag), then its late stop ended it
    let live = reduce(emptyTranscript(SK), { type: 'hydrate', history: { ...page, messages: [user('r1', 'Summarise the notes', 1000)], inFlightRun: { runId: 'r1', text: '' } } })
    live = reduce(live, { type: 'local.stopRetryTimedOut', runId: 'r1' })
    expect(run(live).stopRetryTimedOut).toBe(true)
    // the run's end refetches history: the rebuilt item keeps it
    const rebuilt = reduce(live, { type: 'hydrate', history: page })
    expect(run(rebuilt)).toMatchObject({ status: 'stopped', stopRetryTimedOut: true })
    expect(retryableRun(rebuilt, true)).toBe('r1')
  })

  it('a reloaded window (nothing in memory) takes it from what the window kept', () => {
    new RetryWanted().set(SK, 'r1')
    // a new window's store reads localStorage
    const wanted = new RetryWanted().get(SK)
    expect(wanted).toBe('r1')
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page, retryWanted: wanted })
    expect(run(t)).toMatchObject({ status: 'stopped', stopRetryTimedOut: true })
    expect(retryableRun(t, true)).toBe('r1')
    // sent again: forgotten
    const kept = new RetryWanted()
    kept.delete(SK)
    expect(new RetryWanted().get(SK)).toBeUndefined()
  })

  it('keeps one run per session and at most 50 sessions', () => {
    const w = new RetryWanted()
    w.set(SK, 'r1')
    w.set(SK, 'r2')
    for (let i = 0; i < 60; i++) w.set(`agent:main:s${i}`, `run${i}`)
    const again = new RetryWanted()
    expect(again.get(SK)).toBeUndefined()
    expect(again.get('agent:main:s59')).toBe('run59')
    expect(again.get('agent:main:s9')).toBeUndefined()
    expect(again.get('agent:main:s10')).toBe('run10')
  })
})
