import { describe, expect, it } from 'vitest'
import { hasHiddenChars, hiddenCharName, isBlankMessage, splitHidden } from './hidden-chars'
import { deriveSessionTitle } from './session-title'

describe('hidden characters', () => {
  it('a message is blank when it shows nothing: whitespace, zero-width, bidi controls, tags, variation selectors', () => {
    for (const t of ['', ' \n\t', '\u200b', '\u200b\u200c\u200d', '\u202e', '\u2066\u2069', '\ufeff', '\u2060', '\u00a0\u3000', '\u{e0068}\u{e0069}', '\ufe0f', '\u3164', '\u00ad'])
      expect(isBlankMessage(t), JSON.stringify(t)).toBe(true)
    for (const t of ['a', '\u200bx', '😀', '\u202e.', '-', '\u0301'.normalize() + 'e']) expect(isBlankMessage(t), JSON.stringify(t)).toBe(false)
  })

  it('splits text at each hidden character, named and labelled; bidi controls flagged', () => {
    expect(splitHidden('rm -rf /tmp/x')).toEqual([{ text: 'rm -rf /tmp/x' }])
    expect(splitHidden('ls \u202efdp.exe\u202c ok')).toEqual([
      { text: 'ls ' },
      { hidden: '\u202e', label: 'U+202E', name: 'right-to-left override', bidi: true },
      { text: 'fdp.exe' },
      { hidden: '\u202c', label: 'U+202C', name: 'pop directional formatting', bidi: true },
      { text: ' ok' },
    ])
    expect(splitHidden('a\u200bb\u{e0041}')).toEqual([
      { text: 'a' },
      { hidden: '\u200b', label: 'U+200B', name: 'zero width space', bidi: false },
      { text: 'b' },
      { hidden: '\u{e0041}', label: 'U+E0041', name: "tag character 'A'", bidi: false },
    ])
    expect(hasHiddenChars('plain')).toBe(false)
    expect(hasHiddenChars('x\u2067y')).toBe(true)
    expect(hiddenCharName('\u2063')).toBe('invisible separator')
  })

  it('a derived title drops them but keeps ZWJ (emoji) and drops tag characters', () => {
    expect(deriveSessionTitle('\u202eolleh')).toBe('olleh')
    expect(deriveSessionTitle('hi\u{e0041}\u{e0042}')).toBe('hi')
    expect(deriveSessionTitle('👩\u200d💻 work')).toBe('👩\u200d💻 work')
  })
})
