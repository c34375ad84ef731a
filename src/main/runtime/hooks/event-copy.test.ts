import { describe, expect, it } from 'vitest'
import { copyPlain } from './event-copy'

describe('copyPlain', () => {
  it('copies plain objects and arrays deeply, keeping cycles and shared references; other objects are shared', () => {
    class Thing {
      n = 1
    }
    const shared = { s: 1 }
    const thing = new Thing()
    const buf = Buffer.from('x')
    const when = new Date(0)
    const src: Record<string, unknown> = { a: [shared, shared], nested: { thing, buf, when }, nil: Object.assign(Object.create(null), { k: 1 }) }
    src.self = src
    const out = copyPlain(src)
    expect(out).not.toBe(src)
    expect(out.a).not.toBe(src.a)
    const a = out.a as unknown[]
    expect(a[0]).not.toBe(shared)
    expect(a[0]).toBe(a[1])
    expect(out.self).toBe(out)
    const nested = out.nested as { thing: Thing; buf: Buffer; when: Date }
    expect(nested.thing).toBe(thing)
    expect(nested.buf).toBe(buf)
    expect(nested.when).toBe(when)
    expect(Object.getPrototypeOf(out.nil)).toBeNull()
    expect(out.nil).toEqual(src.nil)
  })

  it('keeps an own "__proto__" key a property, never the prototype', () => {
    const src = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>
    const out = copyPlain(src)
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect((out as { polluted?: unknown }).polluted).toBeUndefined()
    expect(Object.keys(out)).toEqual(['__proto__', 'x'])
  })
})
