import { describe, expect, it } from 'vitest'
import { applyMergePatch, configPatchOptions, normalizeReplacePath } from './merge-patch'

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

describe('config.patch merging (OpenClaw: lists of {id} merge by id, removals need replacePaths)', () => {
  const base = {
    agents: {
      list: [
        { id: 'main', workspace: '/w/main', skills: ['a', 'b'] },
        { id: 'work', workspace: '/w/work' },
      ],
    },
    gateway: { allowedOrigins: ['http://a', 'http://b'] },
  }
  const apply = (patch: unknown, replacePaths: string[] = []) => applyMergePatch(base, patch, configPatchOptions(replacePaths)) as typeof base

  it('merges list entries by id: named entries are patched, new ones appended, the rest kept in order', () => {
    const out = apply({ agents: { list: [{ id: 'work', model: 'mock/m1' }, { id: 'new', workspace: '/w/new' }] } })
    expect(out.agents.list).toEqual([
      { id: 'main', workspace: '/w/main', skills: ['a', 'b'] },
      { id: 'work', workspace: '/w/work', model: 'mock/m1' },
      { id: 'new', workspace: '/w/new' },
    ])
    expect(base.agents.list).toHaveLength(2) // the base is not mutated
  })

  it('refuses a patch that drops list entries unless replacePaths names the list', () => {
    expect(() => apply({ gateway: { allowedOrigins: ['http://a'] } })).toThrow(/remove 1 existing entry from gateway.allowedOrigins.*replacePaths/)
    expect(apply({ gateway: { allowedOrigins: ['http://a'] } }, ['gateway.allowedOrigins']).gateway.allowedOrigins).toEqual(['http://a'])
    // adding or reordering removes nothing
    expect(apply({ gateway: { allowedOrigins: ['http://b', 'http://a', 'http://c'] } }).gateway.allowedOrigins).toEqual(['http://b', 'http://a', 'http://c'])
    // null deletes the key outright: that is explicit
    expect(apply({ gateway: { allowedOrigins: null } }).gateway).toEqual({})
  })

  it('guards lists nested in id-keyed entries, under the [] path', () => {
    const patch = { agents: { list: [{ id: 'main', skills: ['a'] }] } }
    expect(() => apply(patch)).toThrow(/agents\.list\[\]\.skills/)
    expect(apply(patch, ['agents.list[].skills']).agents.list[0].skills).toEqual(['a'])
    // an index in the middle means every entry, as in OpenClaw
    expect(apply(patch, ['agents.list[0].skills']).agents.list[0].skills).toEqual(['a'])
  })

  it('replaces a whole id-keyed list only when its exact path is named', () => {
    const patch = { agents: { list: [{ id: 'work', workspace: '/w/w2' }] } }
    expect(apply(patch, ['agents.list']).agents.list).toEqual([{ id: 'work', workspace: '/w/w2' }])
    // a trailing bracket names entries, not the list: it stays a merge
    expect(apply(patch, ['agents.list[]']).agents.list).toHaveLength(2)
    expect(apply(patch, ['agents.list[0]']).agents.list).toHaveLength(2)
  })

  it('an empty list is a removal of every entry, not a silent no-op', () => {
    expect(() => apply({ agents: { list: [] } })).toThrow(/remove 2 existing entries from agents.list/)
    expect(apply({ agents: { list: [] } }, ['agents.list']).agents.list).toEqual([])
  })

  it('normalizes and validates replacePaths tokens', () => {
    expect(normalizeReplacePath('agents.list[3].skills')).toBe('agents.list[].skills')
    expect(normalizeReplacePath('bindings[0]')).toBe('bindings[0]')
    expect(normalizeReplacePath(' gateway.allowedOrigins ')).toBe('gateway.allowedOrigins')
    for (const bad of ['', 'a..b', '.a', 'a.', 'a[x]', 'a.__proto__', 'a[]b']) expect(normalizeReplacePath(bad), bad).toBeUndefined()
    expect(() => configPatchOptions(['a..b'])).toThrow(/replacePaths: "a..b" is not a config path/)
  })
})
