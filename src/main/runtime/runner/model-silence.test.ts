import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SilenceData } from '../../../shared/events'
import { SilenceWatch } from './model-silence'

describe('SilenceWatch', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  const make = (policy = { noticeAfterMs: 1000, idleTimeoutMs: 3000 }) => {
    const emitted: SilenceData[] = []
    const stalls: Error[] = []
    const w = new SilenceWatch(policy, 'mock', { emit: (d) => emitted.push(d), stalled: (e) => stalls.push(e) })
    return { w, emitted, stalls }
  }

  it('before the first token: a notice, withdrawn by data, given again after the next silence; never a stall', () => {
    const { w, emitted, stalls } = make()
    w.start()
    vi.advanceTimersByTime(999)
    expect(emitted).toEqual([])
    vi.advanceTimersByTime(1)
    expect(emitted).toEqual([{ phase: 'silent', since: 'request', silentMs: 1000, provider: 'mock' }])
    w.alive() // headers, a keep-alive comment
    expect(emitted.at(-1)).toEqual({ phase: 'resumed' })
    vi.advanceTimersByTime(60_000)
    expect(emitted.filter((d) => d.phase === 'silent')).toHaveLength(2)
    expect(stalls).toEqual([])
    w.end()
    expect(emitted.at(-1)).toEqual({ phase: 'resumed' })
  })

  it('mid-reply: the notice says so, and the silence past the idle timeout fails the call once', () => {
    const { w, emitted, stalls } = make()
    w.start()
    vi.advanceTimersByTime(500)
    w.token()
    // steady tokens keep it quiet
    for (let i = 0; i < 4; i++) {
      vi.advanceTimersByTime(500)
      w.token()
    }
    expect(emitted).toEqual([])
    vi.advanceTimersByTime(1000)
    expect(emitted).toEqual([{ phase: 'silent', since: 'reply', silentMs: 1000, provider: 'mock', idleTimeoutMs: 3000 }])
    vi.advanceTimersByTime(2000)
    expect(stalls.map((e) => e.message)).toEqual([
      'The model server (mock) stopped sending: no data for 3 s in the middle of its reply. Retry, or raise agents.defaults.llm.idleTimeoutSeconds if the model pauses that long.',
    ])
    vi.advanceTimersByTime(10_000)
    expect(stalls).toHaveLength(1)
  })

  it('0 turns either off', () => {
    const { w, emitted, stalls } = make({ noticeAfterMs: 0, idleTimeoutMs: 0 })
    w.start()
    w.token()
    vi.advanceTimersByTime(600_000)
    expect(emitted).toEqual([])
    expect(stalls).toEqual([])
  })
})
