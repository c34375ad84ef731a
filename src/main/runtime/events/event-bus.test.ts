import { describe, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { approxSize, EventBus } from './event-bus'

describe('EventBus', () => {
  it('numbers events per run from 1, strictly increasing, with ts', () => {
    const bus = new EventBus()
    const seen: AgentEvent[] = []
    bus.subscribe((ev) => seen.push(ev))
    const before = Date.now()
    bus.emit({ runId: 'a', stream: 'lifecycle', data: { phase: 'start' }, sessionKey: 'agent:main:main' })
    bus.emit({ runId: 'b', stream: 'lifecycle', data: { phase: 'start' } })
    bus.emit({ runId: 'a', stream: 'assistant', data: { text: 'h', delta: 'h' } })
    bus.emit({ runId: 'a', stream: 'assistant', data: { text: 'hi', delta: 'i' } })
    bus.emit({ runId: 'b', stream: 'lifecycle', data: { phase: 'end' } })
    expect(seen.filter((e) => e.runId === 'a').map((e) => e.seq)).toEqual([1, 2, 3])
    expect(seen.filter((e) => e.runId === 'b').map((e) => e.seq)).toEqual([1, 2])
    for (const e of seen) expect(e.ts).toBeGreaterThanOrEqual(before)
    expect(seen[0].sessionKey).toBe('agent:main:main')
    expect(seen[1]).not.toHaveProperty('sessionKey')
    expect(bus.lastSeq('a')).toBe(3)
  })

  it('restarts numbering only after clearRun', () => {
    const bus = new EventBus()
    bus.emit({ runId: 'r', stream: 'lifecycle', data: {} })
    expect(bus.emit({ runId: 'r', stream: 'lifecycle', data: {} }).seq).toBe(2)
    bus.clearRun('r')
    expect(bus.emit({ runId: 'r', stream: 'lifecycle', data: {} }).seq).toBe(1)
  })

  it('isolates throwing and rejecting listeners from others and from the emitter', async () => {
    const errors: unknown[] = []
    const bus = new EventBus({ onListenerError: (err) => errors.push(err) })
    const good: number[] = []
    bus.subscribe(() => {
      throw new Error('boom')
    })
    bus.subscribe((async () => {
      throw new Error('async boom')
    }) as unknown as (ev: AgentEvent) => void)
    bus.subscribe((ev) => good.push(ev.seq))
    expect(() => bus.emit({ runId: 'x', stream: 'assistant', data: {} })).not.toThrow()
    bus.emit({ runId: 'x', stream: 'assistant', data: {} })
    expect(good).toEqual([1, 2])
    await new Promise((r) => setTimeout(r, 0))
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(['async boom', 'async boom', 'boom', 'boom'])
  })

  it('survives a failing error reporter', () => {
    const bus = new EventBus({
      onListenerError: () => {
        throw new Error('reporter broke')
      },
    })
    const got: number[] = []
    bus.subscribe(() => {
      throw new Error('x')
    })
    bus.subscribe((e) => got.push(e.seq))
    bus.emit({ runId: 'x', stream: 'tool', data: {} })
    expect(got).toEqual([1])
  })

  it('delivers events emitted from inside a listener after the current one (seq order for everyone)', () => {
    const bus = new EventBus()
    const a: number[] = []
    const b: number[] = []
    bus.subscribe((ev) => {
      a.push(ev.seq)
      if (ev.seq === 1) bus.emit({ runId: ev.runId, stream: 'assistant', data: {} })
    })
    bus.subscribe((ev) => b.push(ev.seq))
    bus.emit({ runId: 'n', stream: 'lifecycle', data: {} })
    expect(a).toEqual([1, 2])
    expect(b).toEqual([1, 2])
  })

  it('unsubscribe stops delivery, also when done during delivery', () => {
    const bus = new EventBus()
    const got: number[] = []
    let off = () => {}
    off = bus.subscribe((e) => {
      got.push(e.seq)
      off()
    })
    bus.emit({ runId: 'u', stream: 'tool', data: {} })
    bus.emit({ runId: 'u', stream: 'tool', data: {} })
    expect(got).toEqual([1])
    expect(bus.listenerCount).toBe(0)
  })

  it('keeps a bounded per-session ring for late subscribers', () => {
    const bus = new EventBus({ ringSize: 5 })
    for (let i = 0; i < 12; i++) bus.emit({ runId: 'r1', stream: 'assistant', data: { i }, sessionKey: 's1' })
    bus.emit({ runId: 'r2', stream: 'assistant', data: {}, sessionKey: 's2' })
    const recent = bus.recent('s1')
    expect(recent).toHaveLength(5)
    expect(recent.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12])
    expect(bus.recent('s1', 2).map((e) => e.seq)).toEqual([11, 12])
    expect(bus.recent('s2')).toHaveLength(1)
    expect(bus.recent('nope')).toEqual([])
    bus.clearSession('s1')
    expect(bus.recent('s1')).toEqual([])
  })

  it('default ring holds 2000 events per session', () => {
    const bus = new EventBus()
    for (let i = 0; i < 2500; i++) bus.emit({ runId: 'r', stream: 'assistant', data: {}, sessionKey: 's' })
    const r = bus.recent('s')
    expect(r).toHaveLength(2000)
    expect(r[0].seq).toBe(501)
  })

  it('bounds the number of sessions with rings, evicting the least recently active', () => {
    const bus = new EventBus({ ringSize: 3, maxSessions: 2 })
    bus.emit({ runId: 'a', stream: 'tool', data: {}, sessionKey: 'A' })
    bus.emit({ runId: 'b', stream: 'tool', data: {}, sessionKey: 'B' })
    bus.emit({ runId: 'a', stream: 'tool', data: {}, sessionKey: 'A' }) // A is now most recent
    bus.emit({ runId: 'c', stream: 'tool', data: {}, sessionKey: 'C' }) // evicts B
    expect(bus.recent('A')).toHaveLength(2)
    expect(bus.recent('B')).toEqual([])
    expect(bus.recent('C')).toHaveLength(1)
  })

  it('bounds a session ring by approximate size (cumulative assistant text)', () => {
    const bus = new EventBus({ maxSessionChars: 10_000 })
    let text = ''
    for (let i = 0; i < 100; i++) {
      text += 'x'.repeat(100)
      bus.emit({ runId: 'r', stream: 'assistant', data: { text, delta: 'x'.repeat(100) }, sessionKey: 's' })
    }
    const kept = bus.recent('s')
    expect(kept.at(-1)?.seq).toBe(100) // newest always kept
    expect(kept.length).toBeLessThan(10)
    expect(bus.retainedChars).toBeLessThanOrEqual(10_000 + approxSize(kept.at(-1)!.data)) // cap, or just the newest
    // a single oversized event is still kept (the newest is never dropped)
    bus.emit({ runId: 'r', stream: 'assistant', data: { text: 'y'.repeat(50_000), delta: '' }, sessionKey: 's' })
    expect(bus.recent('s').map((e) => e.seq)).toEqual([101])
  })

  it('bounds total retained size across sessions, dropping the least recently active', () => {
    const bus = new EventBus({ maxTotalChars: 25_000 })
    for (const s of ['a', 'b', 'c']) bus.emit({ runId: s, stream: 'tool', data: { result: { content: [{ type: 'text', text: 'z'.repeat(10_000) }] } }, sessionKey: s })
    expect(bus.recent('a')).toEqual([])
    expect(bus.recent('b')).toHaveLength(1)
    expect(bus.recent('c')).toHaveLength(1)
    expect(bus.retainedChars).toBeLessThanOrEqual(25_000)
    bus.clearSession('b')
    bus.clearSession('c')
    expect(bus.retainedChars).toBe(0)
  })

  it('approxSize counts nested strings with bounded work', () => {
    expect(approxSize({ text: 'abc' })).toBeGreaterThanOrEqual(3)
    expect(approxSize({ result: { content: [{ text: 'x'.repeat(1000) }] } })).toBeGreaterThanOrEqual(1000)
    const wide = { items: Array.from({ length: 10_000 }, () => ({ a: 1 })) }
    const t0 = performance.now()
    expect(approxSize(wide)).toBeGreaterThan(0)
    expect(performance.now() - t0).toBeLessThan(50)
  })

  it('attributes events to the session registered for the run', () => {
    const bus = new EventBus()
    bus.setRunContext('r', { sessionKey: 'agent:main:x' })
    const ev = bus.emit({ runId: 'r', stream: 'assistant', data: {} })
    expect(ev.sessionKey).toBe('agent:main:x')
    expect(bus.recent('agent:main:x')).toHaveLength(1)
    bus.clearRun('r')
    expect(bus.emit({ runId: 'r', stream: 'assistant', data: {} }).sessionKey).toBeUndefined()
  })

  it('bounds seq counters of runs that are never cleared', () => {
    const bus = new EventBus({ maxTrackedRuns: 3 })
    for (const id of ['1', '2', '3', '4']) bus.emit({ runId: id, stream: 'lifecycle', data: {} })
    expect(bus.lastSeq('1')).toBe(0)
    expect(bus.lastSeq('4')).toBe(1)
  })

  it('default error reporter logs without throwing', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    const bus = new EventBus()
    bus.subscribe(() => {
      throw new Error('z')
    })
    bus.emit({ runId: 'q', stream: 'tool', data: {} })
    expect(spy).toHaveBeenCalledOnce()
    spy.mockRestore()
  })

  describe('emitDelta', () => {
    const tick = () => new Promise<void>((r) => setImmediate(r))
    const collect = (bus: EventBus) => {
      const seen: AgentEvent[] = []
      bus.subscribe((ev) => seen.push(ev))
      return seen
    }

    it('merges the deltas of one tick into one event: latest cumulative text, concatenated delta', async () => {
      const bus = new EventBus()
      const seen = collect(bus)
      bus.emit({ runId: 'r', stream: 'lifecycle', data: { phase: 'start' }, sessionKey: 's' })
      let text = ''
      for (const d of ['He', 'll', 'o']) bus.emitDelta({ runId: 'r', sessionKey: 's', stream: 'assistant', text: (text += d), delta: d })
      expect(seen).toHaveLength(1) // held until the tick's microtasks are done
      await Promise.resolve()
      expect(seen).toHaveLength(1)
      await tick()
      expect(seen.map((e) => [e.seq, e.stream, e.data])).toEqual([
        [1, 'lifecycle', { phase: 'start' }],
        [2, 'assistant', { text: 'Hello', delta: 'Hello' }],
      ])
      expect(seen[1].sessionKey).toBe('s')
      expect(bus.recent('s').map((e) => e.seq)).toEqual([1, 2])
      // the next tick starts a new event
      bus.emitDelta({ runId: 'r', sessionKey: 's', stream: 'assistant', text: 'Hello!', delta: '!' })
      await tick()
      expect(seen.at(-1)).toMatchObject({ seq: 3, data: { text: 'Hello!', delta: '!' } })
    })

    it('flushes a run’s held text before any other event of that run (tool start, lifecycle end), in seq order', () => {
      const bus = new EventBus()
      const seen = collect(bus)
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'a', delta: 'a' })
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'ab', delta: 'b' })
      bus.emit({ runId: 'r', stream: 'tool', data: { phase: 'start' } })
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'abc', delta: 'c' })
      bus.emit({ runId: 'r', stream: 'lifecycle', data: { phase: 'end' } })
      expect(seen.map((e) => [e.seq, e.stream, e.data])).toEqual([
        [1, 'assistant', { text: 'ab', delta: 'ab' }],
        [2, 'tool', { phase: 'start' }],
        [3, 'assistant', { text: 'abc', delta: 'c' }],
        [4, 'lifecycle', { phase: 'end' }],
      ])
    })

    it('other runs’ events do not flush (or reorder) a run’s held text; each run keeps its own seq', async () => {
      const bus = new EventBus()
      const seen = collect(bus)
      bus.emitDelta({ runId: 'a', stream: 'assistant', text: 'x', delta: 'x' })
      bus.emit({ runId: 'b', stream: 'lifecycle', data: { phase: 'start' } })
      bus.emitDelta({ runId: 'b', stream: 'assistant', text: 'y', delta: 'y' })
      bus.emitDelta({ runId: 'a', stream: 'assistant', text: 'xx', delta: 'x' })
      await tick()
      expect(seen.map((e) => `${e.runId}${e.seq}:${e.stream}:${(e.data as { text?: string }).text ?? ''}`)).toEqual([
        'b1:lifecycle:',
        'a1:assistant:xx',
        'b2:assistant:y',
      ])
    })

    it('never merges a text that does not extend the held one (a new message) or another stream', async () => {
      const bus = new EventBus()
      const seen = collect(bus)
      bus.emitDelta({ runId: 'r', stream: 'thinking', text: 'hmm', delta: 'hmm' })
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'first', delta: 'first' })
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'S', delta: 'S' }) // next message: starts over
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'Se', delta: 'e' })
      await tick()
      expect(seen.map((e) => [e.seq, e.stream, e.data])).toEqual([
        [1, 'thinking', { text: 'hmm', delta: 'hmm' }],
        [2, 'assistant', { text: 'first', delta: 'first' }],
        [3, 'assistant', { text: 'Se', delta: 'Se' }],
      ])
    })

    it('clearRun and flushDeltas emit held text first', () => {
      const bus = new EventBus()
      const seen = collect(bus)
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'a', delta: 'a' })
      bus.flushDeltas('r')
      expect(seen.map((e) => e.data)).toEqual([{ text: 'a', delta: 'a' }])
      bus.emitDelta({ runId: 'r', stream: 'assistant', text: 'ab', delta: 'b' })
      bus.clearRun('r')
      expect(seen.map((e) => e.seq)).toEqual([1, 2])
      expect(bus.lastSeq('r')).toBe(0)
    })

    it('a delta emitted by a listener during release is delivered too', async () => {
      const bus = new EventBus()
      const seen = collect(bus)
      bus.subscribe((ev) => {
        if (ev.runId === 'a' && ev.seq === 1) bus.emitDelta({ runId: 'b', stream: 'assistant', text: 'z', delta: 'z' })
      })
      bus.emitDelta({ runId: 'a', stream: 'assistant', text: 'q', delta: 'q' })
      await tick()
      await tick()
      expect(seen.map((e) => `${e.runId}:${(e.data as { text: string }).text}`).sort()).toEqual(['a:q', 'b:z'])
    })
  })
})
