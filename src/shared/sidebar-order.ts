// The order of the sessions in a sidebar, apart from session-organisation.ts: the renderer's first paint needs
// only this, and a module shared with a lazy chunk (the FakeBridge applies organisation patches) is bundled
// whole into the entry, so its patch logic rode along (test/renderer-bundle.test.ts).

type SidebarOrderFields = { pinned?: boolean; archived?: boolean; updatedAt: number; startedAt?: number; endedAt?: number; createdAt?: number }

/**
 * When a session last had a run (started or ended), else when it was created, else its updatedAt. Not
 * updatedAt alone: every sessions.patch (a rename, a setting) bumps that, and such a change must not move it.
 */
export function sessionActivityAt(r: { updatedAt: number; startedAt?: number; endedAt?: number; createdAt?: number }): number {
  const ran = Math.max(r.startedAt ?? -Infinity, r.endedAt ?? -Infinity)
  return ran !== -Infinity ? ran : (r.createdAt ?? r.updatedAt)
}

/** Sidebar order: pinned sessions first and archived ones (when shown) last, each group most recent activity first. */
export function compareForSidebar(a: SidebarOrderFields, b: SidebarOrderFields): number {
  const rank = (r: { pinned?: boolean; archived?: boolean }) => (r.archived ? 2 : r.pinned ? 0 : 1)
  return rank(a) - rank(b) || sessionActivityAt(b) - sessionActivityAt(a) || b.updatedAt - a.updatedAt
}
