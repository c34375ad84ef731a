// sessions.* handlers and the session operations other handlers reuse (reset, abort).
import fs from 'node:fs'
import { ApiError, invalid } from '../api/errors'
import type { Handlers } from '../api/dispatch'
import { MAIN_KEY } from '../../shared/session-key'
import type { SessionEntry } from './contracts'
import {
  agentIds,
  assertAgent,
  canonicalKey,
  requireEntry,
  rowOf,
  type RuntimeCore,
} from './handlers-context'
import { sessionLane } from './lanes'
import { newSessionId, toSessionRow } from './sessions'

type SessionHandlers = Pick<
  Handlers,
  | 'sessions.list'
  | 'sessions.subscribe'
  | 'sessions.create'
  | 'sessions.patch'
  | 'sessions.reset'
  | 'sessions.delete'
  | 'sessions.abort'
  | 'sessions.compact'
>

/** Aborts the session's running runs (and, with `includeQueued`, the ones waiting in its lane). */
export function abortSessionRuns(
  core: RuntimeCore,
  sessionKey: string,
  opts: { runId?: string; includeQueued?: boolean; reason?: string } = {},
): string[] {
  const aborted: string[] = []
  for (const t of core.tracked.values()) {
    if (t.sessionKey !== sessionKey) continue
    if (opts.runId && t.runId !== opts.runId) continue
    const running = core.runner.activeRun(t.runId) !== undefined
    if (!running && !opts.includeQueued) continue
    if (!t.controller.signal.aborted) {
      t.controller.abort(opts.reason ?? 'abort')
      aborted.push(t.runId)
    }
  }
  return aborted
}

/** Waits until no tracked run of the session is left (they hold the transcript lock until they end). */
export async function settleSessionRuns(core: RuntimeCore, sessionKey: string): Promise<void> {
  const pending = [...core.tracked.values()].filter((t) => t.sessionKey === sessionKey).map((t) => t.done.catch(() => undefined))
  await Promise.all(pending)
}

/**
 * `/new`, `/reset`, sessions.reset: stop the session's runs, start a new sessionId (levels, label and model
 * are kept, totals start over), archive the old transcript, fire the `command:new|reset` hook.
 */
export async function resetSession(
  core: RuntimeCore,
  key: string,
  agentId: string,
  reason: 'new' | 'reset',
  /** receives what command hooks want to tell the user */
  out?: { messages?: string[] },
): Promise<SessionEntry> {
  abortSessionRuns(core, key, { includeQueued: true, reason: 'reset' })
  core.followups.clear(key)
  core.queueModes?.clear(key, `session ${reason}`)
  await settleSessionRuns(core, key)
  const store = core.store(agentId)
  const previous = store.get(key)
  const nextId = newSessionId()
  const now = Date.now()
  const entry = await store.update(key, (cur) => {
    const next: SessionEntry = { sessionId: nextId, createdAt: now, updatedAt: now, status: 'idle' }
    if (cur) {
      for (const f of ['label', 'modelOverride', 'thinkingLevel', 'verboseLevel', 'reasoningLevel', 'queueMode', 'queueDebounceMs', 'queueCap', 'queueDrop'] as const) {
        if (cur[f] !== undefined) (next as unknown as Record<string, unknown>)[f] = cur[f]
      }
    }
    return next
  })
  if (previous) await store.archiveTranscript(previous.sessionId, reason)
  core.approvals.clearSession(key)
  core.bus.clearSession(key)
  if (core.hooks.command) {
    try {
      const messages = await core.hooks.command({ command: reason, sessionKey: key, agentId, sessionId: previous?.sessionId, nextSessionId: nextId })
      if (out && messages?.length) out.messages = messages
    } catch (err) {
      console.warn(`[runtime] command:${reason} hook failed:`, err)
    }
  }
  core.sessionChanged(key, 'reset')
  return entry!
}

function validateModelRef(core: RuntimeCore, ref: string): string {
  return core.models().resolve(ref).ref
}

/** A chosen model: runs use the override; model/modelProvider show it right away. */
function setModel(entry: SessionEntry, ref: string): void {
  const slash = ref.indexOf('/')
  entry.modelOverride = ref
  entry.modelProvider = ref.slice(0, slash)
  entry.model = ref.slice(slash + 1)
}

