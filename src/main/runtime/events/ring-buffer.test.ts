import { describe, expect, it } from 'vitest'
import { RingBuffer } from './ring-buffer'

describe('RingBuffer', () => {
  it('keeps the newest items in order once full', () => {
    const r = new RingBuffer<number>(3)
    for (let i = 1; i <= 7; i++) r.push(i)
    expect(r.size).toBe(3)
    expect(r.last()).toEqual([5, 6, 7])
    expect(r.last(2)).toEqual([6, 7])
    expect(r.last(10)).toEqual([5, 6, 7])
    expect(r.last(0)).toEqual([])
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
