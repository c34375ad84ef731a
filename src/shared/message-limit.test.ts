import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import { MAX_MESSAGE_CHARS, messageLength, messageOverLimit } from './message-limit'
import { Schemas } from './methods'

describe('message limit', () => {
  it('is the limit chat.send checks', () => {
    const v = Compile(Schemas['chat.send'])
    const params = (message: string) => ({ sessionKey: 'main', message, idempotencyKey: 'k' })
    expect(v.Check(params('z'.repeat(MAX_MESSAGE_CHARS)))).toBe(true)
    expect(v.Check(params('z'.repeat(MAX_MESSAGE_CHARS + 1)))).toBe(false)
    expect(messageOverLimit('z'.repeat(MAX_MESSAGE_CHARS))).toBe(0)
    expect(messageOverLimit('z'.repeat(MAX_MESSAGE_CHARS + 500))).toBe(500)
  })

  it('counts characters as the schema does (emoji, ZWJ sequences, combining marks, flags, lone surrogates)', () => {
    const pieces = ['a', 'é', 'e\u0301', 'e\u0301\u0302', '😀', '👍🏽', '❤️', '👨‍👩‍👧', '🇫🇷', '🇫', '\u200d', '\ud800', '\udc00', 'x\ufe0f', ' ', '\u1ab0', '🏳️‍🌈']
    // a fixed pseudo-random sequence: the same strings on every run
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let round = 0; round < 400; round++) {
      let s = ''
      const len = next() % 12
      for (let i = 0; i < len; i++) s += pieces[next() % pieces.length]
      const n = messageLength(s)
      // the schema's maxLength at exactly the count passes, one below fails
      expect(Compile({ type: 'string', maxLength: n }).Check(s), JSON.stringify(s)).toBe(true)
      if (n > 0) expect(Compile({ type: 'string', maxLength: n - 1 }).Check(s), JSON.stringify(s)).toBe(false)
    }
  })
})
