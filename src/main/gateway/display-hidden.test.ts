// The messages OpenClaw 2026.9.6's display projection drops (no session.message for v4), and the ones it shows.
import { describe, expect, it } from 'vitest'
import { hiddenFromDisplay } from './display-hidden'

const text = (t: string) => ({ type: 'text', text: t })
const call = { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a' } }

describe('hiddenFromDisplay', () => {
  it('hides silent replies, blank user turns, display:false and runtime context', () => {
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('NO_REPLY')], stopReason: 'stop' })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('  no_reply ')] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('{"action":"NO_REPLY"}')] })).toBe(true)
    // OpenClaw's other control tokens, and the token repeated
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('ANNOUNCE_SKIP')] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('REPLY_SKIP.')] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('NO_REPLY NO_REPLY')] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('skip the ANNOUNCE_SKIP')] })).toBe(false)
    // reasoning does not make a silent reply visible
    expect(hiddenFromDisplay({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, text('NO_REPLY')] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'user', content: [text('   ')] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'user', content: [] })).toBe(true)
    expect(hiddenFromDisplay({ role: 'user', content: '' })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('hello')], display: false })).toBe(true)
    expect(hiddenFromDisplay({ role: 'custom', customType: 'openclaw.runtime-context', content: 'x' })).toBe(true)
    expect(hiddenFromDisplay({ role: 'assistant', phase: 'commentary', content: [text('looking')] })).toBe(true)
  })

  it('shows tool calls, tool results, errors, aborted and empty replies, and user turns with content', () => {
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('NO_REPLY'), call], stopReason: 'toolUse' })).toBe(false)
    expect(hiddenFromDisplay({ role: 'assistant', content: [call], stopReason: 'toolUse' })).toBe(false)
    expect(hiddenFromDisplay({ role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [text('NO_REPLY')], isError: false })).toBe(false)
    expect(hiddenFromDisplay({ role: 'assistant', content: [], stopReason: 'error', errorMessage: 'boom' })).toBe(false)
    expect(hiddenFromDisplay({ role: 'assistant', content: [], stopReason: 'aborted' })).toBe(false)
    // a failed silent reply reads OpenClaw's failure sentence, so it is shown
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('NO_REPLY')], stopReason: 'error', errorMessage: '500 boom' })).toBe(false)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('')], stopReason: 'stop' })).toBe(false)
    expect(hiddenFromDisplay({ role: 'assistant', content: [text('NO_REPLY, sorry')] })).toBe(false)
    expect(hiddenFromDisplay({ role: 'user', content: [text(''), { type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).toBe(false)
    expect(hiddenFromDisplay({ role: 'user', content: [text('NO_REPLY')] })).toBe(false)
    expect(hiddenFromDisplay({ role: 'custom', customType: 'other', content: 'x' })).toBe(false)
    expect(hiddenFromDisplay({ role: 'assistant', phase: 'commentary', content: [text('reading'), call] })).toBe(false)
    expect(hiddenFromDisplay(undefined)).toBe(false)
  })
})
