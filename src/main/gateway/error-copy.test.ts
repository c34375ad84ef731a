// OpenClaw 2026.9's failure sentences for stored provider errors (assistant-request-failure-copy), as the
// v4 display copy of a failed turn uses them.
import { describe, expect, it } from 'vitest'
import { assistantFailureCopy, errorHttpStatus, recordedFailureCopy } from './error-copy'

describe('errorHttpStatus', () => {
  it('reads a status stated at the start only', () => {
    expect(errorHttpStatus('429 Rate limit reached')).toBe(429)
    expect(errorHttpStatus('401: {"message":"x"}')).toBe(401)
    expect(errorHttpStatus('HTTP 503 upstream')).toBe(503)
    expect(errorHttpStatus('Error: 500 boom')).toBe(500)
    expect(errorHttpStatus('Anthropic API error (529): overloaded')).toBe(529)
    expect(errorHttpStatus('status code 502')).toBe(502)
    expect(errorHttpStatus('the server said 500 things')).toBeUndefined()
    expect(errorHttpStatus('999 nope')).toBeUndefined()
  })
})

describe('assistantFailureCopy', () => {
  const copy = (errorMessage: string, extra = {}) => assistantFailureCopy({ role: 'assistant', stopReason: 'error', errorMessage, ...extra })
  it('names the failure class and status, never the provider text', () => {
    expect(copy('402 Payment Required')).toBe('⚠️ LLM request failed (provider billing issue, HTTP 402). Check provider billing and try again.')
    expect(copy('404 The model `gpt-9` does not exist')).toBe('⚠️ LLM request failed (model not found, HTTP 404).')
    expect(copy('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe('⚠️ LLM request failed (provider overloaded, HTTP 529). This is usually temporary — try again shortly.')
    expect(copy('504 Gateway Timeout')).toBe('⚠️ LLM request failed (request timed out, HTTP 504). This is usually temporary — try again shortly.')
    expect(copy('400 invalid tool schema at tools[3]')).toBe('⚠️ LLM request failed (request format rejected, HTTP 400).')
    expect(copy('418 teapot')).toBe('⚠️ LLM request failed (HTTP 418).')
    expect(copy('Request timed out.')).toBe('⚠️ LLM request failed (request timed out). This is usually temporary — try again shortly.')
    expect(copy('getaddrinfo ENOTFOUND api.example')).toBe('LLM request failed: DNS lookup for the provider endpoint failed.')
    expect(copy('fetch failed')).toBe('LLM request failed: network connection error.')
  })
  it('a bounded limit the provider stated is told', () => {
    expect(copy('400 max_tokens: 64000 exceeds the maximum of 32000 tokens')).toBe('LLM request rejected: configured maxTokens is 64000, above the provider maximum of 32000. Lower maxTokens and try again.')
    expect(copy('400 {"type":"error","error":{"type":"invalid_request_error","message":"A maximum of 4 blocks with cache_control may be provided. Found 5."}}')).toBe(
      'LLM request rejected: provider allows at most 4 cache_control blocks; the request contained 5.',
    )
    expect(copy('x', { errorCode: 'context_overflow' })).toMatch(/^Context overflow:/)
    expect(copy('x', { errorCode: 'incomplete_tool_call' })).toMatch(/^⚠️ The provider returned an unfinished tool call\./)
  })
  it('what cannot be classified gets the generic sentence, and is no classified copy', () => {
    expect(copy('Storage error (ENOSPC): the disk is full')).toBe('The agent run failed before producing a reply.')
    expect(recordedFailureCopy({ errorMessage: 'odd' })).toBeUndefined()
    expect(assistantFailureCopy({})).toBe('The agent run failed before producing a reply.')
  })
})
