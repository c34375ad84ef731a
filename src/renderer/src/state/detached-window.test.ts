// The detached window of a jump far back: opened from a chat.history `messageId` window, paged both ways,
// bounded, and handed back to the live transcript at the end.
import { describe, expect, it } from 'vitest'
import type { ChatHistoryWindow, HistoryMessage } from '../../../shared/methods'
import { detachedHas, MAX_DETACHED_ROWS, openDetached, pageLimit, withNewer, withOlder, type DetachedView } from './detached-window'

// a transcript of `turns` runs, each a question and its answer (rows r0, r1, …; run n = rows 2n, 2n+1)
function transcript(turns: number): HistoryMessage[] {
  const rows: HistoryMessage[] = []
  for (let n = 0; n < turns; n++) {
    rows.push({ id: `r${2 * n}`, runId: `run${n}`, role: 'user', content: `Question ${n}`, timestamp: n * 1000 })
    rows.push({ id: `r${2 * n + 1}`, runId: `run${n}`, role: 'assistant', content: [{ type: 'text', text: `Answer ${n}` }], stopReason: 'stop', timestamp: n * 1000 + 500 })
  }
  return rows.map((m, i) => ({ ...m, __openclaw: { id: m.id, seq: i + 1 } }))
}

/** The runtime's window (runner/chat-history.ts windowHistory, without its byte cap). */
function around(rows: HistoryMessage[], id: string, limit: number): HistoryMessage[] {
  const at = rows.findIndex((r) => r.id === id)
  if (at < 0) return []
  let newer = Math.min(Math.floor(limit / 2), rows.length - 1 - at)
  const older = Math.min(limit - 1 - newer, at)
  newer = Math.min(limit - 1 - older, rows.length - 1 - at)
  return rows.slice(at - older, at + newer + 1)
}

const win = (rows: HistoryMessage[], id: string, limit: number): ChatHistoryWindow => ({
  sessionKey: 'k',
  sessionId: 's',
  messages: around(rows, id, limit),
  inFlightRun: { runId: 'live', text: 'streaming…' },
})
const ids = (v: DetachedView) => v.rows.map((m) => m.id)
const userTexts = (v: DetachedView) => v.transcript.items.filter((it) => it.kind === 'user').map((it) => (it as { text: string }).text)

describe('detached window', () => {
  it('opens at the message with a bounded number of rows, starting at a whole run; no run in flight drawn', () => {
    const rows = transcript(2000)
    // the window of 11 around r1001 is r996..r1006: its first run may have rows before r996 — left out
    const v = openDetached('k', win(rows, 'r1001', 11), 'r1001', 11)!
    expect(ids(v)[0]).toBe('r998')
    expect(ids(v).at(-1)).toBe('r1006')
    expect(v.hasOlder).toBe(true)
    // r1002 (a question): the window r997..r1007 starts inside run 498, which is left out
    const w = openDetached('k', win(rows, 'r1002', 11), 'r1002', 11)!
    expect(ids(w)[0]).toBe('r998')
    expect(detachedHas(w, 'r1002')).toBe(true)
    expect(detachedHas(w, 'r997')).toBe(false)
    expect(userTexts(w)).toEqual(['Question 499', 'Question 500', 'Question 501', 'Question 502', 'Question 503'])
    expect(w.transcript.items.some((it) => it.runId === 'live')).toBe(false)
    expect(openDetached('k', win(rows, 'gone', 11), 'gone', 11)).toBeUndefined()
  })

  it('near the start: nothing older, nothing cut', () => {
    const rows = transcript(100)
    const v = openDetached('k', win(rows, 'r3', 11), 'r3', 11)!
    expect(ids(v)[0]).toBe('r0')
    expect(v.hasOlder).toBe(false)
  })

  it('pages older rows above until the start, newer rows below until the end ("latest")', () => {
    const rows = transcript(60)
    let v = openDetached('k', win(rows, 'r60', 11), 'r60', 11)!
    const limit = pageLimit(10)
    let guard = 0
    while (v.hasOlder && guard++ < 20) {
      const before = v.rows.length
      v = withOlder(v, around(rows, v.rows[0].id, limit), limit)
      expect(v.rows.length).toBeGreaterThan(before)
      // contiguous, whole runs first
      expect(v.rows.map((m) => Number(m.id.slice(1)))).toEqual(Array.from({ length: v.rows.length }, (_, i) => Number(v.rows[0].id.slice(1)) + i))
      expect(Number(v.rows[0].id.slice(1)) % 2).toBe(0)
    }
    expect(ids(v)[0]).toBe('r0')
    let next: DetachedView | 'latest' = v
    for (guard = 0; next !== 'latest' && guard < 20; guard++) next = withNewer(next, around(rows, next.rows[next.rows.length - 1].id, limit), limit)
    expect(next).toBe('latest')
    // the page before the end still added rows: r119 is the last row
    expect(guard).toBeGreaterThan(1)
  })

  it('stays bounded: paging one way drops rows at the other end (at a run start when the oldest go)', () => {
    const rows = transcript(2000)
    const limit = pageLimit()
    let v = openDetached('k', win(rows, 'r2000', 201), 'r2000')!
    for (let i = 0; i < 8; i++) {
      v = withOlder(v, around(rows, v.rows[0].id, limit), limit)
      expect(v.rows.length).toBeLessThanOrEqual(MAX_DETACHED_ROWS)
    }
    expect(v.rows.length).toBe(MAX_DETACHED_ROWS)
    const newest = v.rows[v.rows.length - 1].id
    expect(Number(newest.slice(1))).toBeLessThan(2100)
    for (let i = 0; i < 8; i++) {
      const n = withNewer(v, around(rows, v.rows[v.rows.length - 1].id, limit), limit)
      if (n === 'latest') throw new Error('not at the end yet')
      v = n
      expect(v.rows.length).toBeLessThanOrEqual(MAX_DETACHED_ROWS)
      expect(v.rows[0].role).toBe('user')
    }
    expect(v.hasOlder).toBe(true)
    expect(Number(v.rows[0].id.slice(1))).toBeGreaterThan(1000)
  })

  it('a first row gone (a rewrite) stops paging up; a last row gone hands back to the live transcript', () => {
    const rows = transcript(50)
    const v = openDetached('k', win(rows, 'r50', 11), 'r50', 11)!
    expect(withOlder(v, [], 11).hasOlder).toBe(false)
    expect(withNewer(v, [], 11)).toBe('latest')
  })
})
