// The find bar steps through occurrences, not messages: loopdesk.chat.find lists the matching messages (the newest
// `limit`) with how often the query occurs in each, and counts every occurrence of the transcript. A cursor is
// a listed message and an occurrence in it; its position counts the occurrences of older, unlisted messages too.
import type { ChatFindMatch } from '../../../shared/methods'

export interface FindCursor {
  /** index into the listed matches */
  match: number
  /** occurrence within that message, 0 = its first */
  occurrence: number
}

const countOf = (m: ChatFindMatch | undefined) => Math.max(1, m?.count ?? 1)

/** The newest occurrence (the conversation is read from its end), or undefined without matches. */
export function lastCursor(matches: readonly ChatFindMatch[]): FindCursor | undefined {
  if (!matches.length) return undefined
  return { match: matches.length - 1, occurrence: countOf(matches[matches.length - 1]) - 1 }
}

/** The next (`by` 1) or previous (-1) occurrence, wrapping from the newest to the oldest listed and back. */
export function stepCursor(matches: readonly ChatFindMatch[], at: FindCursor | undefined, by: 1 | -1): FindCursor | undefined {
  if (!matches.length) return undefined
  if (!at) return lastCursor(matches)
  const occurrence = at.occurrence + by
  if (occurrence >= 0 && occurrence < countOf(matches[at.match])) return { match: at.match, occurrence }
  const n = matches.length
  const match = (at.match + by + n) % n
  return { match, occurrence: by > 0 ? 0 : countOf(matches[match]) - 1 }
}

/** 1-based position of the cursor among all occurrences (those of messages not listed come first). */
export function cursorPosition(matches: readonly ChatFindMatch[], occurrences: number, at: FindCursor): number {
  let listed = 0
  let before = 0
  matches.forEach((m, i) => {
    listed += countOf(m)
    if (i < at.match) before += countOf(m)
  })
  return Math.max(0, occurrences - listed) + before + at.occurrence + 1
}
