import { describe, expect, it } from 'vitest'
import { copyPlainJson, NOT_PLAIN } from './plain-json'

const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown

describe('copyPlainJson', () => {
  it('equals a JSON round trip for plain data: members dropped as JSON drops them, -0 → 0, key order kept', () => {
    const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: [2] })
    const samples: unknown[] = [
      'x',
      0,
      -0,
      1.5,
      true,
      null,
      [],
      {},
      [1, 'a', null, [true, { x: [] }]],
      { b: 1, a: 2, 10: 'ten', 2: 'two', nested: { u: undefined, f: () => 1, s: Symbol('s'), keep: 'k' } },
      { sessionId: 's', updatedAt: 1, report: { sections: [{ name: 'base', chars: 3 }], skills: [] }, lastError: undefined },
      nullProto,
      { get computed() { return 42 } },
    ]
    for (const v of samples) {
      const c = copyPlainJson(v)
      expect(c).not.toBe(NOT_PLAIN)
      expect(c).toStrictEqual(roundTrip(v))
      expect(JSON.stringify(c)).toBe(JSON.stringify(v))
      if (v && typeof v === 'object') expect(c).not.toBe(v)
    }
    expect(Object.is(copyPlainJson(-0), 0)).toBe(true)
    expect(Object.getPrototypeOf(copyPlainJson(nullProto))).toBe(Object.prototype)
  })

  it('gives up on what a round trip would change rather than copy', () => {
    class Thing {
      a = 1
    }
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const sparse = [1, , 3] // eslint-disable-line no-sparse-arrays
    const notPlain: unknown[] = [
      undefined,
      () => 1,
      Symbol('x'),
      10n,
      NaN,
      Infinity,
      { n: -Infinity },
      [undefined],
      [() => 1],
      sparse,
      new Date(0),
      { when: new Date(0) },
      new Map([[1, 2]]),
      new Thing(),
      { toJSON: () => 'x' },
      Object.assign([1], { toJSON: () => 'arr' }),
      new String('boxed'),
      cyclic,
      JSON.parse('{"__proto__": {"polluted": true}}'),
    ]
    for (const v of notPlain) expect(copyPlainJson(v), String(typeof v)).toBe(NOT_PLAIN)
  })

  it('freeze: every copied object and array is frozen; the source is not', () => {
    const src = { a: { b: [1, { c: 2 }] }, d: 'x' }
    const c = copyPlainJson(src, true) as typeof src
    expect(Object.isFrozen(c)).toBe(true)
    expect(Object.isFrozen(c.a)).toBe(true)
    expect(Object.isFrozen(c.a.b)).toBe(true)
    expect(Object.isFrozen(c.a.b[1])).toBe(true)
    expect(Object.isFrozen(src)).toBe(false)
    expect(Object.isFrozen(src.a.b)).toBe(false)
    const m = copyPlainJson(c) as typeof src
    expect(Object.isFrozen(m) || Object.isFrozen(m.a)).toBe(false) // a private copy of a frozen value is mutable
    m.a.b.push(3)
    expect(c.a.b).toHaveLength(2)
  })

  it('frozenPlain: objects an earlier frozen copy made are taken as they are; new ones are added', () => {
    const known = new WeakSet<object>()
    const a = copyPlainJson({ nested: { x: [1] } }, true, known) as { nested: { x: number[] } }
    expect(known.has(a) && known.has(a.nested) && known.has(a.nested.x)).toBe(true)
    const b = copyPlainJson({ nested: a.nested, y: { z: 1 } }, true, known) as { nested: unknown; y: unknown }
    expect(b.nested).toBe(a.nested)
    expect(known.has(b.y as object)).toBe(true)
    // only frozen copies use it: a private (mutable) copy is always deep
    const c = copyPlainJson({ nested: a.nested }, false, known) as { nested: unknown }
    expect(c.nested).not.toBe(a.nested)
    expect(c.nested).toEqual(a.nested)
    // an object merely frozen elsewhere is copied (it is not known to be plain JSON)
    const frozen = Object.freeze({ when: 1 })
    expect((copyPlainJson({ f: frozen }, true, known) as { f: unknown }).f).not.toBe(frozen)
  })

  it('random nested data: same as a JSON round trip', () => {
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const gen = (depth: number): unknown => {
      switch (rand(depth > 3 ? 5 : 8)) {
        case 0:
          return rand(1000) - 500 + rand(100) / 7
        case 1:
          return 'é€😀x'.slice(0, rand(5)) + String(rand(100))
        case 2:
          return rand(2) === 0
        case 3:
          return null
        case 4:
          return undefined
        case 5:
          return Array.from({ length: rand(4) }, () => {
            const e = gen(depth + 1)
            return e === undefined ? 0 : e
          })
        default: {
          const o: Record<string, unknown> = {}
          for (let i = rand(5); i > 0; i--) o[rand(3) === 0 ? String(rand(20)) : `k${rand(50)}`] = gen(depth + 1)
          return o
        }
      }
    }
    for (let i = 0; i < 500; i++) {
      const v = { root: gen(0) }
      expect(copyPlainJson(v, i % 2 === 0)).toStrictEqual(roundTrip(v))
    }
  })
})
