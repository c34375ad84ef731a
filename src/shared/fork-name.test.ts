// numberedForkTitle: a fork's name is told apart from the names sessions have already.
import { describe, expect, it } from 'vitest'
import { numberedForkTitle as forkTitle } from './fork-name'

describe('numberedForkTitle', () => {
  it('"(fork)", then the first free number', () => {
    expect(forkTitle('Plan', [])).toBe('Plan (fork)')
    expect(forkTitle('Plan', ['Plan (fork)'])).toBe('Plan (fork 2)')
    expect(forkTitle('Plan', ['Plan (fork)', 'Plan (fork 2)', 'Plan (fork 4)'])).toBe('Plan (fork 3)')
    expect(forkTitle('Plan', ['Other (fork)'])).toBe('Plan (fork)')
  })

  it('a long title is cut so its suffix (and number) fit in 500 characters', () => {
    const long = 'x'.repeat(600)
    const first = forkTitle(long, [])
    expect(first.length).toBeLessThanOrEqual(500)
    const second = forkTitle(long, [first])
    expect(second).toMatch(/ \(fork 2\)$/)
    expect(second.length).toBeLessThanOrEqual(500)
  })

  it('a long title is cut between characters, not inside an emoji (no lone surrogate shown as "�")', () => {
    const name = forkTitle(`${'x'.repeat(479)}😀 and more`, [])
    expect(name).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
    expect(name).toBe(`${'x'.repeat(479)} (fork)`)
  })
})
