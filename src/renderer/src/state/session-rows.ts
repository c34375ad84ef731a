// Merging a sessions.list reply into the rows the window holds. The list was built at `listedAt` (its `ts`);
// sessions.changed events that arrived while it was on its way are newer than it, so they win: a row an
// event updated keeps that state (with the list's derived title), a session created after the list stays,
// and one deleted after it is not brought back.
import type { SessionRow } from '../../../shared/methods'

export function mergeListedRows(
  listed: readonly SessionRow[],
  listedAt: number,
  current: readonly SessionRow[],
  deletedAt: ReadonlyMap<string, number>,
): SessionRow[] {
  const mineByKey = new Map(current.map((row) => [row.key, row]))
  const deletedSince = (key: string) => (deletedAt.get(key) ?? -Infinity) >= listedAt
  const rows = listed
    .filter((row) => !deletedSince(row.key))
    .map((row) => {
      const mine = mineByKey.get(row.key)
      if (!mine || mine.sessionId !== row.sessionId || mine.updatedAt <= row.updatedAt) return row
      return row.derivedTitle !== undefined ? { ...mine, derivedTitle: row.derivedTitle } : mine
    })
  const listedKeys = new Set(rows.map((row) => row.key))
  for (const mine of current) if (!listedKeys.has(mine.key) && mine.updatedAt > listedAt) rows.push(mine)
  return rows.sort((a, b) => b.updatedAt - a.updatedAt)
}
