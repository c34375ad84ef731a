// The dedupe cache tells listeners each key it stores (the gateway's socket thread); a listener that throws does
// not fail the call that stored it — the key is stored and the next listener is still told.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { IdempotencyCache } from './idempotency'

afterEach(() => vi.restoreAllMocks())

describe('IdempotencyCache.onSet', () => {
  it('a throwing listener does not fail set(); the key is stored and the others are told', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const cache = new IdempotencyCache<number>()
    const told: string[] = []
    cache.onSet(() => {
      throw new Error('listener broke')
    })
    const off = cache.onSet((k) => told.push(k))
    expect(() => cache.set('agent:k1', 1)).not.toThrow()
    expect(cache.get('agent:k1')).toBe(1)
    expect(told).toEqual(['agent:k1'])
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('listener broke'))
    off()
    cache.set('agent:k2', 2)
    expect(told).toEqual(['agent:k1'])
  })
})
