import { describe, expect, it } from 'vitest'
import type { ToolItem } from '../state/types'
import { attentionLabel, attentionListLabel, attentionOf, countsText, namesText } from './tool-group-summary'

const tool = (name: string, status: ToolItem['status'] = 'done', id = name + status + Math.random()): ToolItem => ({ kind: 'tool', key: id, runId: 'r', ts: 1, toolCallId: id, name, args: {}, status })

describe('tool group summary', () => {
  it('counts the calls, the failed and the running ones', () => {
    const tools = [...Array.from({ length: 9 }, () => tool('exec')), tool('read', 'failed'), tool('read', 'failed'), tool('write', 'running')]
    expect(countsText(tools)).toBe('12 tool calls · 2 failed · 1 running')
    expect(countsText([tool('a'), tool('b'), tool('c'), tool('d')])).toBe('4 tool calls')
    expect(attentionOf(tools).map((t) => `${t.name} ${t.status}`)).toEqual(['read failed', 'read failed', 'write running'])
  })

  it('a call waiting for approval is counted and named apart from the running ones', () => {
    const waiting: ToolItem = { ...tool('exec', 'running'), approval: { askedAt: 1 } }
    const answered: ToolItem = { ...tool('exec', 'running'), approval: { decision: 'allow-once' } }
    const tools = [tool('read'), tool('read'), tool('write', 'running'), answered, waiting]
    expect(countsText(tools)).toBe('5 tool calls · 2 running · 1 waiting for approval')
    expect(attentionOf(tools).map(attentionLabel)).toEqual(['Running', 'Running', 'Waiting for approval'])
  })

  it("the list's name says what it holds: a call waiting for approval is not called running", () => {
    const waiting: ToolItem = { ...tool('exec', 'running'), approval: { askedAt: 1 } }
    expect(attentionListLabel([tool('read', 'failed')])).toBe('Failed calls')
    expect(attentionListLabel([tool('read', 'failed'), tool('write', 'running')])).toBe('Failed and running calls')
    expect(attentionListLabel([waiting])).toBe('Calls waiting for approval')
    expect(attentionListLabel([tool('write', 'running'), waiting])).toBe('Running calls and calls waiting for approval')
    expect(attentionListLabel([tool('read', 'failed'), tool('write', 'running'), waiting])).toBe('Failed and running calls and calls waiting for approval')
  })

  it('names the tools, most used first, the rest counted', () => {
    const tools = [tool('read'), tool('exec'), tool('exec'), tool('exec'), tool('read'), tool('write')]
    expect(namesText(tools)).toBe('exec ×3, read ×2, write')
    expect(namesText([tool('a'), tool('b'), tool('c'), tool('d'), tool('e'), tool('f')], 4)).toBe('a, b, c, d, +2 more')
  })
})
