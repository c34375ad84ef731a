import { describe, expect, it } from 'vitest'
import { cursorPosition, lastCursor, stepCursor, type FindCursor } from './find-steps'

const m = (messageId: string, count: number) => ({ messageId, role: 'user' as const, count })

describe('find steps', () => {
  const matches = [m('a', 3), m('b', 1), m('c', 2)]
  it('starts at the newest occurrence and steps through each occurrence of a message before the next message', () => {
    let at = lastCursor(matches)
    expect(at).toEqual({ match: 2, occurrence: 1 })
    const seen: FindCursor[] = []
    for (let i = 0; i < 6; i++) {
      at = stepCursor(matches, at, 1)
      seen.push(at!)
    }
    // wraps to the oldest message's first occurrence
    expect(seen).toEqual([
      { match: 0, occurrence: 0 },
      { match: 0, occurrence: 1 },
      { match: 0, occurrence: 2 },
      { match: 1, occurrence: 0 },
      { match: 2, occurrence: 0 },
      { match: 2, occurrence: 1 },
    ])
    // and back: a message entered from after it starts at its last occurrence
    expect(stepCursor(matches, { match: 1, occurrence: 0 }, -1)).toEqual({ match: 0, occurrence: 2 })
    expect(stepCursor(matches, { match: 0, occurrence: 0 }, -1)).toEqual({ match: 2, occurrence: 1 })
    expect(stepCursor([], undefined, 1)).toBeUndefined()
  })
  it('numbers occurrences over the whole transcript: those of unlisted older messages come first', () => {
    expect(cursorPosition(matches, 6, { match: 0, occurrence: 0 })).toBe(1)
    expect(cursorPosition(matches, 6, { match: 2, occurrence: 1 })).toBe(6)
    expect(cursorPosition(matches, 10, { match: 1, occurrence: 0 })).toBe(8)
    // an older reply without a count (a runtime before counts) is one occurrence
    expect(cursorPosition([{ messageId: 'x', role: 'assistant' } as never, m('y', 2)], 3, { match: 1, occurrence: 1 })).toBe(3)
  })
})
