import { describe, expect, it } from 'vitest'
import { conversationMarkdown, wholeConversation } from './conversation-markdown'
import type { ChatHistoryPage } from './methods'

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

describe('wholeConversation while the session is being written', () => {
  /** chat.history over a live transcript: offset counts back from the newest message, as the runtime's does */
  function livePager(initial: number, opts: { appendPerPage?: number; resetAfterPage?: number; limit?: number } = {}) {
    let sessionId = 's1'
    let msgs = Array.from({ length: initial }, (_, i) => ({ role: 'user', content: `m${i}`, __openclaw: { id: `${sessionId}-${i}` } }))
    let served = 0
    return async (p: { offset?: number; limit?: number }): Promise<ChatHistoryPage> => {
      const limit = opts.limit ?? p.limit ?? 1000
      const end = msgs.length - (p.offset ?? 0)
      const first = Math.max(0, end - limit)
      const page: ChatHistoryPage = {
        sessionKey: 'agent:main:main',
        sessionId,
        messages: msgs.slice(first, end) as ChatHistoryPage['messages'],
        hasMore: first > 0,
        ...(first > 0 ? { nextOffset: msgs.length - first } : {}),
      }
      served++
      // a run writing meanwhile: new messages land between two page requests
      for (let k = 0; k < (opts.appendPerPage ?? 0); k++) msgs.push({ role: 'assistant', content: `new${msgs.length}`, __openclaw: { id: `${sessionId}-${msgs.length}` } })
      if (served === opts.resetAfterPage) {
        sessionId = 's2'
        msgs = [{ role: 'user', content: 'after reset', __openclaw: { id: 's2-0' } }]
      }
      return page
    }
  }

  const ids = (pages: ChatHistoryPage[] | undefined) => pages!.flatMap((p) => p.messages.map((m) => m.__openclaw!.id))

  it('messages appended between pages are not exported twice, and none is skipped', async () => {
    const out = ids(await wholeConversation(livePager(2500, { appendPerPage: 7, limit: 1000 })))
    expect(new Set(out).size).toBe(out.length)
    expect(out.slice(0, 2500)).toEqual(Array.from({ length: 2500 }, (_, i) => `s1-${i}`))
  })

  it('a reset between pages does not splice two conversations together: the export is read again', async () => {
    const out = ids(await wholeConversation(livePager(2500, { resetAfterPage: 1, limit: 1000 })))
    expect(out).toEqual(['s2-0'])
  })
})

describe('wholeConversation over a session reset again and again', () => {
  it('gives up (undefined) rather than returning part of a conversation as the whole', async () => {
    let served = 0
    // every page request finds another transcript (resets faster than the export reads), each 2,500 messages long
    const page = async (p: { offset?: number; limit?: number }): Promise<ChatHistoryPage> => {
      const sessionId = `s${served++}`
      const end = 2500 - (p.offset ?? 0)
      const first = Math.max(0, end - (p.limit ?? 1000))
      const messages = Array.from({ length: end - first }, (_, i) => ({ role: 'user', content: 'x', __openclaw: { id: `${sessionId}-${first + i}` } }))
      return { sessionKey: 'agent:main:main', sessionId, messages: messages as ChatHistoryPage['messages'], hasMore: first > 0, ...(first > 0 ? { nextOffset: 2500 - first } : {}) }
    }
    await expect(wholeConversation(page)).resolves.toBeUndefined()
  })
})
