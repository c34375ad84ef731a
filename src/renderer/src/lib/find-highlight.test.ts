// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { itemOfMatch } from '../components/Conversation'
import type { Item } from '../state/types'
import { matchRanges } from './find-highlight'

describe('matchRanges', () => {
  it('finds every occurrence case-insensitively in the row text, across its elements, bounded', () => {
    const row = document.createElement('div')
    row.innerHTML = '<p>Saffron rice, <b>saffron</b> tea</p><pre><code>let saffron = 1</code></pre>'
    const ranges = matchRanges(row, 'SAFFRON')
    expect(ranges.map((r) => r.toString())).toEqual(['Saffron', 'saffron', 'saffron'])
    expect(matchRanges(row, 'nothing here')).toEqual([])
    expect(matchRanges(row, '')).toEqual([])
    row.textContent = 'a'.repeat(2000)
    expect(matchRanges(row, 'a')).toHaveLength(500)
  })
})

describe('itemOfMatch', () => {
  const items: Item[] = [
    { kind: 'user', key: 'u', runId: 'r1', ts: 0, text: 'tell me', msg: 'm1' },
    { kind: 'assistant', key: 'a0', runId: 'r1', ts: 0, text: 'Part one.', streaming: false, msg: 'm2' },
    { kind: 'assistant', key: 'a1', runId: 'r1', ts: 0, text: 'Part two with the needle.', streaming: false, cont: true, msg: 'm2' },
    { kind: 'assistant', key: 'a2', runId: 'r1', ts: 0, text: 'another needle, next message', streaming: false, msg: 'm3' },
  ]
  it('lands on the row of a long message that holds the query, never on another message', () => {
    expect(itemOfMatch(items, 'a0')).toBe(1)
    expect(itemOfMatch(items, 'a0', 'NEEDLE')).toBe(2)
    expect(itemOfMatch(items, 'u', 'needle')).toBe(0) // not in m1's own rows: its first
    expect(itemOfMatch(items, 'gone', 'needle')).toBe(-1)
  })
})
