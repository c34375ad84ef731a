// The composer's drafts, one per session, bounded in localStorage as the input history is
// (input-history.ts): a draft can be up to a million characters, and a few of them filled the storage
// quota, after which no draft (nor the history) could be saved. In memory nothing is dropped: a draft
// too long to save stays until the window reloads, and the composer's text is never cut.
import { keepWithinBudget } from './storage-budget'

/** Written to localStorage: a longer draft stays in memory only. */
export const MAX_SAVED_DRAFT_CHARS = 200_000
/** Written to localStorage: all drafts together, the least recently edited dropped first. */
export const MAX_SAVED_DRAFTS_CHARS = 500_000

/** `drafts` with the session's draft set (moved last: the keys run from least to most recently edited);
 * an empty draft is removed, not kept as "". */
export function withDraft(drafts: Readonly<Record<string, string>>, sessionKey: string, text: string): Record<string, string> {
  const next = { ...drafts }
  delete next[sessionKey]
  if (text) next[sessionKey] = text
  return next
}

/** What is written to localStorage: no empty drafts, none too long, the most recently edited first until the
 * budget is spent — the open session's draft before all (it is the one on screen). Keeps the edit order. */
export function savedDrafts(drafts: Readonly<Record<string, unknown>>, openKey?: string): Record<string, string> {
  const text = (k: string) => {
    const t = drafts[k]
    return typeof t === 'string' ? t : ''
  }
  const keys = Object.keys(drafts)
    .filter((k) => text(k) !== '')
    .reverse()
  const open = openKey ? keys.indexOf(openKey) : -1
  if (open > 0) keys.unshift(...keys.splice(open, 1))
  const kept = new Set(keepWithinBudget(keys, (k) => text(k).length, MAX_SAVED_DRAFT_CHARS, MAX_SAVED_DRAFTS_CHARS))
  const out: Record<string, string> = {}
  for (const k of Object.keys(drafts)) if (kept.has(k)) out[k] = text(k)
  return out
}
