// The sessions the sidebar lists, in its order: pinned first, then by activity (compareForSidebar); archived
// ones only with "Show archived"; while searching, those whose name or messages match. One function, so the
// next/previous-session shortcut steps through exactly what the list shows.
import type { SessionRow } from '../../../shared/methods'
import { compareForSidebar } from '../../../shared/sidebar-order'
import { sessionTitle } from '../../../shared/session-title'

export function visibleSessions(rows: readonly SessionRow[], opts: { search: string; showArchived: boolean; contentMatches?: readonly string[] }): SessionRow[] {
  const q = opts.search.trim().toLowerCase()
  const matches = new Set(opts.contentMatches ?? [])
  const listed = rows.filter(
    (r) => (opts.showArchived || !r.archived) && (!q || sessionTitle(r).toLowerCase().includes(q) || r.key.includes(q) || matches.has(r.key)),
  )
  return listed.sort(compareForSidebar)
}

/** The session `step` places from the selected one in the list (no wrap); the first or last when none is selected. */
export function steppedSession(list: readonly SessionRow[], selectedKey: string | undefined, step: 1 | -1): string | undefined {
  if (!list.length) return undefined
  const at = list.findIndex((r) => r.key === selectedKey)
  if (at < 0) return (step > 0 ? list[0] : list[list.length - 1]).key
  return list[Math.max(0, Math.min(list.length - 1, at + step))].key
}
