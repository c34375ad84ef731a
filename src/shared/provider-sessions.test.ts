import { describe, expect, it } from 'vitest'
import type { SessionRow } from './methods'
import { byKey, providerUseText, sessionsUsingProvider } from './provider-sessions'

const row = (key: string, extra: Partial<SessionRow>): SessionRow =>
  ({ key, kind: 'direct', sessionId: key, agentId: 'main', updatedAt: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0, estimatedCostUsd: 0, compactionCount: 0, ...extra }) as SessionRow

const rows = [
  row('agent:main:a', { label: 'Pinned', modelOverride: 'gone/c1', modelProvider: 'gone', model: 'c1' }),
  row('agent:main:b', { label: 'Ran there', modelProvider: 'gone', model: 'm1' }),
  // chose another model after running on it: the choice is what its runs use, not the provider removed
  row('agent:main:c', { label: 'Moved on', modelOverride: 'mock/big', modelProvider: 'gone', model: 'm1' }),
  row('agent:main:d', { label: 'Elsewhere', modelProvider: 'mock', model: 'big' }),
  row('agent:main:e', { derivedTitle: 'Also ran there', modelProvider: 'gone', model: 'm2' }),
]

describe('sessionsUsingProvider', () => {
  it('tells a chosen model of the provider from a last run on it; a choice elsewhere counts as neither', () => {
    const use = sessionsUsingProvider(rows, 'gone')
    expect(use.pinned.map((r) => r.key)).toEqual(['agent:main:a'])
    expect(use.lastRan.map((r) => r.key)).toEqual(['agent:main:b', 'agent:main:e'])
    expect(sessionsUsingProvider(rows, 'other')).toEqual({ pinned: [], lastRan: [] })
  })

  it('says what happens to each kind, naming the default model (or that there is none left)', () => {
    const use = sessionsUsingProvider(rows, 'gone')
    expect(providerUseText(use, 'gone', 'mock/big')).toEqual([
      '1 session chose a model of “gone” (“Pinned”): its messages fail until another model is chosen (the model name in the conversation header, or /model).',
      '2 sessions last ran on “gone” (“Ran there” and “Also ran there”): from their next message they use the default model, mock/big.',
    ])
    expect(providerUseText(use, 'gone', 'gone/m1')[1]).toMatch(/with no usable default model, their next message fails too\.$/)
    expect(providerUseText(use, 'gone', 'mock/big', byKey)[1]).toContain('(agent:main:b and agent:main:e)')
    const many = sessionsUsingProvider(Array.from({ length: 5 }, (_, i) => row(`agent:main:s${i}`, { modelProvider: 'gone' })), 'gone')
    expect(providerUseText(many, 'gone', 'mock/big', byKey)[0]).toContain('(agent:main:s0, agent:main:s1, agent:main:s2 and 2 more)')
    expect(providerUseText({ pinned: [], lastRan: [] }, 'gone', 'mock/big')).toEqual([])
  })
})
