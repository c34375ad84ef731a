import { describe, expect, it } from 'vitest'
import { applyMergePatch } from './merge-patch'

describe('applyMergePatch (RFC 7396)', () => {
  // The test vectors of RFC 7396 Appendix A.
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ]
  it.each(cases)('%j + %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected)
  })

  it('does not mutate its inputs', () => {
    const target = { a: { b: 1 } }
    const patch = { a: { c: [1] } }
    const out = applyMergePatch(target, patch) as { a: { c: number[] } }
    expect(target).toEqual({ a: { b: 1 } })
    out.a.c.push(2)
    expect(patch.a.c).toEqual([1])
  })

  it('rejects prototype-polluting keys', () => {
    expect(() => applyMergePatch({}, JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toThrow(/forbidden key "a.__proto__"/)
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })
})
