// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { itemOfMatch, matchInItems } from '../components/Conversation'
import type { Item } from '../state/types'
import { matchRanges, showFindHighlight } from './find-highlight'

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

describe('the current occurrence', () => {
  it('is marked apart from the row\'s other occurrences', () => {
    const registry = new Map<string, { ranges: Range[] }>()
    const g = globalThis as { CSS?: unknown; Highlight?: unknown }
    const saved = { CSS: g.CSS, Highlight: g.Highlight }
    g.CSS = { highlights: registry }
    g.Highlight = class {
      ranges: Range[]
      constructor(...ranges: Range[]) {
        this.ranges = ranges
      }
    }
    try {
      const row = document.createElement('div')
      row.innerHTML = '<p>kiwi one, <b>kiwi</b> two</p><p>kiwi three</p>'
      const texts = (name: string) => registry.get(name)?.ranges.map((r) => `${r.startContainer.parentNode!.nodeName}:${r.startOffset}`)
      showFindHighlight(row, 'KIWI', 1)
      expect(texts('loopdesk-find-current')).toEqual(['B:0'])
      expect(texts('loopdesk-find')).toEqual(['P:0', 'P:0'])
      expect(registry.get('loopdesk-find')!.ranges[1].startContainer.textContent).toBe('kiwi three')
      // past what the row renders: its last; without a step (a search hit): none apart
      showFindHighlight(row, 'kiwi', 7)
      expect(registry.get('loopdesk-find-current')!.ranges[0].startContainer.textContent).toBe('kiwi three')
      showFindHighlight(row, 'kiwi')
      expect(registry.has('loopdesk-find-current')).toBe(false)
      expect(registry.get('loopdesk-find')!.ranges).toHaveLength(3)
      showFindHighlight(undefined, undefined)
      expect(registry.size).toBe(0)
    } finally {
      g.CSS = saved.CSS
      g.Highlight = saved.Highlight
    }
  })

  it('lands on the row of a long message that holds the n-th occurrence, and which of that row\'s it is', () => {
    const items: Item[] = [
      { kind: 'assistant', key: 'a0', runId: 'r1', ts: 0, text: 'kiwi and kiwi', streaming: false, msg: 'm2' },
      { kind: 'assistant', key: 'a1', runId: 'r1', ts: 0, text: 'no fruit here', streaming: false, cont: true, msg: 'm2' },
      { kind: 'assistant', key: 'a2', runId: 'r1', ts: 0, text: 'a KIWI at last', streaming: false, cont: true, msg: 'm2' },
      { kind: 'tool', key: 't0', runId: 'r1', ts: 0, toolCallId: 'c1', name: 'fruit', args: { q: 'kiwi' }, status: 'done', msg: 'm2' },
      { kind: 'assistant', key: 'a3', runId: 'r1', ts: 0, text: 'kiwi, next message', streaming: false, msg: 'm3' },
    ]
    expect(matchInItems(items, 'a0', 'kiwi', 0)).toEqual({ index: 0, nth: 0 })
    expect(matchInItems(items, 'a0', 'kiwi', 1)).toEqual({ index: 0, nth: 1 })
    expect(matchInItems(items, 'a0', 'kiwi', 2)).toEqual({ index: 2, nth: 0 })
    // the tool call's arguments are read as the runtime reads them ("fruit: kiwi")
    expect(matchInItems(items, 'a0', 'kiwi', 3)).toEqual({ index: 3, nth: 0 })
    // counted otherwise than the runtime: the first row that has it
    expect(matchInItems(items, 'a0', 'kiwi', 9)).toEqual({ index: 0, nth: 0 })
  })
})
