// opensReply: which events open the model's message (the idle timeout applies from them), which are only signs of life.
import { describe, expect, it } from 'vitest'
import { opensReply } from './reply-opened'

describe('opensReply', () => {
  it('Anthropic: a content block opens it; message_start (sent before the first output), ping and error do not', () => {
    expect(opensReply('event: message_start\ndata: {"type":"message_start","message":{}}\n\n', 'anthropic')).toBe(false)
    expect(opensReply('data: {"type":"content_block_start","index":0}\n\n', 'anthropic')).toBe(true)
    expect(opensReply('event: ping\ndata: {"type":"ping"}\n\nevent: content_block_start\ndata: {}\n\n', 'anthropic')).toBe(true)
    expect(opensReply('event: ping\ndata: {"type": "ping"}\n\n', 'anthropic')).toBe(false)
    expect(opensReply('event: error\ndata: {"type":"error","error":{}}\n\n', 'anthropic')).toBe(false)
    expect(opensReply(': keep-alive\n\n', 'anthropic')).toBe(false)
  })

  it('OpenAI: a choice with content, reasoning, a tool call or a finish opens it; the role-only chunk, one without a choice, a comment or [DONE] does not', () => {
    // sent first, also before a reasoning model thinks silently for minutes
    expect(opensReply('data: {"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n', 'openai')).toBe(false)
    expect(opensReply('data: {"id":"x","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n', 'openai')).toBe(true)
    expect(opensReply('data: {"choices":[{"index":0,"delta":{"reasoning_content":"Let me"}}]}\n\n', 'openai')).toBe(true)
    expect(opensReply('data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read","arguments":""}}]}}]}\n\n', 'openai')).toBe(true)
    expect(opensReply('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n', 'openai')).toBe(true)
    // Azure sends its prompt-filter results first, before the model has begun
    expect(opensReply('data: {"id":"","choices":[],"prompt_filter_results":[{"prompt_index":0}]}\n\n', 'openai')).toBe(false)
    expect(opensReply(': OPENROUTER PROCESSING\n\n', 'openai')).toBe(false)
    expect(opensReply('data: [DONE]\n\n', 'openai')).toBe(false)
    // cut across reads: undecided until the chunk is whole
    expect(opensReply('data: {"choices":[{"delta":{"ro', 'openai')).toBe(false)
  })

  it('another endpoint never opens it (only the notice applies)', () => {
    expect(opensReply('event: message_start\ndata: {}\n\n', 'none')).toBe(false)
  })
})
