import { describe, expect, it } from 'vitest'
import { endpointBaseUrl } from './endpoint-url'

describe('endpointBaseUrl', () => {
  it.each([
    [' http://127.0.0.1:11434/v1 \n', 'openai-completions', 'http://127.0.0.1:11434/v1'],
    ['http://127.0.0.1:11434/v1/', 'openai-completions', 'http://127.0.0.1:11434/v1'],
    ['http://127.0.0.1:8080/v1/chat/completions', 'openai-completions', 'http://127.0.0.1:8080/v1'],
    ['https://api.example.com/v1/chat/completions/', undefined, 'https://api.example.com/v1/chat/completions'],
    ['https://api.example.com/v1/responses', 'openai-responses', 'https://api.example.com/v1'],
    ['https://llm.example.com/v1', 'anthropic-messages', 'https://llm.example.com'],
    ['https://llm.example.com/v1/messages', 'anthropic-messages', 'https://llm.example.com'],
    ['https://llm.example.com/anthropic/v1/', 'anthropic-messages', 'https://llm.example.com/anthropic'],
    // a query names an exact URL; a URL with only an endpoint path keeps it rather than lose its host
    ['https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=1', 'openai-completions', 'https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=1'],
    ['http://127.0.0.1:1234', 'openai-completions', 'http://127.0.0.1:1234'],
  ])('%j (%s) → %s', (raw, api, want) => {
    expect(endpointBaseUrl(raw, api)).toBe(want)
  })
})
