import { describe, expect, it } from 'vitest'
import { relativeTime } from './relative-time'

describe('relativeTime', () => {
  it('says how long ago, rounded, in the words the sidebar and `loopdesk sessions` show', () => {
    const now = 100 * 86_400_000
    expect([0, 44_000, 60_000, 3_600_000, 86_400_000 * 3].map((d) => relativeTime(now - d, now))).toEqual(['just now', 'just now', '1 min ago', '1 h ago', '3 d ago'])
    expect(relativeTime(undefined, now)).toBe('')
    expect(relativeTime(now - 10 * 86_400_000, now)).toBe(new Date(now - 10 * 86_400_000).toLocaleDateString())
  })
})
