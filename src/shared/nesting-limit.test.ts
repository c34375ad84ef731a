import { describe, expect, it } from 'vitest'
import { MAX_NESTING_DEPTH, nestingProblem, textNestingProblem } from './nesting-limit'

const nested = (levels: number) => {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = { a: v }
  return v
}

describe('nesting limits', () => {
  it('a value: 64 levels pass, 65 do not — named with the limit and where; 100k levels cost no stack', () => {
    expect(nestingProblem(nested(MAX_NESTING_DEPTH))).toBeUndefined()
    expect(nestingProblem(nested(MAX_NESTING_DEPTH + 1))).toMatch(/^nested deeper than 64 levels \(the limit\) at \/a\/a\//)
    expect(nestingProblem(nested(100_000))).toContain('64 levels')
    expect(nestingProblem({ list: [[[1]]] }, 3)).toBe('nested deeper than 3 levels (the limit) at /list/0/0')
  })

  it('a value: counts every value, wide ones too', () => {
    expect(nestingProblem({ xs: new Array(99_998).fill(0) })).toBeUndefined() // 1 + 1 + 99,998
    expect(nestingProblem({ xs: new Array(100_000).fill(0) })).toBe('more than 100,000 values (the limit)')
  })

  it('text: brackets in strings and comments do not count; 100k levels are caught before a parser sees them', () => {
    expect(textNestingProblem('{"a":' + '['.repeat(64) + ']'.repeat(64) + '}')).toBe('nested deeper than 64 levels (the limit)')
    expect(textNestingProblem('{"a":' + '['.repeat(63) + ']'.repeat(63) + '}')).toBeUndefined()
    const decoys = `{ "s": "${'{'.repeat(100)}", 't': '[[[\\'[[[${'['.repeat(100)}', // ${'{'.repeat(100)}\n /* ${'['.repeat(100)} */ "ok": [1] }`
    expect(textNestingProblem(decoys)).toBeUndefined()
    expect(textNestingProblem('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))).toContain('64 levels')
  })
})
