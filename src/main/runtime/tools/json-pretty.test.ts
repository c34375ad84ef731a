import { describe, expect, it } from 'vitest'
import { prettyJson } from './json-pretty'

describe('prettyJson', () => {
  it('writes what JSON.stringify(value, null, 2) writes', () => {
    const samples: unknown[] = [
      null, true, 0, -1.5e-7, 'a "quoted" \u2028 string\n', [], {}, [[]], [{}], { a: [] },
      { a: 1, b: [true, null, { c: 'x', d: [1, [2, [3]]] }], '': { 'k"ey': 'v' }, e: {} },
      JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}'),
      Array.from({ length: 50 }, (_, i) => ({ i, s: String(i).repeat(i % 5), n: i % 3 ? [i] : {} })),
    ]
    for (const v of samples) expect(prettyJson(v, 1e9)).toBe(JSON.stringify(v, null, 2))
  })

  it('stops just past the limit, however deep or wide the value (JSON.stringify: 20 s and 2.4 GB, or a stack overflow)', () => {
    const deep = '['.repeat(3000) + ']'.repeat(3000)
    const page = JSON.parse(`[${Array(330).fill(deep).join(',')}]`) // a 2 MB page
    const t0 = performance.now()
    const out = prettyJson(page, 50_000)
    expect(out.length).toBeGreaterThan(50_000)
    expect(out.length).toBeLessThan(60_000)
    expect(out.startsWith('[\n  [\n    [\n')).toBe(true)
    const deeper = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000))
    expect(prettyJson(deeper, 1000).length).toBeLessThan(1000 + 2 * 200_000)
    expect(performance.now() - t0).toBeLessThan(2000)
  })
})
