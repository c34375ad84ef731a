import { describe, expect, it } from 'vitest'
import type { ChatEvent } from '../../shared/events'
import { withAgentId } from './agent-id-wire'
import { chatPayloadFor } from './chat-wire'

const message = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Hello' }], timestamp: 1 }
const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, costUsd: 0 }
const key = 'agent:ops:k'

describe('chatPayloadFor', () => {
  it('gives v4 deltas their deltaText/replace and v3 deltas neither', () => {
    const delta: ChatEvent = { runId: 'r', sessionKey: key, seq: 2, state: 'delta', message, deltaText: 'Hello', replace: true }
    expect(chatPayloadFor(delta, 4)).toEqual({ ...delta, agentId: 'ops' })
    expect(chatPayloadFor(delta, 3)).toEqual({ runId: 'r', sessionKey: key, seq: 2, state: 'delta', message })
  })

  it('drops usage from aborted events on v4 only; finals keep it everywhere', () => {
    const aborted: ChatEvent = { runId: 'r', sessionKey: key, seq: 3, state: 'aborted', stopReason: 'aborted', usage }
    expect(chatPayloadFor(aborted, 4)).toEqual({ runId: 'r', sessionKey: key, seq: 3, state: 'aborted', stopReason: 'aborted', agentId: 'ops' })
    expect(chatPayloadFor(aborted, 3)).toBe(aborted)
    const final: ChatEvent = { runId: 'r', sessionKey: key, seq: 4, state: 'final', message, usage }
    expect(chatPayloadFor(final, 4)).toEqual({ ...final, agentId: 'ops' })
    expect(chatPayloadFor(final, 3)).toBe(final)
  })
})

describe('withAgentId', () => {
  it("names the session key's agent on v4 only, never for a payload without a (canonical) session key", () => {
    const ev = { runId: 'r', sessionKey: 'agent:Main:x', seq: 1 }
    expect(withAgentId(ev, 4)).toEqual({ ...ev, agentId: 'main' })
    expect(withAgentId(ev, 3)).toBe(ev)
    const keyless: { runId: string; seq: number; sessionKey?: string } = { runId: 'r', seq: 1 }
    expect(withAgentId(keyless, 4)).toBe(keyless)
    const bare = { runId: 'r', sessionKey: 'global', seq: 1 }
    expect(withAgentId(bare, 4)).toBe(bare)
  })
})
