// loopdesk.sessions.search: content search across the sessions' transcripts for the sidebar. Newest
// sessions are read first, within a time budget (a huge history answers with what it found, partial).
// loopdesk.chat.find: every match within one session's transcript (the conversation's find bar).
import type { Handlers } from '../api/dispatch'
import type { SessionSearchMatch } from '../../shared/methods'
import { agentIds, canonicalKey, type RuntimeCore } from './handlers-context'
import { findInTranscriptFile, searchTranscriptFile } from './sessions/transcript-search'

const DEFAULT_LIMIT = 50
const BUDGET_MS = 2_000
/** matches a find lists by default (all are counted) */
const FIND_DEFAULT_LIMIT = 1_000

export function searchHandlers(core: RuntimeCore, opts: { budgetMs?: number } = {}): Pick<Handlers, 'loopdesk.sessions.search' | 'loopdesk.chat.find'> {
  return {
    async 'loopdesk.sessions.search'(p) {
      const limit = p.limit ?? DEFAULT_LIMIT
      const deadline = Date.now() + (opts.budgetMs ?? BUDGET_MS)
      const sessions = agentIds(core)
        .flatMap((agentId) => core.store(agentId).list().map(([key, e]) => ({ key, e, agentId })))
        .filter(({ e }) => typeof e.sessionId === 'string' && e.sessionId)
        .sort((a, b) => (b.e.updatedAt ?? 0) - (a.e.updatedAt ?? 0))
      const matches: SessionSearchMatch[] = []
      let partial = false
      for (const { key, e, agentId } of sessions) {
        if (matches.length >= limit) break
        if (Date.now() > deadline) {
          partial = true
          break
        }
        // a large transcript is scanned a slice at a time (the gateway answers meanwhile), within the budget
        const { hit, partial: cut } = await searchTranscriptFile(core.store(agentId).transcriptPath(e.sessionId), p.query, deadline)
        if (hit) matches.push({ key, ...hit })
        if (cut) {
          partial = true
          break
        }
      }
      return { matches, partial }
    },
    async 'loopdesk.chat.find'(p) {
      const { key, agentId } = canonicalKey(core, p.sessionKey, p.agentId)
      const store = core.store(agentId)
      const sessionId = store.get(key)?.sessionId
      // an unknown session (or one without a transcript yet) has no matches, as chat.history has no rows
      if (!sessionId) return { matches: [], total: 0, occurrences: 0, partial: false }
      const deadline = Date.now() + (opts.budgetMs ?? BUDGET_MS)
      const found = await findInTranscriptFile(store.transcriptPath(sessionId), p.query, p.limit ?? FIND_DEFAULT_LIMIT, deadline)
      return { matches: found.matches, total: found.total, occurrences: found.occurrences, partial: !!found.partial }
    },
  }
}
