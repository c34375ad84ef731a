import { describe, expect, it } from 'vitest'
import { AgentDedupe, type CachedResponse } from './agent-dedupe'

const ack: CachedResponse = { ok: true, payload: { status: 'accepted' } }
const fin = (n: number): CachedResponse => ({ ok: true, payload: { status: 'ok', n } })

/** claims a key and finishes it at `doneAt` (or leaves it in flight) */
function run(d: AgentDedupe, key: string, at: number, doneAt?: number) {
  const c = d.claim(key, at)
  if (c.kind !== 'new') throw new Error(`${key} was not new`)
  c.accepted(ack)
  if (doneAt !== undefined) d.complete(key, fin(doneAt), doneAt)
}

describe('agent dedupe', () => {
  it('a retry gets the ack while in flight and the final after; a rejected first request is not cached', async () => {
    const d = new AgentDedupe(1000, 100)
    run(d, 'a', 0)
    const retry = d.claim('a', 1)
    expect(retry.kind).toBe('existing')
    expect(retry.kind === 'existing' && (await retry.response)).toEqual(ack)
    d.complete('a', fin(5), 5)
    const again = d.claim('a', 6)
    expect(again.kind === 'existing' && (await again.response)).toEqual(fin(5))
    const b = d.claim('b', 7)
    if (b.kind === 'new') b.failed()
    expect(d.claim('b', 8).kind).toBe('new')
  })

  it('expires finished entries by completion time, in any claim order; in-flight runs stay however old', () => {
    const d = new AgentDedupe(100, 1000)
    run(d, 'slow', 0) // in flight the whole time, at the front of the map
    run(d, 'late-finisher', 1, 90) // claimed early, finished late
    run(d, 'early-finisher', 2, 10)
    run(d, 'fresh', 3, 150)
    d.claim('x', 195) // sweeps at 195: cut-off is 95
    expect(d.has('slow')).toBe(true)
    expect(d.has('early-finisher')).toBe(false)
    expect(d.has('late-finisher')).toBe(false)
    expect(d.has('fresh')).toBe(true)
    d.claim('y', 240) // cut-off 140: fresh (150) stays
    expect(d.has('fresh')).toBe(true)
    d.claim('z', 251)
    expect(d.has('fresh')).toBe(false)
    expect(d.has('slow')).toBe(true)
  })

  it('above the cap the oldest finished entries go first, never in-flight ones', () => {
    const d = new AgentDedupe(1_000_000, 3)
    run(d, 'inflight', 0)
    run(d, 'f1', 1, 1)
    run(d, 'f2', 2, 2)
    run(d, 'f3', 3, 3)
    run(d, 'f4', 4, 4) // size 5 > 3 at the next claim
    d.claim('g', 5)
    expect(['inflight', 'f1', 'f2', 'f3', 'f4', 'g'].filter((k) => d.has(k))).toEqual(['inflight', 'f4', 'g'])
  })
})
