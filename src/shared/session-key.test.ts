import { describe, expect, it } from 'vitest'
import { canonicalSessionKey, parseSessionKey } from './session-key'

describe('session keys', () => {
  it('parses canonical keys and lowercases them', () => {
    expect(parseSessionKey('agent:main:main')).toEqual({ agentId: 'main', rest: 'main' })
    expect(parseSessionKey('AGENT:Main:Chat:42')).toEqual({ agentId: 'main', rest: 'chat:42' })
  })
  it('rejects malformed keys', () => {
    for (const k of ['agent:main', 'agent::x', 'agent:main:', 'agent:MAIN!:x', 'agent:m:a::b', 'main', 'agent:m:a b'])
      expect(parseSessionKey(k), k).toBeUndefined()
  })
  it('canonicalizes bare keys onto the default agent', () => {
    expect(canonicalSessionKey('work')).toBe('agent:main:work')
    expect(canonicalSessionKey('agent:ops:x')).toBe('agent:ops:x')
    expect(canonicalSessionKey('agent:bad')).toBeUndefined()
  })
})
