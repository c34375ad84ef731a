import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MAX_HISTORY_MEMORY_CHARS, MAX_INPUT_HISTORY, MAX_SAVED_ENTRY_CHARS, MAX_SAVED_HISTORY_CHARS, pushInputHistory, savedInputHistory } from './input-history'
import { createAppStores } from './stores'

describe('input history bounds', () => {
  it('in memory: by count and by size, oldest first; the newest entry is kept whatever its size', () => {
    let h: string[] = []
    for (let i = 0; i < MAX_INPUT_HISTORY + 5; i++) h = pushInputHistory(h, `m${i}`)
    expect(h).toHaveLength(MAX_INPUT_HISTORY)
    expect(h[0]).toBe('m5')
    h = pushInputHistory(h, 'm10') // a repeat moves to the end
    expect(h.at(-1)).toBe('m10')
    expect(h.filter((x) => x === 'm10')).toHaveLength(1)
    const big = (c: string) => c.repeat(MAX_HISTORY_MEMORY_CHARS / 2 - 10)
    h = pushInputHistory(pushInputHistory(pushInputHistory(h, big('a')), big('b')), big('c'))
    expect(h.map((x) => x[0])).toEqual(['b', 'c'])
    h = pushInputHistory(h, 'd'.repeat(MAX_HISTORY_MEMORY_CHARS + 1))
    expect(h.map((x) => x[0])).toEqual(['d'])
  })

  it('saved: long entries skipped, the total under the budget, the newest kept', () => {
    const long = 'x'.repeat(MAX_SAVED_ENTRY_CHARS + 1)
    expect(savedInputHistory(['a', long, 'b'])).toEqual(['a', 'b'])
    const chunk = 'y'.repeat(MAX_SAVED_ENTRY_CHARS)
    const many = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(MAX_SAVED_ENTRY_CHARS, 'y'))
    const saved = savedInputHistory(many)
    expect(saved.join('').length).toBeLessThanOrEqual(MAX_SAVED_HISTORY_CHARS)
    expect(saved.at(-1)).toBe(many.at(-1))
    expect(saved[0]).toBe(many[many.length - MAX_SAVED_HISTORY_CHARS / chunk.length])
  })
})

describe('input history and drafts in localStorage', () => {
  beforeEach(() => localStorage.clear())
  afterEach(() => vi.restoreAllMocks())

  it('a history saved before it was bounded is trimmed when read; a big message is not written', () => {
    localStorage.setItem('loopdesk.inputHistory', JSON.stringify(['old', '9'.repeat(990_000), 'recent']))
    const stores = createAppStores()
    expect(stores.composer.getState().history).toEqual(['old', 'recent'])
    expect(JSON.parse(localStorage.getItem('loopdesk.inputHistory')!)).toEqual(['old', 'recent'])
    stores.composer.setState((s) => ({ history: pushInputHistory(s.history, 'z'.repeat(500_000)) }))
    // still recalled in this window, not written
    expect(stores.composer.getState().history.at(-1)).toHaveLength(500_000)
    expect(JSON.parse(localStorage.getItem('loopdesk.inputHistory')!)).toEqual(['old', 'recent'])
  })

  it('a draft that cannot be saved stays in memory, is flagged, and is logged once', async () => {
    vi.useFakeTimers()
    try {
      const stores = createAppStores()
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const setItem = vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
        throw new DOMException('quota', 'QuotaExceededError')
      })
      stores.composer.setState({ drafts: { s1: 'my important draft' } })
      await vi.advanceTimersByTimeAsync(200)
      stores.composer.setState({ drafts: { s1: 'my important draft, longer' } })
      await vi.advanceTimersByTimeAsync(200)
      expect(stores.composer.getState().draftsUnsaved).toBe(true)
      expect(stores.composer.getState().drafts.s1).toBe('my important draft, longer')
      expect(warn).toHaveBeenCalledTimes(1)
      // storage works again: the flag goes
      setItem.mockRestore()
      stores.composer.setState({ drafts: { s1: 'saved now' } })
      await vi.advanceTimersByTimeAsync(200)
      expect(stores.composer.getState().draftsUnsaved).toBeUndefined()
      expect(JSON.parse(localStorage.getItem('loopdesk.drafts')!)).toEqual({ s1: 'saved now' })
    } finally {
      vi.useRealTimers()
    }
  })
})
