import { describe, expect, it } from 'vitest'
import { cleanPastedKey } from './pasted-key'

describe('cleanPastedKey', () => {
  it.each([
    [' sk-abc123\n', 'sk-abc123'],
    ['"sk-abc123"', 'sk-abc123'],
    ["'sk-abc123' ", 'sk-abc123'],
    ['\u201csk-abc123\u201d', 'sk-abc123'],
    ['Bearer sk-abc123', 'sk-abc123'],
    ['Authorization: Bearer sk-abc123', 'sk-abc123'],
    // a quote that belongs to the key (unmatched) stays
    ['"sk-abc123', '"sk-abc123'],
  ])('%j → %j', (raw, want) => {
    expect(cleanPastedKey('p', raw)).toBe(want)
  })

  it('refuses a key broken across lines or with a space inside, naming the problem but not the key', () => {
    expect(() => cleanPastedKey('p', 'sk-secret\n123')).toThrow(/models\.providers\.p\.apiKey: the key has a line break in it — copy it again/)
    expect(() => cleanPastedKey('p', 'sk-secret 123')).toThrow(/has a space in it/)
    expect(() => cleanPastedKey('p', '""')).toThrow(/must not be empty/)
    try {
      cleanPastedKey('p', 'sk-secret\r\n123')
    } catch (e) {
      expect((e as Error).message).not.toContain('sk-secret')
    }
  })
})
