import { describe, expect, it } from 'vitest'
import { RingBuffer } from './ring-buffer'

describe('RingBuffer', () => {
  it('keeps the newest items in order once full, returning what it evicts', () => {
    const r = new RingBuffer<number>(3)
    const evicted: Array<number | undefined> = []
    for (let i = 1; i <= 7; i++) evicted.push(r.push(i))
    expect(evicted).toEqual([undefined, undefined, undefined, 1, 2, 3, 4])
    expect(r.size).toBe(3)
    expect(r.last()).toEqual([5, 6, 7])
    expect(r.last(2)).toEqual([6, 7])
    expect(r.last(10)).toEqual([5, 6, 7])
    expect(r.last(0)).toEqual([])
  })
  it('shift removes the oldest', () => {
    const r = new RingBuffer<number>(3)
    for (let i = 1; i <= 4; i++) r.push(i)
    expect(r.shift()).toBe(2)
    expect(r.last()).toEqual([3, 4])
    r.push(5)
    r.push(6)
    expect(r.last()).toEqual([4, 5, 6])
    expect(r.shift()).toBe(4)
    expect(r.shift()).toBe(5)
    expect(r.shift()).toBe(6)
    expect(r.shift()).toBeUndefined()
    expect(r.size).toBe(0)
  })
  it('works before it wraps and after clear', () => {
    const r = new RingBuffer<string>(4)
    r.push('a')
    r.push('b')
    expect(r.last()).toEqual(['a', 'b'])
    r.clear()
    expect(r.last()).toEqual([])
    r.push('c')
    expect(r.last()).toEqual(['c'])
  })
  it('rejects a bad capacity', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError)
  })
})
