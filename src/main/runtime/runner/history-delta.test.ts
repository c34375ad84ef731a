import { describe, expect, it } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { HISTORY_CURSOR_MAX_CHARS, decodeHistoryCursor, encodeHistoryCursor } from './history-cursor'
import { HISTORY_DELTA_MAX_BYTES, HISTORY_DELTA_MAX_MESSAGES, historyDelta, tailCursor, type HistoryTarget } from './history-delta'

const KEY = 'agent:main:main'
const header: TranscriptEntry = { type: 'session', version: 1, id: 's1', timestamp: '', cwd: '/', sessionKey: KEY }
const msg = (id: string, role = 'user', text = id, runId = 'r1'): TranscriptEntry => ({
  type: 'message',
  id,
  timestamp: 5,
  runId,
  message: { role, content: [{ type: 'text', text }], timestamp: 5 },
})
const target = (entries: TranscriptEntry[], over: Partial<HistoryTarget> = {}): HistoryTarget => ({ sessionKey: KEY, agentId: 'main', sessionId: 's1', entries, ...over })
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

describe('history cursor', () => {
  it('is base64url JSON {agentId, generation, lastSeq, sessionId, version: 1}', () => {
    const c = tailCursor(target([header, msg('a'), msg('b')]))
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(JSON.parse(Buffer.from(c, 'base64url').toString())).toEqual({ agentId: 'main', generation: expect.any(String), lastSeq: 2, sessionId: 's1', version: 1 })
    expect(decodeHistoryCursor(c)).toMatchObject({ lastSeq: 2, sessionId: 's1' })
  })

  it('anything else is not a cursor', () => {
    const ok = { agentId: 'main', generation: 'g', lastSeq: 1, sessionId: 's1', version: 1 }
    expect(decodeHistoryCursor(b64(ok))).toEqual(ok)
    for (const bad of ['', 'not base64!', b64('text'), b64([1]), b64({ ...ok, version: 2 }), b64({ ...ok, lastSeq: -1 }), b64({ ...ok, lastSeq: 1.5 }), b64({ ...ok, agentId: '' })]) {
      expect(decodeHistoryCursor(bad)).toBeUndefined()
    }
    // a valid one padded past the bound is refused unread
    const long = b64({ ...ok, generation: 'x'.repeat(HISTORY_CURSOR_MAX_CHARS) })
    expect(long.length).toBeGreaterThan(HISTORY_CURSOR_MAX_CHARS)
    expect(decodeHistoryCursor(long)).toBeUndefined()
  })
})

describe('history delta', () => {
  it('replays exactly the messages appended since, as session.message payloads, with a cursor after them', () => {
    const before = [header, msg('a'), msg('b', 'assistant')]
    const cursor = tailCursor(target(before))
    const after = [...before, { type: 'run', id: 'x', timestamp: 6, runId: 'r2', phase: 'start' } as TranscriptEntry, msg('c', 'user', 'c', 'r2'), msg('d', 'assistant', 'NO_REPLY', 'r2')]
    const d = historyDelta(cursor, target(after))
    expect(d.kind).toBe('delta')
    if (d.kind !== 'delta') return
    // hidden rows too: the client missed these session.message events
    expect(d.messages).toEqual([
      { sessionKey: KEY, message: { role: 'user', content: [{ type: 'text', text: 'c' }], timestamp: 5, __openclaw: { id: 'c', seq: 3, runId: 'r2' } }, messageId: 'c', messageSeq: 3, ts: 5, runId: 'r2' },
      { sessionKey: KEY, message: { role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY' }], timestamp: 5, __openclaw: { id: 'd', seq: 4, runId: 'r2' } }, messageId: 'd', messageSeq: 4, ts: 5, runId: 'r2' },
    ])
    expect(d.deltaCursor).toBe(tailCursor(target(after)))
    expect(historyDelta(d.deltaCursor, target(after))).toEqual({ kind: 'delta', messages: [], deltaCursor: d.deltaCursor })
  })

  it('a cursor from before the session existed: nothing new while there is still none, reset once there is one', () => {
    const none = tailCursor(target([], { sessionId: '' }))
    expect(historyDelta(none, target([], { sessionId: '' }))).toMatchObject({ kind: 'delta', messages: [] })
    expect(historyDelta(none, target([header, msg('a')]))).toEqual({ kind: 'reset', why: 'other-session' })
  })

  it('reset: malformed, another agent or transcript, a compaction since, a rewrite, past the end', () => {
    const entries = [header, msg('a'), msg('b')]
    const cursor = tailCursor(target(entries))
    expect(historyDelta('garbage!', target(entries))).toEqual({ kind: 'reset', why: 'malformed' })
    expect(historyDelta(cursor, target(entries, { agentId: 'ops' }))).toEqual({ kind: 'reset', why: 'other-session' })
    expect(historyDelta(cursor, target(entries, { sessionId: 's2' }))).toEqual({ kind: 'reset', why: 'other-session' })
    const compacted: TranscriptEntry[] = [...entries, { type: 'compaction', id: 'k', timestamp: 7, summary: 'sum', firstKeptEntryId: 'b', tokensBefore: 9 }, msg('c')]
    expect(historyDelta(cursor, target(compacted))).toEqual({ kind: 'reset', why: 'rewritten' })
    expect(historyDelta(cursor, target([header, msg('a'), msg('B'), msg('c')]))).toEqual({ kind: 'reset', why: 'rewritten' })
    expect(historyDelta(cursor, target([header, msg('a')]))).toEqual({ kind: 'reset', why: 'past-end' })
    const forged = encodeHistoryCursor({ agentId: 'main', generation: 'whatever', lastSeq: 1, sessionId: 's1' })
    expect(historyDelta(forged, target(entries))).toEqual({ kind: 'reset', why: 'rewritten' })
  })

  it(`at most ${HISTORY_DELTA_MAX_MESSAGES} messages and ${HISTORY_DELTA_MAX_BYTES} bytes, else reset`, () => {
    const cursor = tailCursor(target([header]))
    const many = (n: number) => [header, ...Array.from({ length: n }, (_, i) => msg(`m${i}`))]
    const full = historyDelta(cursor, target(many(HISTORY_DELTA_MAX_MESSAGES)))
    expect(full.kind === 'delta' && full.messages.length).toBe(HISTORY_DELTA_MAX_MESSAGES)
    expect(historyDelta(cursor, target(many(HISTORY_DELTA_MAX_MESSAGES + 1)))).toEqual({ kind: 'reset', why: 'too-many' })
    const big = [header, msg('x', 'user', 'y'.repeat(HISTORY_DELTA_MAX_BYTES / 2)), msg('z', 'user', 'y'.repeat(HISTORY_DELTA_MAX_BYTES / 2))]
    expect(historyDelta(cursor, target(big))).toEqual({ kind: 'reset', why: 'too-big' })
  })
})
