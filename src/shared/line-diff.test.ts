import { describe, expect, it } from 'vitest'
import { diffText, lineDiff, splitLines } from './line-diff'

describe('lineDiff', () => {
  it('marks the changed line, keeping the others as context', () => {
    expect(lineDiff('alpha\nbeta\ngamma\n', 'alpha\nBETA (changed)\ngamma\n')).toEqual([
      { kind: 'same', text: 'alpha' },
      { kind: 'removed', text: 'beta' },
      { kind: 'added', text: 'BETA (changed)' },
      { kind: 'same', text: 'gamma' },
    ])
  })

  it('finds common lines inside the change (not only at its ends)', () => {
    const d = lineDiff('a\nb\nc\nd\ne', 'a\nx\nc\ny\ne')
    expect(diffText(d)).toBe(' a\n-b\n+x\n c\n-d\n+y\n e')
  })

  it('pure insertions and removals', () => {
    expect(diffText(lineDiff('', 'one\ntwo'))).toBe('+one\n+two')
    expect(diffText(lineDiff('one\ntwo', ''))).toBe('-one\n-two')
    expect(diffText(lineDiff('a\nc', 'a\nb\nc'))).toBe(' a\n+b\n c')
  })

  it('a middle over the cell bound is a whole replacement, context kept', () => {
    const d = lineDiff('top\na\nb\nend', 'top\nb\nc\nend', 4)
    expect(diffText(d)).toBe(' top\n-a\n-b\n+b\n+c\n end')
    // within the bound the shared "b" is found
    expect(diffText(lineDiff('top\na\nb\nend', 'top\nb\nc\nend'))).toBe(' top\n-a\n b\n+c\n end')
  })

  it('splitLines: CRLF and a final newline', () => {
    expect(splitLines('a\r\nb\r\n')).toEqual(['a', 'b'])
    expect(splitLines('a\n\n')).toEqual(['a', ''])
    expect(splitLines('')).toEqual([])
  })

  it('stays quick on a large edit', () => {
    const old = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')
    const t = performance.now()
    const d = lineDiff(old, old.replace(/line (\d+)5\b/g, 'LINE $15'))
    expect(performance.now() - t).toBeLessThan(2000)
    expect(d.filter((l) => l.kind === 'removed')).toHaveLength(d.filter((l) => l.kind === 'added').length)
  })
})
