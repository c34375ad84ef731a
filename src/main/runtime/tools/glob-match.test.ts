import { describe, expect, it } from 'vitest'
import { globToRegExp, literalPrefix } from './glob-match'

const m = (pattern: string, p: string) => globToRegExp(pattern).test(p)

describe('globToRegExp', () => {
  it('* and ? stay inside one segment', () => {
    expect(m('*.ts', 'a.ts')).toBe(true)
    expect(m('*.ts', 'src/a.ts')).toBe(false)
    expect(m('?.ts', 'ab.ts')).toBe(false)
    expect(m('a?c', 'a/c')).toBe(false)
  })
  it('** spans zero or more directories', () => {
    expect(m('**/*.ts', 'a.ts')).toBe(true)
    expect(m('**/*.ts', 'x/y/z/a.ts')).toBe(true)
    expect(m('src/**/a.ts', 'src/a.ts')).toBe(true)
    expect(m('src/**/a.ts', 'src/q/r/a.ts')).toBe(true)
    expect(m('src/**', 'src/q/r/a.ts')).toBe(true)
    expect(m('src/**', 'other/a.ts')).toBe(false)
    expect(m('a**b', 'a/x/b')).toBe(false)
  })
  it('braces (nested), classes and escapes', () => {
    expect(m('*.{js,ts}', 'a.ts')).toBe(true)
    expect(m('*.{js,ts}', 'a.md')).toBe(false)
    expect(m('{src,lib/{a,b}}/*.c', 'lib/b/x.c')).toBe(true)
    expect(m('[ab].txt', 'b.txt')).toBe(true)
    expect(m('[!ab].txt', 'b.txt')).toBe(false)
    expect(m('[!ab].txt', 'c.txt')).toBe(true)
    expect(m('\\*.txt', '*.txt')).toBe(true)
    expect(m('\\*.txt', 'a.txt')).toBe(false)
    expect(m('a.(b)+', 'a.(b)+')).toBe(true)
    expect(m('{unclosed', '{unclosed')).toBe(true)
    expect(m('[unclosed', '[unclosed')).toBe(true)
  })
  it('literalPrefix finds where to start walking', () => {
    expect(literalPrefix('src/deep/**/*.ts')).toEqual({ prefix: 'src/deep', rest: '**/*.ts' })
    expect(literalPrefix('*.ts')).toEqual({ prefix: '', rest: '*.ts' })
    expect(literalPrefix('./a/b.txt')).toEqual({ prefix: 'a', rest: 'b.txt' })
  })
})
