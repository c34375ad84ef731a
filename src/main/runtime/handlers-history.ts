// chat.history: the newest page of a session's transcript (older ones with `offset`), the rows around one row
// (`messageId`, also in a transcript from before a reset with `sessionId`), or — OpenClaw v4 — only what was
// appended since a `cursor`; each with the session's live state (run in flight, waiting inputs, receipts).
import path from 'node:path'
import { invalid } from '../api/errors'
import type { Handlers } from '../api/dispatch'
import type { ChatHistoryPage, ChatHistoryWindow } from '../../shared/methods'
import type { TranscriptEntry } from './contracts'
import { canonicalKey, type RuntimeCore } from './handlers-context'
import { historyRows, pageHistory, windowHistory } from './runner/chat-history'
import { historyDelta, tailCursor } from './runner/history-delta'
import { inputReceipts, pendingInputsPage } from './runner/pending-inputs'
import { Transcript } from './sessions'
import { transcriptOfSession } from './sessions/earlier-transcripts'

export function historyHandlers(core: RuntimeCore): Pick<Handlers, 'chat.history'> {
  return {
    async 'chat.history'(p) {
      // OpenClaw's messages, before anything is looked up
      if (p.cursor !== undefined && (p.offset !== undefined || p.messageId !== undefined)) throw invalid('cursor cannot be used with offset or messageId')
      if (p.offset !== undefined && p.messageId !== undefined) throw invalid('offset and messageId cannot be used together')
      if (p.sessionId !== undefined && p.messageId === undefined) throw invalid('sessionId requires messageId')
      const { key, agentId } = canonicalKey(core, p.sessionKey, p.agentId)
      const store = core.store(agentId)
      const entry = store.get(key)
      const sessionId = entry?.sessionId ?? ''
      let earlier: string | undefined
      if (p.sessionId !== undefined && p.sessionId !== sessionId) {
        earlier = transcriptOfSession(store, key, p.sessionId)
        if (!earlier) throw invalid('sessionId does not belong to sessionKey')
      }
      const currentFile = entry ? store.transcriptPath(sessionId) : undefined
      const read = currentFile ? await new Transcript(currentFile).readAll() : undefined
      const current: readonly TranscriptEntry[] = read?.entries ?? []
      // lost lines are said, not silently dropped (the window shows a notice, the CLI export a warning)
      const damage = damageOf(core.stateDir, currentFile, read?.damaged)
      // the level runs use now (embedded-runner.ts): a window hides stored reasoning at `off`, as live runs send none
      const reasoningLevel = entry?.reasoningLevel ?? core.config.current.defaults.reasoningDefault
      const live = { ...liveState(core, key, current, p.pendingBefore, p.inputRunIds), reasoningLevel }
      const rowOpts = { silentReplies: p.silentReplies }

      if (p.cursor !== undefined) {
        const d = historyDelta(p.cursor, { sessionKey: key, agentId, sessionId, entries: current })
        if (d.kind === 'reset') return { kind: 'reset' }
        // (OpenClaw's delta result is a closed shape: no reasoningLevel and no damage count — the window keeps
        // what its page had)
        const { inFlightRun, sessionInfo, reasoningLevel: _level, ...inputs } = live
        return { kind: 'delta', messages: d.messages, deltaCursor: d.deltaCursor, sessionInfo, ...(inFlightRun ? { inFlightRun } : {}), ...inputs }
      }

      // always present (OpenClaw): the session's own levels, null when it has none
      const levels = { thinkingLevel: entry?.thinkingLevel ?? null, fastMode: entry?.fastMode ?? null, verboseLevel: entry?.verboseLevel ?? null }
      if (p.messageId !== undefined) {
        const earlierRead = earlier ? await new Transcript(earlier).readAll() : undefined
        const entries = earlierRead?.entries ?? current
        const messages = windowHistory(historyRows(entries, rowOpts), p.messageId, { limit: p.limit, maxChars: p.maxChars, wholeMessages: p.wholeMessages })
        const { inFlightRun, ...rest } = live
        // the run in flight writes into the current transcript, not an earlier one
        const window: ChatHistoryWindow = { sessionKey: key, sessionId: p.sessionId ?? sessionId, messages, ...levels, ...(earlier || !inFlightRun ? {} : { inFlightRun }), ...rest, ...(earlier ? damageOf(core.stateDir, earlier, earlierRead?.damaged) : damage) }
        return window
      }

      const page = pageHistory(historyRows(current, rowOpts), { limit: p.limit, offset: p.offset, maxChars: p.maxChars, wholeMessages: p.wholeMessages })
      const result: ChatHistoryPage = { sessionKey: key, sessionId, messages: page.messages, hasMore: page.hasMore, ...levels }
      if (page.nextOffset !== undefined) result.nextOffset = page.nextOffset
      // the newest page ends where the transcript ends: a client holding it can ask for what comes after
      if (!p.offset) result.deltaCursor = tailCursor({ sessionKey: key, agentId, sessionId, entries: current })
      return Object.assign(result, live, damage)
    },
  }
}

/**
 * The file is named relative to the state dir (`agents/<id>/sessions/<sessionId>.jsonl`): every read-scoped
 * client — a browser page, a remote one — gets these pages, and the absolute path would tell each the user's home
 * folder and the state dir's place (OpenClaw sends `stateDir` / `configPath` to admin connections only). The
 * window and `sessions export` say where the state folder is.
 */
function damageOf(stateDir: string, file: string | undefined, damaged: number[] | undefined): { damagedLines?: number; transcriptFile?: string } {
  if (!file || !damaged?.length) return {}
  const rel = path.relative(stateDir, file)
  // (a transcript outside the state dir — never made so — would still not be named absolutely)
  const shown = rel.startsWith('..') || path.isAbsolute(rel) ? path.basename(file) : rel
  return { damagedLines: damaged.length, transcriptFile: shown.split(path.sep).join('/') }
}

/** What a reply tells about the session besides rows: the run in flight, started runs, inputs and receipts. */
function liveState(core: RuntimeCore, key: string, entries: readonly TranscriptEntry[], pendingBefore?: number, inputRunIds?: string[]) {
  const run = core.runner.activeRunsOf(key)[0]
  const inFlightRun = run ? { runId: run.runId, text: core.projection.textOf(run.runId) ?? run.partialText() } : undefined
  const activeRunIds = [...core.tracked.values()].filter((t) => t.sessionKey === key).map((t) => t.runId)
  const waiting = [...core.followups.list(key), ...(core.queueModes?.list(key) ?? [])]
  const state = {
    ...(inFlightRun ? { inFlightRun } : {}),
    sessionInfo: { hasActiveRun: activeRunIds.length > 0, activeRunIds },
    pendingInputs: pendingInputsPage(waiting, pendingBefore),
  }
  if (!inputRunIds) return state
  const receipts = inputReceipts(inputRunIds, {
    entries,
    itemFor: (runId) => core.queueModes?.itemFor?.(key, runId) ?? core.followups.list(key).findLast((i) => i.runId === runId),
    isTracked: (runId) => core.tracked.get(runId)?.sessionKey === key,
  })
  const consumed = receipts.flatMap((r) => (r.state === 'consumed' ? [{ runId: r.runId, consumedByEventId: r.consumedByEventId }] : []))
  return { ...state, inputReceipts: receipts, inputConsumptions: consumed }
}
