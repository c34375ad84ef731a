import { describe, expect, it } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { historyRowOfPayload } from '../../../shared/history-row'
import { INTERRUPTED_RUN } from './recovery'
import { HISTORY_MESSAGE_MAX_BYTES, HISTORY_OMITTED_TEXT, HISTORY_TOTAL_MAX_BYTES, historyRows, pageHistory, sessionMessageOf, windowHistory } from './chat-history'

const msg = (id: string, role: string, content: unknown, extra: Record<string, unknown> = {}): TranscriptEntry => ({
  type: 'message',
  id,
  timestamp: 1,
  runId: 'r',
  message: { role, content, timestamp: 1, ...extra },
})
const text = (t: string) => [{ type: 'text', text: t }]

describe('chat history', () => {
  it('maps entries to rows, hides NO_REPLY-only assistant rows and empty system rows, keeps ids and run ids', () => {
    const rows = historyRows([
      { type: 'session', version: 1, id: 's', timestamp: '', cwd: '/', sessionKey: 'agent:main:main' },
      msg('1', 'user', text('hi')),
      msg('2', 'assistant', text('NO_REPLY'), { stopReason: 'stop' }),
      msg('3', 'system', '', { toolsAdded: [] }),
      msg('4', 'assistant', text('partial'), { stopReason: 'aborted' }),
      msg('5', 'toolResult', text('out'), { toolCallId: 'c', toolName: 'read', isError: false }),
      { type: 'compaction', id: '6', timestamp: 2, summary: 'sum', firstKeptEntryId: '4', tokensBefore: 10 },
      { type: 'run', id: '7', timestamp: 3, runId: 'r', phase: 'interrupted' },
    ])
    expect(rows.map((r) => r.id)).toEqual(['1', '4', '5', '6'])
    expect(rows[1]).toMatchObject({ role: 'assistant', aborted: true, runId: 'r' })
    expect(rows[2]).toMatchObject({ role: 'toolResult', toolCallId: 'c', toolName: 'read', isError: false })
    expect(rows[3]).toMatchObject({ role: 'compaction', summary: 'sum' })
  })

  it('a run an older recovery left ending on its tool turn reads interrupted; nothing else a `run` entry names changes', () => {
    const of = (runId: string, e: TranscriptEntry): TranscriptEntry => ({ ...e, runId }) as TranscriptEntry
    const toolTurn = (id: string) => msg(id, 'assistant', [...text('Checking.'), { type: 'toolCall', id: `c${id}`, name: 'exec', arguments: {} }], { stopReason: 'toolUse' })
    const result = (id: string, call: string) => msg(id, 'toolResult', text('Tool result missing: the run was interrupted before this tool finished.'), { toolCallId: call, isError: true })
    const marker = (runId: string): TranscriptEntry => ({ type: 'run', id: `m-${runId}`, timestamp: 9, runId, phase: 'interrupted', status: 'interrupted' })
    const entries: TranscriptEntry[] = [
      // cut off while its tool ran (what recovery wrote before it closed runs with a message)
      of('old', msg('o1', 'user', text('check'))),
      of('old', toolTurn('o2')),
      of('old', result('o3', 'co2')),
      marker('old'),
      // the reply was complete before the crash: the marker changes nothing
      of('done', msg('d1', 'user', text('hi'))),
      of('done', toolTurn('d2')),
      of('done', result('d3', 'cd2')),
      of('done', msg('d4', 'assistant', text('All done.'), { stopReason: 'stop' })),
      marker('done'),
      // closed by today's recovery: its own message says so
      of('new', msg('n1', 'user', text('again'))),
      of('new', toolTurn('n2')),
      of('new', result('n3', 'cn2')),
      of('new', msg('n4', 'assistant', [], { stopReason: 'error', errorMessage: INTERRUPTED_RUN, interrupted: true })),
      marker('new'),
      // a run ending on a tool turn without a marker (never a crash recovery's) is left alone
      of('plain', msg('p1', 'user', text('go'))),
      of('plain', toolTurn('p2')),
    ]
    const rows = historyRows(entries)
    const flagged = rows.filter((r) => r.interrupted)
    expect(flagged.map((r) => r.id)).toEqual(['o2', 'n4'])
    expect(flagged[0]).toMatchObject({ role: 'assistant', stopReason: 'toolUse', errorMessage: INTERRUPTED_RUN })
    expect(rows.filter((r) => r.errorMessage).map((r) => r.id)).toEqual(['o2', 'n4'])
    // the marker is the evidence: without it the same messages read as they are
    expect(historyRows(entries.filter((e) => e.type !== 'run')).some((r) => r.id === 'o2' && r.interrupted)).toBe(false)
  })

  it('a replayed session.message payload (a history delta) gives the very row a page gives; hidden messages none', () => {
    const entries = [
      msg('1', 'user', text('hi')),
      msg('2', 'assistant', text('NO_REPLY'), { stopReason: 'stop' }),
      msg('3', 'system', '', { toolsAdded: [] }),
      msg('4', 'assistant', [...text('calling'), { type: 'toolCall', id: 'c', name: 'read', arguments: {} }], { stopReason: 'toolUse', usage: { input: 1 } }),
      msg('5', 'toolResult', text('out'), { toolCallId: 'c', toolName: 'read', isError: true }),
      msg('6', 'assistant', text('partial'), { stopReason: 'aborted', errorMessage: 'stopped' }),
      { ...msg('7', 'user', 'plain'), runId: undefined },
    ] as Array<Extract<TranscriptEntry, { type: 'message' }>>
    const fromDelta = entries.map((e, i) => historyRowOfPayload(sessionMessageOf('agent:main:main', e, i + 1)))
    expect(fromDelta.filter((r) => r !== undefined)).toEqual(historyRows(entries))
    expect(fromDelta.map((r) => r?.id)).toEqual(['1', undefined, undefined, '4', '5', '6', '7'])
  })

  it('pages backwards with offset / hasMore / nextOffset', () => {
    const rows = historyRows(Array.from({ length: 10 }, (_, i) => msg(String(i), 'user', text(`m${i}`))))
    const p1 = pageHistory(rows, { limit: 4 })
    expect(p1.messages.map((m) => m.id)).toEqual(['6', '7', '8', '9'])
    expect(p1).toMatchObject({ hasMore: true, nextOffset: 4 })
    const p2 = pageHistory(rows, { limit: 4, offset: p1.nextOffset })
    expect(p2.messages.map((m) => m.id)).toEqual(['2', '3', '4', '5'])
    const p3 = pageHistory(rows, { limit: 4, offset: p2.nextOffset })
    expect(p3.messages.map((m) => m.id)).toEqual(['0', '1'])
    expect(p3.hasMore).toBe(false)
    expect(p3.nextOffset).toBeUndefined()
  })

  it('replaces a message over 128 KiB with a placeholder and caps text with maxChars', () => {
    const rows = historyRows([msg('big', 'toolResult', text('x'.repeat(HISTORY_MESSAGE_MAX_BYTES + 10))), msg('small', 'user', text('hello world'))])
    const p = pageHistory(rows)
    expect(p.messages[0].content).toEqual([{ type: 'text', text: HISTORY_OMITTED_TEXT }])
    expect(pageHistory(rows, { maxChars: 5 }).messages[1].content).toEqual([{ type: 'text', text: 'hello' }])
    // a window around a row (a jump's detached view) asks for whole rows as the window's pages do
    expect(windowHistory(rows, 'small', { limit: 3 })[0].content).toEqual([{ type: 'text', text: HISTORY_OMITTED_TEXT }])
    expect(windowHistory(rows, 'small', { limit: 3, wholeMessages: true })[0].content).toEqual(rows[0].content)
  })

  it('stops at 6 MiB total, keeping the newest messages', () => {
    const rows = historyRows(Array.from({ length: 60 }, (_, i) => msg(String(i), 'user', text('y'.repeat(120 * 1024)))))
    const p = pageHistory(rows, { limit: 60 })
    expect(p.messages.length).toBeLessThan(60)
    expect(p.messages.at(-1)!.id).toBe('59')
    expect(p.hasMore).toBe(true)
    expect(p.nextOffset).toBe(p.messages.length)
  })

  it('messageId: a window of limit rows around the row, about half newer; [] when no row has that id', () => {
    const rows = historyRows(Array.from({ length: 10 }, (_, i) => msg(`e${i}`, 'user', text(`m${i}`))))
    const ids = (ms: { id: string }[]) => ms.map((m) => m.id)
    expect(ids(windowHistory(rows, 'e5', { limit: 4 }))).toEqual(['e4', 'e5', 'e6', 'e7'])
    expect(ids(windowHistory(rows, 'e5', { limit: 5 }))).toEqual(['e3', 'e4', 'e5', 'e6', 'e7'])
    expect(ids(windowHistory(rows, 'e5', { limit: 1 }))).toEqual(['e5'])
    // at either end the window fills up from the other side
    expect(ids(windowHistory(rows, 'e0', { limit: 4 }))).toEqual(['e0', 'e1', 'e2', 'e3'])
    expect(ids(windowHistory(rows, 'e9', { limit: 4 }))).toEqual(['e6', 'e7', 'e8', 'e9'])
    expect(ids(windowHistory(rows, 'e5'))).toEqual(ids(rows))
    expect(windowHistory(rows, 'nope')).toEqual([])
    expect(windowHistory(rows, 'e5', { limit: 1, maxChars: 1 })[0].content).toEqual([{ type: 'text', text: 'm' }])
  })

  it('messageId: within 6 MiB the rows nearest the anchor stay', () => {
    const rows = historyRows(Array.from({ length: 80 }, (_, i) => msg(`e${i}`, 'user', text('y'.repeat(120 * 1024)))))
    const w = windowHistory(rows, 'e40', { limit: 80 })
    expect(w.length).toBeLessThan(80)
    expect(w.length * 120 * 1024).toBeLessThanOrEqual(HISTORY_TOTAL_MAX_BYTES)
    const at = w.findIndex((m) => m.id === 'e40')
    // as many on each side as fit, give or take one
    expect(Math.abs(at - (w.length - 1 - at))).toBeLessThanOrEqual(1)
  })
})
