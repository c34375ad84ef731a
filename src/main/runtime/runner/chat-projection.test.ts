import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import { ChatProjection } from './chat-projection'

let out: ChatEvent[]
let proj: ChatProjection
let seq: number
const ev = (stream: AgentEvent['stream'], data: Record<string, unknown>, runId = 'r1'): AgentEvent => ({ runId, seq: ++seq, stream, ts: Date.now(), data, sessionKey: 'agent:main:main' })
const text = (e: ChatEvent) => e.message?.content[0].text

beforeEach(() => {
  vi.useFakeTimers()
  out = []
  seq = 0
  proj = new ChatProjection((e) => out.push(e))
})
afterEach(() => vi.useRealTimers())

describe('chat projection', () => {
  it('a rewritten reply (lifecycle end replyText) is the final text: message-tool texts kept, no last delta of the model text', () => {
    proj.handle(ev('lifecycle', { phase: 'start' }))
    proj.handle(ev('block', { text: 'Sent mid-run.' }))
    proj.handle(ev('assistant', { text: 'key sk-1', delta: 'key sk-1' }))
    proj.handle(ev('assistant', { text: 'key sk-12345', delta: '2345' })) // held by the throttle
    proj.handle(ev('lifecycle', { phase: 'end', stopReason: 'stop', replyText: 'key [redacted]' }))
    expect(out.map((e) => [e.state, text(e)])).toEqual([
      ['delta', 'Sent mid-run.'],
      ['final', 'Sent mid-run.\n\nkey [redacted]'],
    ])
    proj.handle(ev('lifecycle', { phase: 'start' }, 'r2'))
    proj.handle(ev('assistant', { text: 'secret', delta: 'secret' }, 'r2'))
    proj.handle(ev('lifecycle', { phase: 'end', replyText: '' }, 'r2'))
    expect(out.at(-1)).toMatchObject({ runId: 'r2', state: 'final' })
    expect(out.at(-1)!.message).toBeUndefined()
  })

  it('text taken back as reasoning (assistant `replace`) is no paragraph of the reply: the next delta replaces it', () => {
    proj.handle(ev('lifecycle', { phase: 'start' }))
    proj.handle(ev('assistant', { text: 'The user wants', delta: 'The user wants' }))
    proj.handle(ev('assistant', { text: '', delta: '', replace: true }))
    vi.advanceTimersByTime(200)
    proj.handle(ev('assistant', { text: '42', delta: '42' }))
    vi.advanceTimersByTime(200)
    proj.handle(ev('lifecycle', { phase: 'end', stopReason: 'stop' }))
    expect(out.map((e) => [e.state, text(e)])).toEqual([
      ['delta', 'The user wants'],
      ['delta', '42'],
      ['final', '42'],
    ])
    expect(out[1]).toMatchObject({ deltaText: '42', replace: true })
  })

  it('throttles deltas to one per 150 ms with the cumulative text, trailing edge included', () => {
    proj.handle(ev('lifecycle', { phase: 'start' }))
    proj.handle(ev('assistant', { text: 'Hel', delta: 'Hel' }))
    proj.handle(ev('assistant', { text: 'Hello', delta: 'lo' }))
    proj.handle(ev('assistant', { text: 'Hello wor', delta: ' wor' }))
    expect(out.map(text)).toEqual(['Hel'])
    vi.advanceTimersByTime(150)
    expect(out.map(text)).toEqual(['Hel', 'Hello wor'])
    expect(out[1].seq).toBe(4)
    expect(out.every((e) => e.state === 'delta')).toBe(true)
  })

  it('a timer that fires before the clock says the window closed waits out the rest: never two deltas < 150 ms apart', () => {
    // from the second delta on, the clock lags the timers by a millisecond, as Date.now() can behind a Node timer
    let lag = 0
    const early = new ChatProjection((e) => out.push(e), { now: () => Date.now() - lag })
    early.handle(ev('lifecycle', { phase: 'start' }))
    early.handle(ev('assistant', { text: 'a', delta: 'a' }))
    early.handle(ev('assistant', { text: 'ab', delta: 'b' }))
    lag = 1
    vi.advanceTimersByTime(150)
    expect(out.map(text)).toEqual(['a']) // 149 ms by its clock: not yet
    vi.advanceTimersByTime(1)
    expect(out.map(text)).toEqual(['a', 'ab'])
    expect(out[1].message!.timestamp - out[0].message!.timestamp).toBeGreaterThanOrEqual(150)
  })

  it('deltas carry deltaText: what was added since the last delta, a new assistant message included', () => {
    proj.handle(ev('lifecycle', { phase: 'start' }))
    proj.handle(ev('assistant', { text: 'Hel', delta: 'Hel' }))
    proj.handle(ev('assistant', { text: 'Hello wor', delta: 'lo wor' }))
    vi.advanceTimersByTime(150)
    proj.handle(ev('assistant', { text: 'Goodbye', delta: 'Goodbye' })) // the run's next assistant message
    vi.advanceTimersByTime(150)
    expect(out.map((e) => [text(e), e.deltaText, e.replace])).toEqual([
      ['Hel', 'Hel', undefined],
      ['Hello wor', 'lo wor', undefined],
      ['Hello wor\n\nGoodbye', '\n\nGoodbye', undefined],
    ])
    // a client that applies deltaText/replace ends with the same text as the cumulative message
    let shown = ''
    for (const e of out) shown = e.replace ? e.deltaText! : shown + e.deltaText!
    expect(shown).toBe(text(out.at(-1)!))
  })

  it('flushes before a tool starts and before the final; final carries the whole text and usage', () => {
    proj.handle(ev('lifecycle', { phase: 'start' }))
    proj.handle(ev('assistant', { text: 'Let me', delta: 'Let me' }))
    proj.handle(ev('assistant', { text: 'Let me check.', delta: ' check.' }))
    proj.handle(ev('tool', { phase: 'start', name: 'read', toolCallId: 'c1', args: {} }))
    expect(out.map(text)).toEqual(['Let me', 'Let me check.'])
    proj.handle(ev('assistant', { text: 'It is 12.', delta: 'It is 12.' })) // a new assistant message
    proj.setUsage('r1', { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, costUsd: 0 })
    proj.handle(ev('lifecycle', { phase: 'end', stopReason: 'stop' }))
    const final = out.at(-1)!
    expect(final.state).toBe('final')
    expect(text(final)).toBe('Let me check.\n\nIt is 12.')
    expect(final.usage?.totalTokens).toBe(3)
    expect(final.stopReason).toBe('stop')
    // the flush before final went out as a delta
    expect(out.at(-2)).toMatchObject({ state: 'delta' })
    expect(text(out.at(-2)!)).toBe('Let me check.\n\nIt is 12.')
    vi.advanceTimersByTime(1000)
    expect(out.at(-1)).toBe(final) // no stray timer output after the final
  })

  it('withholds NO_REPLY (and its prefixes) and omits the final message', () => {
    proj.handle(ev('assistant', { text: 'NO', delta: 'NO' }))
    proj.handle(ev('assistant', { text: 'NO_REP', delta: '_REP' }))
    vi.advanceTimersByTime(200)
    proj.handle(ev('assistant', { text: 'NO_REPLY', delta: 'LY' }))
    proj.handle(ev('lifecycle', { phase: 'end' }))
    expect(out).toHaveLength(1)
    expect(out[0]).toMatchObject({ state: 'final' })
    expect(out[0].message).toBeUndefined()
  })

  it('aborted end → aborted event with the partial text; error → error event with message and kind', () => {
    proj.handle(ev('assistant', { text: 'partial', delta: 'partial' }))
    proj.handle(ev('lifecycle', { phase: 'end', aborted: true, stopReason: 'timeout' }))
    expect(out.at(-1)).toMatchObject({ state: 'aborted', stopReason: 'timeout' })
    expect(text(out.at(-1)!)).toBe('partial')
    proj.handle(ev('lifecycle', { phase: 'start' }, 'r2'))
    proj.handle(ev('lifecycle', { phase: 'error', error: 'HTTP 500', errorKind: 'rate_limit' }, 'r2'))
    expect(out.at(-1)).toMatchObject({ runId: 'r2', state: 'error', errorMessage: 'HTTP 500', errorKind: 'rate_limit' })
  })

  it('message-tool sends become part of the visible text', () => {
    proj.handle(ev('block', { text: 'Working on it…', source: 'message' }))
    proj.handle(ev('assistant', { text: 'Done.', delta: 'Done.' }))
    proj.handle(ev('lifecycle', { phase: 'end' }))
    expect(text(out.at(-1)!)).toBe('Working on it…\n\nDone.')
  })

  it('keeps runs apart and exposes live text', () => {
    proj.handle(ev('assistant', { text: 'a', delta: 'a' }, 'x'))
    proj.handle(ev('assistant', { text: 'b', delta: 'b' }, 'y'))
    expect(proj.textOf('x')).toBe('a')
    expect(proj.textOf('y')).toBe('b')
    expect(proj.activeRunIds().sort()).toEqual(['x', 'y'])
  })
})