export function sessionHandlers(core: RuntimeCore): SessionHandlers {
  return {
    async 'sessions.list'(p) {
      const ids = p.agentId ? [assertAgent(core, p.agentId)] : agentIds(core)
      const since = p.activeMinutes ? Date.now() - p.activeMinutes * 60_000 : undefined
      const search = p.search?.trim().toLowerCase()
      let rows = ids.flatMap((a) => core.store(a).list().map(([key, e]) => toSessionRow(key, e, a)))
      if (p.label !== undefined) rows = rows.filter((r) => r.label === p.label)
      if (since !== undefined) rows = rows.filter((r) => r.updatedAt >= since)
      if (search) {
        rows = rows.filter((r) =>
          [r.key, r.label, r.displayName, r.lastMessagePreview].some((v) => typeof v === 'string' && v.toLowerCase().includes(search)),
        )
      }
      rows.sort((a, b) => b.updatedAt - a.updatedAt)
      if (p.includeLastMessage === false) rows = rows.map(({ lastMessagePreview: _omit, ...r }) => r)
      const sessions = rows.slice(0, p.limit ?? rows.length)
      const cfg = core.config.current
      return {
        ts: Date.now(),
        count: sessions.length,
        defaults: { agentId: cfg.defaultAgentId, mainKey: MAIN_KEY, ...(cfg.defaults.model ? { model: cfg.defaults.model } : {}) },
        sessions,
      }
    },

    async 'sessions.subscribe'() {
      // Delivery is per transport (every subscriber already receives sessions.changed); this is the ack.
      return { subscribed: true }
    },

    async 'sessions.create'(p) {
      const agentId = p.agentId ? assertAgent(core, p.agentId) : undefined
      let key: string
      let owner: string
      if (p.key) {
        const r = canonicalKey(core, p.key)
        if (agentId && agentId !== r.agentId) throw invalid(`agentId "${agentId}" does not match the agent of session key "${r.key}"`)
        key = r.key
        owner = r.agentId
      } else {
        owner = agentId ?? core.config.current.defaultAgentId
        key = `agent:${owner}:chat-${newSessionId().slice(0, 8)}`
      }
      const model = p.model ? validateModelRef(core, p.model) : undefined
      const store = core.store(owner)
      let created = false
      const now = Date.now()
      const entry = await store.update(key, (cur) => {
        if (cur && p.label === undefined && model === undefined) return undefined
        const next: SessionEntry = cur ? { ...cur, updatedAt: now } : { sessionId: newSessionId(), createdAt: now, updatedAt: now, status: 'idle' }
        created = !cur
        if (p.label !== undefined) next.label = p.label
        if (model !== undefined) setModel(next, model)
        return next
      })
      const e = entry ?? store.get(key)!
      core.sessionChanged(key, created ? 'create' : 'patch')
      return { ok: true, key, sessionId: e.sessionId, entry: toSessionRow(key, e, owner) }
    },

    async 'sessions.patch'(p) {
      const { key, agentId } = canonicalKey(core, p.key)
      requireEntry(core, key, agentId)
      const model = typeof p.model === 'string' ? validateModelRef(core, p.model) : p.model
      const fields: Array<[keyof SessionEntry, unknown]> = [
        ['label', p.label],
        ['thinkingLevel', p.thinkingLevel],
        ['verboseLevel', p.verboseLevel],
        ['reasoningLevel', p.reasoningLevel],
        ['queueMode', p.queueMode],
        ['queueDebounceMs', p.queueDebounceMs],
        ['queueCap', p.queueCap],
        ['queueDrop', p.queueDrop],
      ]
      const entry = await core.store(agentId).update(key, (cur) => {
        if (!cur) return undefined
        const next = { ...cur, updatedAt: Date.now() } as unknown as Record<string, unknown>
        for (const [f, v] of fields) {
          if (v === undefined) continue
          if (v === null) delete next[f]
          else next[f] = v
        }
        if (model === null) delete next.modelOverride
        else if (model !== undefined) setModel(next as unknown as SessionEntry, model)
        return next as unknown as SessionEntry
      })
      if (!entry) throw new ApiError('NOT_FOUND', `session not found: ${key}`)
      core.sessionChanged(key, 'patch')
      return { ok: true, key, entry: toSessionRow(key, entry, agentId) }
    },

    async 'sessions.reset'(p) {
      const { key, agentId } = canonicalKey(core, p.key)
      const out: { messages?: string[] } = {}
      const entry = await resetSession(core, key, agentId, p.reason ?? 'reset', out)
      return { ok: true, key, entry: toSessionRow(key, entry, agentId), ...(out.messages ? { messages: out.messages } : {}) }
    },

    async 'sessions.delete'(p) {
      const { key, agentId } = canonicalKey(core, p.key)
      const store = core.store(agentId)
      const entry = store.get(key)
      if (!entry) return { ok: true, key, deleted: false }
      core.followups.clear(key)
      core.queueModes?.clear(key, 'session deleted')
      abortSessionRuns(core, key, { includeQueued: true, reason: 'delete' })
      await settleSessionRuns(core, key)
      await store.delete(key)
      if (p.deleteTranscript) {
        fs.rmSync(store.transcriptPath(entry.sessionId), { force: true })
      } else {
        await store.archiveTranscript(entry.sessionId, 'deleted')
      }
      core.bus.clearSession(key)
      core.approvals.clearSession(key)
      core.sessionChanged(key, 'delete')
      return { ok: true, key, deleted: true }
    },

    async 'sessions.abort'(p) {
      const { key } = canonicalKey(core, p.key)
      const aborted = abortSessionRuns(core, key, { runId: p.runId })
      return aborted.length > 0 ? { ok: true, abortedRunId: aborted[0], status: 'aborted' } : { ok: true, status: 'no-active-run' }
    },

    async 'sessions.compact'(p) {
      const { key, agentId } = canonicalKey(core, p.key)
      const entry = requireEntry(core, key, agentId)
      if (!core.hooks.compact) return { ok: true, key, compacted: false, reason: 'compaction is not available in this build' }
      // inside the session lane: never compacts under a running turn
      const outcome = await core.queue.enqueue(sessionLane(key), () =>
        core.hooks.compact!({ sessionKey: key, agentId, entry: core.store(agentId).get(key) ?? entry, instructions: p.instructions }),
      )
      if (outcome.compacted) core.sessionChanged(key, 'compact')
      return { ok: true, key, ...outcome }
    },
  }
}

export { rowOf }
