// What of a list goes to localStorage (the input history, the drafts): a message or draft can be up to a
// million characters, and a few of them filled the storage quota, after which no save worked.

/**
 * The items kept, in the order given (most wanted first): one longer than `maxEach` is skipped, and taking stops
 * at the first that would bring the total past `maxTotal`, or after `maxCount` items.
 */
export function keepWithinBudget<T>(items: readonly T[], size: (item: T) => number, maxEach: number, maxTotal: number, maxCount = Infinity): T[] {
  const out: T[] = []
  let total = 0
  for (const item of items) {
    if (out.length >= maxCount) break
    const n = size(item)
    if (n > maxEach) continue
    if (total + n > maxTotal) break
    total += n
    out.push(item)
  }
  return out
}
