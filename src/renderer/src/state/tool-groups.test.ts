import { describe, expect, it } from 'vitest'
import { groupOf, toolRows } from './tool-groups'
import type { ApprovalItem, Item, ToolItem } from './types'

const tool = (id: string, runId = 'r1', status: ToolItem['status'] = 'done'): ToolItem => ({ kind: 'tool', key: `t:${id}`, runId, ts: 1, toolCallId: id, name: 'read', args: {}, status })
const text = (key: string, runId = 'r1'): Item => ({ kind: 'assistant', key, runId, ts: 1, text: 'x', streaming: false })
const keys = (items: Item[], open: string[] = []) => toolRows(items, (k) => open.includes(k)).map((r) => r.key)

describe('tool call groups', () => {
  it('four or more consecutive calls are one row; fewer stay cards', () => {
    const items = [text('a'), tool('1'), tool('2'), tool('3'), tool('4'), text('b'), tool('5'), tool('6'), tool('7')]
    expect(keys(items)).toEqual(['a', 'tools:t:1', 'b', 't:5', 't:6', 't:7'])
    const rows = toolRows(items, () => false)
    expect(rows[1].group?.tools.map((t) => t.toolCallId)).toEqual(['1', '2', '3', '4'])
  })

  it('an open group is followed by its calls, each marked as inside it', () => {
    const items = [tool('1'), tool('2'), tool('3'), tool('4'), text('b')]
    const rows = toolRows(items, (k) => k === 'tools:t:1')
    expect(rows.map((r) => r.key)).toEqual(['tools:t:1', 't:1', 't:2', 't:3', 't:4', 'b'])
    expect(rows.slice(1, 5).every((r) => r.group?.key === 'tools:t:1')).toBe(true)
    expect(rows[5].group).toBeUndefined()
  })

  it('an answered approval its card carries does not split a run; a pending one or another run does', () => {
    const approval = (key: string, decided: boolean): ApprovalItem => ({
      kind: 'approval',
      key,
      runId: 'r1',
      ts: 1,
      request: { id: key } as ApprovalItem['request'],
      ...(decided ? { decision: 'allow-once' as const, onTool: true } : {}),
    })
    expect(keys([tool('1'), tool('2'), approval('ap', true), tool('3'), tool('4')])).toEqual(['tools:t:1'])
    expect(keys([tool('1'), tool('2'), approval('ap', false), tool('3'), tool('4')])).toEqual(['t:1', 't:2', 'ap', 't:3', 't:4'])
    expect(keys([tool('1'), tool('2'), tool('3', 'r2'), tool('4', 'r2')])).toEqual(['t:1', 't:2', 't:3', 't:4'])
  })

  it('finds the group of a call, open or closed (a find match or "Show in conversation" opens it)', () => {
    const items = [text('a'), tool('1'), tool('2'), tool('3'), tool('4')]
    expect(groupOf(toolRows(items, () => false), 't:3')).toBe('tools:t:1')
    expect(groupOf(toolRows(items, () => true), 't:3')).toBe('tools:t:1')
    expect(groupOf(toolRows(items, () => false), 'a')).toBeUndefined()
  })
})
