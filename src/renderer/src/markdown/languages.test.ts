import hljs from 'highlight.js/lib/core'
import { describe, expect, it } from 'vitest'
import { highlightable, knownLanguage, LANGUAGE_ALIASES, LANGUAGE_NAMES, MAX_HIGHLIGHT_CHARS } from './languages'
import './highlight'

describe('the language list the code blocks read before the highlighter loads', () => {
  it('names exactly what highlight.ts registers, aliases included', () => {
    for (const name of [...LANGUAGE_NAMES, ...Object.keys(LANGUAGE_ALIASES)]) expect(hljs.getLanguage(name), name).toBeDefined()
    expect(hljs.listLanguages().sort()).toEqual([...LANGUAGE_NAMES].sort())
  })

  it('reads the fence info string as its first word, in lower case', () => {
    expect(knownLanguage(' Py title="x"')).toBe('py')
    expect(knownLanguage('zig')).toBeUndefined()
    expect(knownLanguage(undefined)).toBeUndefined()
    expect(highlightable('x'.repeat(MAX_HIGHLIGHT_CHARS), 'ts')).toBe(true)
    expect(highlightable('x'.repeat(MAX_HIGHLIGHT_CHARS + 1), 'ts')).toBe(false)
  })
})
