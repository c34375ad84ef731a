import { describe, expect, it } from 'vitest'
import { newSessionId, isValidSessionId } from './paths'
import { toSessionRow } from './session-row'

describe('toSessionRow', () => {
  it('fills zero defaults and idle status', () => {
    expect(toSessionRow('agent:main:main', { sessionId: 's', updatedAt: 5 }, 'main')).toEqual({
      key: 'agent:main:main',
      sessionId: 's',
      agentId: 'main',
      updatedAt: 5,
      status: 'idle',
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      estimatedCostUsd: 0,
      compactionCount: 0,
    })
  })
  it('copies known fields, not internal ones', () => {
    const row = toSessionRow(
      'agent:main:x',
      {
        sessionId: 's',
        updatedAt: 5,
        status: 'running',
        activeRunId: 'r1',
        label: 'L',
        model: 'openai/gpt',
        inputTokens: 3,
        outputTokens: 4,
        estimatedCostUsd: 0.5,
        lastError: 'e',
        systemPromptReport: { builtAt: 1, chars: 1, sections: [], bootstrapFiles: [], skills: [] },
      },
      'main',
    )
    expect(row).toMatchObject({ status: 'running', activeRunId: 'r1', label: 'L', model: 'openai/gpt', totalTokens: 7, estimatedCostUsd: 0.5, lastError: 'e' })
    expect(row).not.toHaveProperty('systemPromptReport')
  })
})

describe('newSessionId', () => {
  it('is a valid, unique uuid', () => {
    const a = newSessionId()
    expect(a).toMatch(/^[0-9a-f-]{36}$/)
    expect(isValidSessionId(a)).toBe(true)
    expect(newSessionId()).not.toBe(a)
  })
})
