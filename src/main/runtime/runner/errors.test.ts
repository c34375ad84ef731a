// Regression (found by the faults suite, test/faults/model-faults.test.ts): a malformed SSE frame reached
// the user as the parser's raw dump (`…; data={"type":; raw=event: …`), and JSON/connection errors came
// without saying they were about the model's reply.
import { describe, expect, it } from 'vitest'
import { classifyError, describeModelError } from './errors'

describe('describeModelError', () => {
  it('turns a malformed stream frame into a readable sentence without the raw frame', () => {
    const raw = 'Could not parse Anthropic SSE event content_block_delta: Unexpected end of JSON input; data={"type":; raw=event: content_block_delta\ndata: {"type":'
    const msg = describeModelError(raw, 'mockant')
    expect(msg).toBe("The model's reply could not be read: the stream from mockant sent malformed data (Unexpected end of JSON input).")
    expect(msg).not.toContain('data=')
    expect(describeModelError('Unterminated string in JSON at position 37', 'mock')).toBe(
      "The model's reply could not be read: the stream from mock sent malformed data (Unterminated string in JSON at position 37).",
    )
  })

  it('says a connection error was the model connection', () => {
    expect(describeModelError('Connection error.', 'mock')).toBe('Connection error: the connection to the model (mock) failed before the reply was complete.')
    expect(describeModelError('terminated', 'mock')).toBe('Connection lost: the model server (mock) closed the connection before the reply was complete.')
    expect(classifyError(undefined, describeModelError('terminated', 'mock')).metaKind).toBe('network')
  })

  it('a refused connection is the network, not the model refusing', () => {
    const text = 'could not reach 127.0.0.1:9 (provider dead): connection refused — is the server running?'
    expect(classifyError(undefined, text)).toEqual({ kind: 'unknown', metaKind: 'network' })
    expect(classifyError(undefined, 'I must refuse: the request was blocked by the content filter')).toEqual({ kind: 'refusal', metaKind: 'refusal' })
  })

  it('a refused key says where to fix it', () => {
    expect(describeModelError('401 {"error":{"message":"Incorrect API key provided"}}', 'openai')).toBe(
      'Model request failed (HTTP 401 from openai): Incorrect API key provided — the server did not accept the API key for openai: check it (Settings → Models, or `loopdesk config set models.providers.openai.apiKey --stdin`)',
    )
  })

  it('a 403 naming another cause (the region) quotes it and blames no key, set or not', () => {
    const raw = '403 {"error":{"message":"You are not allowed to access this model in your region.","type":"permission_error"}}'
    for (const noKeySet of [true, false]) {
      expect(describeModelError(raw, 'mock', undefined, undefined, noKeySet)).toBe(
        'Model request failed (HTTP 403 from mock): You are not allowed to access this model in your region.',
      )
    }
    // a bare refusal, or one about the key, still points at the key
    expect(describeModelError('403 {"error":{"message":"Forbidden"}}', 'mock', undefined, undefined, true)).toMatch(/— the server wants an API key, and none is set for mock/)
    expect(describeModelError('403 {"error":{"message":"Invalid token for this project"}}', 'mock')).toMatch(/— the server did not accept the API key for mock/)
  })

  it('keeps HTTP errors with the provider message', () => {
    expect(describeModelError('500 {"error":{"message":"upstream exploded","type":"server_error"}}', 'mock')).toBe(
      'Model request failed (HTTP 500 from mock): upstream exploded',
    )
    expect(describeModelError('', 'mock')).toBe('The model request failed.')
  })
})
