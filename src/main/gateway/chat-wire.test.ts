import { describe, expect, it } from 'vitest'
import type { ChatEvent } from '../../shared/events'
import { chatPayloadFor } from './chat-wire'

const message = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Hello' }], timestamp: 1 }
const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, costUsd: 0 }

describe('chatPayloadFor', () => {
  it('gives v4 deltas their deltaText/replace and v3 deltas neither', () => {
    const delta: ChatEvent = { runId: 'r', sessionKey: 'k', seq: 2, state: 'delta', message, deltaText: 'Hello', replace: true }
    expect(chatPayloadFor(delta, 4)).toBe(delta)
    expect(chatPayloadFor(delta, 3)).toEqual({ runId: 'r', sessionKey: 'k', seq: 2, state: 'delta', message })
  })

  it('drops usage from aborted events on v4 only; finals keep it everywhere', () => {
    const aborted: ChatEvent = { runId: 'r', sessionKey: 'k', seq: 3, state: 'aborted', stopReason: 'aborted', usage }
    expect(chatPayloadFor(aborted, 4)).toEqual({ runId: 'r', sessionKey: 'k', seq: 3, state: 'aborted', stopReason: 'aborted' })
    expect(chatPayloadFor(aborted, 3)).toBe(aborted)
    const final: ChatEvent = { runId: 'r', sessionKey: 'k', seq: 4, state: 'final', message, usage }
    expect(chatPayloadFor(final, 4)).toBe(final)
    expect(chatPayloadFor(final, 3)).toBe(final)
  })
})
