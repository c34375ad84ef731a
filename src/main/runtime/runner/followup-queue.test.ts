import { describe, expect, it, vi } from 'vitest'
import { FollowupQueue } from './followup-queue'
import { IdempotencyCache } from './idempotency'

describe('followup queue', () => {
  it('tracks queued items, removes (cancelling) only queued ones, reports changes', () => {
    const changes: number[] = []
    const q = new FollowupQueue((_k, items) => changes.push(items.length))
    const cancel = vi.fn()
    const a = q.add('k', 'first', 'r1', 'followup', cancel)
    const b = q.add('k', 'second', 'r2', 'followup', vi.fn())
    expect(q.queuedCount('k')).toBe(2)
    q.settle('k', b.id, 'started')
    expect(q.remove('k', b.id)).toBe(false)
    expect(q.remove('k', a.id)).toBe(true)
    expect(cancel).toHaveBeenCalledOnce()
    expect(q.list('k').map((i) => i.status)).toEqual(['removed', 'started'])
    expect(changes.length).toBeGreaterThanOrEqual(4)
    expect(q.clear('k')).toBe(0)
  })
})

describe('idempotency cache', () => {
  it('expires after the TTL and evicts the oldest beyond the cap', () => {
    let now = 0
    const c = new IdempotencyCache<number>(1000, 2, () => now)
    c.set('a', 1)
    c.set('b', 2)
    c.set('c', 3)
    expect(c.get('a')).toBeUndefined()
    expect(c.get('c')).toBe(3)
    now = 1001
    expect(c.get('b')).toBeUndefined()
  })
})
