// OpenClaw v4's display copy of one transcript message, as its chat display projection makes it (checked
// against openclaw@2026.9.6's dist, chat-display-projection.core).
import { describe, expect, it } from 'vitest'
import { pendingAssistantError, projectDisplayMessage, stripControlToken } from './display-projection'

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

  it('media `source` records: inline data, local paths and non-http urls left out, the block marked, bytes told', () => {
    const data = Buffer.from('0123456789').toString('base64')
    const stored = {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
        { type: 'image', source: { type: 'url', url: 'https://u:p@cdn.example/a.png?sig=1' } },
        { type: 'image', source: { type: 'url', url: 'file:///home/me/secret.png' } },
        { type: 'image', source: { type: 'file', path: '/home/me/secret.png', file_id: 'f1' } },
        { type: 'image', source: '/home/me/secret.png', mimeType: 'image/png' },
        { type: 'audio', source: { type: 'base64', data } },
        { type: 'video', source: { type: 'file', localPath: '/tmp/v.mp4' } },
      ],
    }
    const p = projectDisplayMessage(stored) as any
    expect(p.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png' }, omitted: true, bytes: 10 },
      { type: 'image', source: { type: 'url', url: 'https://cdn.example/a.png' } },
      { type: 'image', source: { type: 'url' }, omitted: true },
      { type: 'image', source: { type: 'file', file_id: 'f1' }, omitted: true },
      { type: 'image', mimeType: 'image/png', omitted: true },
      { type: 'audio', source: { type: 'base64', omitted: true, bytes: 10 } },
      { type: 'video', source: { type: 'file', omitted: true }, omitted: true },
    ])
    // nothing of the payload or the paths in the copy; the stored message untouched
    expect(JSON.stringify(p)).not.toMatch(/secret|\/tmp\/v|MDEy/)
    expect(stored.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } })
  })

  it('an attachment block keeps its record but its inline data and local paths', () => {
    const p = projectDisplayMessage({ role: 'user', content: [{ type: 'attachment', attachment: { name: 'a.pdf', data: 'AAAA', path: '/home/me/a.pdf', url: 'file:///home/me/a.pdf' } }] }) as any
    expect(p.content[0]).toEqual({ type: 'attachment', attachment: { name: 'a.pdf' } })
  })

  it('a failed turn that showed nothing reads OpenClaw\'s failure sentence; no raw error field reaches v4', () => {
    const failed = (errorMessage: string, extra = {}) =>
      projectDisplayMessage({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }], stopReason: 'error', errorMessage, errorBody: '{}', api: 'openai-completions', ...meta, ...extra }) as any
    const p = failed('401 Incorrect API key provided: sk-abc')
    expect(p.content).toEqual([{ type: 'text', text: '⚠️ LLM request failed (authentication failed, HTTP 401). Re-authenticate the provider and try again.' }])
    for (const k of ['errorMessage', 'errorBody', 'errorCode', 'errorType', 'diagnostics']) expect(p).not.toHaveProperty(k)
    expect(p).toMatchObject({ role: 'assistant', stopReason: 'error', api: 'openai-completions', __openclaw: meta.__openclaw })
    expect(failed('429 Rate limit reached').content[0].text).toBe('⚠️ LLM request failed (rate limited, HTTP 429). This is usually temporary — try again shortly.')
    expect(failed('connect ECONNREFUSED 127.0.0.1:1').content[0].text).toBe('LLM request failed: connection refused by the provider endpoint.')
    expect(failed("400 This model's maximum context length is 32000 tokens.").content[0].text).toMatch(/^Context overflow:/)
    expect(failed('something odd').content[0].text).toBe('The agent run failed before producing a reply.')
    expect(failed('x', { diagnostics: [{ type: 'provider_refusal', details: { category: 'cyber' } }] }).content[0].text).toBe('The provider refused this request (category: cyber). Revise the request and try again.')
    // a silent reply that failed is no silent reply
    expect(projectDisplayMessage({ role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY' }], stopReason: 'error', errorMessage: 'x' }).content).toEqual([{ type: 'text', text: 'The agent run failed before producing a reply.' }])
  })

  it('a failed turn that showed text keeps it (reasoning and pi\'s placeholder dropped), the sentence first when classified', () => {
    const partial = { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Half an ans' }], stopReason: 'error' }
    expect(projectDisplayMessage({ ...partial, errorMessage: 'socket hang up' }).content).toEqual([
      { type: 'text', text: 'LLM request failed: network connection was interrupted.\n\nHalf an ans' },
    ])
    const unclassified = projectDisplayMessage({ ...partial, errorMessage: 'odd' }) as any
    expect(unclassified.content).toEqual([{ type: 'text', text: 'Half an ans' }])
    expect(unclassified).not.toHaveProperty('errorMessage')
    const placeholder = projectDisplayMessage({ role: 'assistant', content: [{ type: 'text', text: '[assistant turn failed before producing content]partial' }], stopReason: 'error', errorMessage: 'odd' })
    expect(placeholder.content).toEqual([{ type: 'text', text: 'partial' }])
    // a tool call shows: kept, with the sentence as text
    const call = { type: 'toolCall', id: 'c', name: 'read', arguments: {} }
    expect(projectDisplayMessage({ role: 'assistant', content: [call], stopReason: 'error', errorMessage: '503 upstream' }).content).toEqual([
      call,
      { type: 'text', text: '⚠️ LLM request failed (provider internal error, HTTP 503). This is usually temporary — try again shortly.' },
    ])
  })

  it('a pending failed turn: one of a run that showed nothing, or only pi\'s placeholder', () => {
    const run = { __openclaw: { id: 'e', seq: 3, runId: 'r1' } }
    expect(pendingAssistantError({ role: 'assistant', content: [], stopReason: 'error', errorMessage: 'x', ...run })).toBe(true)
    expect(pendingAssistantError({ role: 'assistant', content: [], stopReason: 'error', errorMessage: 'x' })).toBe(false)
    expect(pendingAssistantError({ role: 'assistant', content: [{ type: 'text', text: '[assistant turn failed before producing content]' }], stopReason: 'error' })).toBe(true)
    expect(pendingAssistantError({ role: 'assistant', content: [{ type: 'text', text: 'partial' }], stopReason: 'error', ...run })).toBe(false)
    expect(pendingAssistantError({ role: 'assistant', content: [], stopReason: 'aborted', ...run })).toBe(false)
    expect(pendingAssistantError({ role: 'assistant', content: [], stopReason: 'error', display: false, ...run })).toBe(false)
  })
})
