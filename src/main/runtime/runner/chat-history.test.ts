import { describe, expect, it } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { HISTORY_MESSAGE_MAX_BYTES, HISTORY_OMITTED_TEXT, historyRows, pageHistory } from './chat-history'

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
  })

  it('stops at 6 MiB total, keeping the newest messages', () => {
    const rows = historyRows(Array.from({ length: 60 }, (_, i) => msg(String(i), 'user', text('y'.repeat(120 * 1024)))))
    const p = pageHistory(rows, { limit: 60 })
    expect(p.messages.length).toBeLessThan(60)
    expect(p.messages.at(-1)!.id).toBe('59')
    expect(p.hasMore).toBe(true)
    expect(p.nextOffset).toBe(p.messages.length)
  })
})
