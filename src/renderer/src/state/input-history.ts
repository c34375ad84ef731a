// The composer's input history (↑ recalls sent messages): bounded by count and by size, in memory and in
// localStorage. A message can be up to a million characters; unbounded, a few of them filled the storage
// quota and every later save of the history and the drafts failed.
import { keepWithinBudget } from './storage-budget'

/** Messages ↑ offers, newest last. */
export const MAX_INPUT_HISTORY = 50
/** In memory: all entries together (the newest one is always kept, whatever its size). */
export const MAX_HISTORY_MEMORY_CHARS = 4_000_000
/** Written to localStorage: a longer entry stays in memory only (recalled until the window reloads). */
export const MAX_SAVED_ENTRY_CHARS = 20_000
/** Written to localStorage: all entries together, the oldest dropped first. */
export const MAX_SAVED_HISTORY_CHARS = 200_000

/** The history with `message` as its newest entry (an earlier copy moves), oldest entries dropped past the bounds. */
export function pushInputHistory(history: readonly string[], message: string): string[] {
  const next = [...history.filter((h) => h !== message), message].slice(-MAX_INPUT_HISTORY)
  let total = 0
  let from = next.length
  // newest first: keep entries while the total fits; the newest one always
  while (from > 0 && (from === next.length || total + next[from - 1].length <= MAX_HISTORY_MEMORY_CHARS)) {
    total += next[from - 1].length
    from--
  }
  return from ? next.slice(from) : next
}

/** What is written to localStorage: entries short enough, newest first until the budget is spent, oldest first again. */
export function savedInputHistory(history: readonly string[]): string[] {
  const newestFirst = [...history].reverse()
  return keepWithinBudget(newestFirst, (h) => h.length, MAX_SAVED_ENTRY_CHARS, MAX_SAVED_HISTORY_CHARS, MAX_INPUT_HISTORY).reverse()
}
