// loopdesk.sessions.search: content search across the sessions' transcripts for the sidebar. Newest
// sessions are read first, within a time budget (a huge history answers with what it found, partial).
import type { Handlers } from '../api/dispatch'
import type { SessionSearchMatch } from '../../shared/methods'
import { agentIds, type RuntimeCore } from './handlers-context'
import { searchTranscriptFile } from './sessions/transcript-search'

const DEFAULT_LIMIT = 50
const BUDGET_MS = 2_000

export function searchHandlers(core: RuntimeCore, opts: { budgetMs?: number } = {}): Pick<Handlers, 'loopdesk.sessions.search'> {
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
  }
}
