// OpenClaw v4's display copy of one transcript message, as its chat display projection makes it (checked
// against openclaw@2026.9.6's dist, chat-display-projection.core).
import { describe, expect, it } from 'vitest'
import { projectDisplayMessage, stripControlToken } from './display-projection'

const meta = { __openclaw: { id: 'e1', seq: 2 } }

describe('projectDisplayMessage', () => {
  it('strips a trailing control token from assistant text, before the cap; a user message keeps it', () => {
    const m = { role: 'assistant', content: [{ type: 'text', text: 'Done.\n\nNO_REPLY' }], ...meta }
    expect(projectDisplayMessage(m)).toEqual({ ...m, content: [{ type: 'text', text: 'Done.' }] })
    expect(stripControlToken('All set **NO_REPLY')).toBe('All set')
    expect(stripControlToken('ok NO_REPLY NO_REPLY')).toBe('ok')
    expect(stripControlToken('say NO_REPLY to them')).toBe('say NO_REPLY to them')
    expect(stripControlToken('ANNOUNCE_SKIP.')).toBe('')
    const user = { role: 'user', content: 'tell me NO_REPLY' }
    expect(projectDisplayMessage(user)).toEqual(user)
  })

  it('keeps a token-only text next to a tool call (OpenClaw preserves it there)', () => {
    const m = { role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY' }, { type: 'toolCall', id: 'c1', name: 'message', arguments: { text: 'hi' } }] }
    expect((projectDisplayMessage(m) as any).content[0].text).toBe('NO_REPLY')
  })

  it('caps text and thinking at 8,000 characters with the marker, tool output without it, and marks the cut', () => {
    const long = 'a'.repeat(9000)
    const m = {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: long, thinkingSignature: 'sig' }, { type: 'text', text: long, textSignature: 'id-1' }],
      ...meta,
    }
    const p = projectDisplayMessage(m) as any
    expect(p.content[0]).toEqual({ type: 'thinking', thinking: 'a'.repeat(8000) + '\n...(truncated)...' })
    expect(p.content[1]).toEqual({ type: 'text', text: 'a'.repeat(8000) + '\n...(truncated)...', textSignature: 'id-1' })
    expect(p.__openclaw).toEqual({ id: 'e1', seq: 2, truncated: true, reason: 'display-cap' })
    // the stored message is untouched
    expect(m.content[1].text).toHaveLength(9000)
    expect(m.__openclaw).toEqual({ id: 'e1', seq: 2 })

    const r = projectDisplayMessage({ role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: long }], details: { path: 'a', diff: 'd', changed: true } }) as any
    expect(r.content[0].text).toBe('a'.repeat(8000))
    expect(r.details).toEqual({ diff: 'd', changed: true })
    expect(r.__openclaw).toEqual({ truncated: true, reason: 'display-cap' })
    // a surrogate pair is not split
    const emoji = projectDisplayMessage({ role: 'user', content: 'b'.repeat(7999) + '😀' + 'c'.repeat(10) }) as any
    expect(emoji.content).toBe('b'.repeat(7999) + '\n...(truncated)...')
  })

  it('drops details off tool results (and anywhere else), usage off non-assistant messages, reduces an assistant usage to its numbers', () => {
    expect(projectDisplayMessage({ role: 'toolResult', toolCallId: 'c', toolName: 'exec', content: [], details: { exitCode: 0, cwd: '/home/x' } })).toEqual({ role: 'toolResult', toolCallId: 'c', toolName: 'exec', content: [] })
    expect(projectDisplayMessage({ role: 'custom', details: { a: 1 }, usage: { input: 1 } })).toEqual({ role: 'custom' })
    const a = projectDisplayMessage({ role: 'assistant', content: [], providerReplay: { x: 1 }, usage: { input: 3, output: 4, totalTokens: 7, note: 'x', cost: { total: 0.1, currency: 'usd' } } })
    expect(a).toEqual({ role: 'assistant', content: [], usage: { input: 3, output: 4, totalTokens: 7, cost: { total: 0.1 } } })
  })

  it('leaves out inline media data and local paths, telling its size', () => {
    const data = Buffer.from('0123456789').toString('base64')
    const p = projectDisplayMessage({ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', data, mimeType: 'image/png' }, { type: 'image', url: 'https://u:p@host/i.png?t=1#x' }] }) as any
    expect(p.content[1]).toEqual({ type: 'image', mimeType: 'image/png', omitted: true, bytes: 10 })
    expect(p.content[2]).toEqual({ type: 'image', url: 'https://host/i.png' })
  })

  it('tool calls next to text: plain text blocks, commentary dropped; phased text: only the final answer', () => {
    const sig = (phase: string) => JSON.stringify({ v: 1, id: 'm1', phase })
    const mixed = projectDisplayMessage({
      role: 'assistant',
      phase: 'commentary',
      content: [
        { type: 'text', text: 'thinking aloud', textSignature: sig('commentary') },
        { type: 'text', text: 'Reading it.', textSignature: sig('final_answer') },
        { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'x' } },
      ],
    })
    expect(mixed).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'x' } }] })
    const phased = projectDisplayMessage({ role: 'assistant', content: [{ type: 'text', text: 'plan', textSignature: sig('commentary') }, { type: 'text', text: 'answer', textSignature: sig('final_answer') }] }) as any
    expect(phased.content.map((b: any) => b.text)).toEqual(['answer'])
  })
})
