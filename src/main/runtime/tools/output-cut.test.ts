import { describe, expect, it } from 'vitest'
import { HeadTailBuffer } from './output-buffer'
import { countLines, cutMiddle, planCut, truncationMarker } from './output-cut'

const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `output line ${from + i}\n`).join('')
const MARKER = /\[output truncated: ([\d,]+) lines?, ([\d,]+) (bytes|characters); kept the first ([\d,]+) and last ([\d,]+) lines?\]/g
const num = (s: string) => Number(s.replace(/,/g, ''))

/** the one marker of a cut text, and that the lines around it are the ones it says are kept */
function checkCut(text: string, totalLines: number) {
  const found = [...text.matchAll(MARKER)]
  expect(found).toHaveLength(1)
  const [, lines, amount, unit, first, last] = found[0]
  expect(num(lines)).toBe(totalLines)
  const before = text.slice(0, found[0].index).trimEnd().split('\n').pop()!
  const after = text.slice(found[0].index! + found[0][0].length + 1).split('\n')[0]
  if (num(first) > 0) expect(before).toBe(`output line ${num(first)}`)
  expect(after).toBe(`output line ${totalLines - num(last) + 1}`)
  return { amount: num(amount), unit, first: num(first), last: num(last) }
}

describe('output cut markers', () => {
  it('counts lines, a last one without its newline too', () => {
    expect(countLines('')).toBe(0)
    expect(countLines('a')).toBe(1)
    expect(countLines('a\nb\n')).toBe(2)
    expect(countLines('a\nb')).toBe(2)
    expect(truncationMarker({ lines: 1, amount: 1234, unit: 'bytes' }, 0, 1)).toBe('[output truncated: 1 line, 1,234 bytes; kept the first 0 and last 1 line]')
  })

  it('a cut without an earlier marker states the text size and cuts at line ends', () => {
    const text = numbered(1, 5000)
    const out = cutMiddle(text, 4000, 0.3)
    expect(out.length).toBeLessThanOrEqual(4000)
    const m = checkCut(out, 5000)
    expect(m).toMatchObject({ amount: text.length, unit: 'characters' })
    expect(out.endsWith('output line 5000\n')).toBe(true)
  })

  it("a second cut keeps the first cut's real totals and counts the lines it keeps (the audit's 1.2 MB output)", () => {
    const b = new HeadTailBuffer(100_000)
    let bytes = 0
    for (let i = 1; i <= 50_000; i++) {
      const line = `output line ${i}\n`
      bytes += line.length
      b.push(line)
    }
    const inner = b.toString()
    const first = checkCut(inner, 50_000)
    expect(first).toMatchObject({ amount: bytes, unit: 'bytes' })
    for (const budget of [40_000, 8000, 1000]) {
      const out = cutMiddle(inner, budget, 0.3)
      expect(out.length).toBeLessThanOrEqual(budget)
      const m = checkCut(out, 50_000)
      expect(m).toMatchObject({ amount: bytes, unit: 'bytes' })
      expect(m.first).toBeLessThan(first.first)
      expect(m.last).toBeLessThan(first.last)
      // cutting the cut text again changes nothing but what is kept
      checkCut(cutMiddle(out, Math.floor(budget / 2), 0.3), 50_000)
    }
  })

  it('keeps the text around an earlier marker that sits near an end', () => {
    const inner = `Command exited with code 2\n\n${truncationMarker({ lines: 9000, amount: 500_000, unit: 'bytes' }, 0, 3000)}\n${numbered(6001, 9000)}`
    const plan = planCut(inner, 10_000, 0.3)!
    expect(inner.slice(0, plan.headEnd)).toBe('Command exited with code 2\n\n')
    expect(plan.marker).toMatch(/^\[output truncated: 9,000 lines, 500,000 bytes; kept the first 0 and last \d+ lines\]$/)
    checkCut(cutMiddle(inner, 10_000, 0.3), 9000)
  })

  it('a line longer than half the cut is cut mid-line rather than dropped whole', () => {
    const text = 'x'.repeat(50_000)
    const out = cutMiddle(text, 1000, 0.3)
    expect(out).toMatch(/^x+\n\[output truncated: 1 line, 50,000 characters; kept the first 1 and last 1 line\]\nx+$/)
    expect(out.length).toBeLessThanOrEqual(1000)
  })
})
