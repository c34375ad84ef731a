import { describe, expect, it } from 'vitest'
import { compileGlob, GLOB_MAX_PATTERN_CHARS, literalPrefix } from './glob-match'

const m = (pattern: string, p: string) => compileGlob(pattern).test(p)

describe('compileGlob', () => {
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
  it('takes time in proportion to path × pattern: no backtracking blow-up on hostile patterns', () => {
    // as a regex, `*a` × 6 + `*b` took ~3 s on this 60-character name, every further `*a` many times more —
    // synchronously, on the main thread, for each name a glob or grep walk visited
    const name = 'a'.repeat(250)
    const hostile = ['*a'.repeat(40) + '*b', '**/'.repeat(40) + '*b', '{*a,*a*a}'.repeat(4) + '*b', '[a]*'.repeat(100) + 'b']
    const t0 = performance.now()
    for (const pattern of hostile) {
      expect(compileGlob(pattern).test(name)).toBe(false)
      expect(compileGlob(pattern).test(Array.from({ length: 60 }, () => 'a'.repeat(40)).join('/'))).toBe(false)
    }
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(m('*a'.repeat(40) + '*', 'a'.repeat(40))).toBe(true)
    expect(m('*a'.repeat(40) + '*', 'a'.repeat(39))).toBe(false)
  })
  it('refuses patterns too long or spelling out too many alternatives', () => {
    expect(() => compileGlob('a'.repeat(GLOB_MAX_PATTERN_CHARS + 1))).toThrow(/too long/)
    expect(() => compileGlob('{a,b}'.repeat(9))).toThrow(/more than 256 alternatives/)
    expect(compileGlob('{a,b}'.repeat(8)).test('abababab')).toBe(true)
  })
  it('literalPrefix finds where to start walking', () => {
    expect(literalPrefix('src/deep/**/*.ts')).toEqual({ prefix: 'src/deep', rest: '**/*.ts' })
    expect(literalPrefix('*.ts')).toEqual({ prefix: '', rest: '*.ts' })
    expect(literalPrefix('./a/b.txt')).toEqual({ prefix: 'a', rest: 'b.txt' })
  })
})
