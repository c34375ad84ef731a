import { describe, expect, it } from 'vitest'
import { normalizeThinking } from './thinking'

describe('normalizeThinking', () => {
  it('keeps the canonical levels and maps OpenClaw aliases', () => {
    for (const l of ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const) expect(normalizeThinking(l)).toBe(l)
    expect(normalizeThinking('None')).toBe('off')
    expect(normalizeThinking('think harder')).toBe('medium')
    expect(normalizeThinking('think_hard')).toBe('low')
    expect(normalizeThinking('ON')).toBe('low')
    expect(normalizeThinking('extra-high')).toBe('xhigh')
    expect(normalizeThinking('max')).toBe('xhigh')
  })

  it('reads adaptive/auto and absence as "no override"', () => {
    expect(normalizeThinking(undefined)).toBeUndefined()
    expect(normalizeThinking('adaptive')).toBeUndefined()
    expect(normalizeThinking(' Auto ')).toBeUndefined()
  })

  it('rejects an unknown word with INVALID_REQUEST naming the levels', () => {
    expect(() => normalizeThinking('sideways')).toThrow(/invalid thinking level "sideways".*off\|minimal/)
    try {
      normalizeThinking('sideways')
    } catch (err) {
      expect((err as { code?: string }).code).toBe('INVALID_REQUEST')
    }
  })
})
