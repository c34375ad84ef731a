import { describe, expect, it } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { rebuildHistory, tailOrphans } from './history'

const m = (id: string, message: Record<string, unknown>, runId = 'r1'): TranscriptEntry => ({ type: 'message', id, timestamp: 1, runId, message: { timestamp: 1, ...message } as any })

describe('rebuildHistory', () => {
  it('keeps user/assistant/toolResult, drops tool-only system messages, keeps instruction system messages mid-conversation', () => {
    const r = rebuildHistory([
      { type: 'session', version: 1, id: 's', timestamp: '', cwd: '/', sessionKey: 'k' },
      m('0', { role: 'system', content: '', toolsAdded: [{ name: 'x' }] }),
      m('1', { role: 'user', content: 'hi' }),
      m('2', { role: 'system', content: 'be brief', toolsAdded: [{ name: 'y' }] }),
      m('3', { role: 'assistant', content: [{ type: 'text', text: 'yo' }] }),
      m('4', { role: 'notification', content: 'ui only' }),
    ])
    expect(r.messages.map((x: any) => x.role)).toEqual(['user', 'system', 'assistant'])
    expect((r.messages[1] as any).toolsAdded).toBeUndefined()
    expect(r.lastRunId).toBe('r1')
  })

  it('a compaction entry replaces older history with its summary and keeps the tail from firstKeptEntryId', () => {
    const r = rebuildHistory([
      m('1', { role: 'user', content: 'old' }),
      m('2', { role: 'assistant', content: [] }),
      m('3', { role: 'user', content: 'kept' }),
      m('4', { role: 'assistant', content: [] }),
      { type: 'compaction', id: 'c', timestamp: 2, summary: 'they talked', firstKeptEntryId: '3', tokensBefore: 100 },
      m('5', { role: 'user', content: 'new' }),
    ])
    expect(r.compactionSummary).toBe('they talked')
    expect(r.compactionCount).toBe(1)
    expect(r.messages.map((x: any) => x.content)).toEqual(['kept', [], 'new'])
  })

  it('a reply stored with its <think> tags is rebuilt as a thinking block + the reply (the model never gets its tags back)', () => {
    const r = rebuildHistory([
      m('1', { role: 'user', content: 'hi' }),
      m('2', { role: 'assistant', content: [{ type: 'text', text: '<think>\nGreet back.\n</think>\n\nHello!' }] }),
    ])
    expect((r.messages[1] as any).content).toEqual([
      { type: 'thinking', thinking: 'Greet back.' },
      { type: 'text', text: 'Hello!' },
    ])
  })

  it('finds tool calls after the last user message that never got a result', () => {
    const entries = [
      m('1', { role: 'user', content: 'go' }),
      m('2', { role: 'assistant', content: [{ type: 'toolCall', id: 'a', name: 'read' }, { type: 'toolCall', id: 'b', name: 'exec' }] }, 'dead'),
      m('3', { role: 'toolResult', toolCallId: 'a', toolName: 'read', content: [] }, 'dead'),
    ]
    expect(tailOrphans(entries)).toEqual([{ id: 'b', name: 'exec', runId: 'dead' }])
    expect(tailOrphans([...entries, m('4', { role: 'user', content: 'next' })])).toEqual([])
  })
})
