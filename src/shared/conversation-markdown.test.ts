import { describe, expect, it } from 'vitest'
import { conversationMarkdown } from './conversation-markdown'

const opts = { title: 'A chat', sessionKey: 'agent:main:x', now: Date.UTC(2026, 10, 23, 19, 30) }

describe('conversationMarkdown', () => {
  it('a header, turns with times, a failed reply named, empty turns skipped', () => {
    const md = conversationMarkdown(
      [
        { role: 'user', content: 'hello', timestamp: Date.UTC(2026, 10, 23, 18, 0) },
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
        { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'Connection error: could not reach x' },
        { role: 'assistant', model: 'm1', content: [{ type: 'text', text: 'Hi!' }, { type: 'image' }] },
      ],
      opts,
    )
    expect(md).toBe(
      [
        '# A chat',
        '',
        'Session `agent:main:x` · 4 messages · exported 2026-11-23 19:30 UTC',
        '',
        '## You — 2026-11-23 18:00 UTC',
        '',
        'hello',
        '',
        '## Assistant',
        '',
        '*The reply failed: Connection error: could not reach x*',
        '',
        '## Assistant (m1)',
        '',
        'Hi!',
        '',
        '*[image]*',
        '',
      ].join('\n'),
    )
  })

  it('a tool result is quoted in a fence longer than any backticks in it, and cut', () => {
    const md = conversationMarkdown([{ role: 'toolResult', toolName: 'exec', content: [{ type: 'text', text: 'a ``` b\n' + 'x'.repeat(400) }] }], opts)
    expect(md).toContain('*result of `exec`:*\n\n````text\na ``` b\n')
    expect(md).toContain('x'.repeat(290))
    expect(md).not.toContain('x'.repeat(400))
    expect(conversationMarkdown([{ role: 'toolResult', toolName: 'write', isError: true, content: [] }], opts)).toContain('*`write` failed: (no output)*')
    // a call that never ran is not "failed"
    const denied = [{ type: 'text', text: 'exec denied by user: the command was not run' }]
    expect(conversationMarkdown([{ role: 'toolResult', toolName: 'exec', isError: true, content: denied }], opts)).toContain('*`exec` denied (not run):*')
  })
})
