// sessions.* handlers and the session operations other handlers reuse (reset, abort).
import crypto from 'node:crypto'
import fs from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { ApiError, invalid, missingScopeError, toErrorShape } from '../api/errors'
import type { Handler, Handlers } from '../api/dispatch'
import { canonicalSessionKey, MAIN_KEY } from '../../shared/session-key'
import type { SessionEntry, TranscriptEntry } from './contracts'
import {
  agentIds,
  assertAgent,
  canonicalKey,
  requireEntry,
  rowOf,
  type RuntimeCore,
} from './handlers-context'
import { normalizeAttachments } from './attachments'
import { refuseBlank } from './agent-request-checks'
import { sessionLane } from './lanes'
import { callHook, defaultHookErrorReporter } from './runner/hooks'
import { eventLogFile } from './events/event-log'
import { newSessionId, toSessionRow, Transcript } from './sessions'
import { forkEntries, lastReplyPreview, userMessageText, writeForkTranscript, type ForkPoint } from './sessions/fork'
import type { ParamsOf, ResultOf, SessionRow } from '../../shared/methods'
import { applyOrganisationPatch, normalizeSessionCategory, organisationOf, type OrganisationPatch, type SessionOrganisation } from '../../shared/session-organisation'
import { deriveSessionTitleOf, sessionTitle } from '../../shared/session-title'
import { numberedForkTitle } from '../../shared/fork-name'
import { normalizeQueueMode } from '../../shared/queue-mode'
import { SCOPES } from '../../shared/scopes'
import { checkSessionUnchanged, newLifecycleRevision, rejectProtectedArchive, rejectProtectedDelete } from './session-lifecycle'
import { normalizeThinking } from './thinking'
import { supportedPermissionMode } from './tools'
import { openRegularFile, readRegularFileText } from './open-regular-file'

type SessionHandlers = Pick<
  Handlers,
  | 'sessions.list'
  | 'sessions.subscribe'
  | 'sessions.unsubscribe'
  | 'sessions.create'
  | 'sessions.patch'
  | 'sessions.reset'
  | 'sessions.delete'
  | 'sessions.abort'
  | 'sessions.compact'
  | 'sessions.fork'
>

/** Aborts the session's running runs (and, with `includeQueued`, the ones waiting in its lane). */
export function abortSessionRuns(
  core: RuntimeCore,
  sessionKey: string,
  opts: { runId?: string; includeQueued?: boolean; reason?: string; mayAbort?: (runId: string) => boolean } = {},
): string[] {
  const aborted: string[] = []
  // the session's first tracked run is its current reply even before its setup starts (just acked: it starts on
  // the next turn); the session lane runs the others after it, in order
  let head: string | undefined
  for (const t of core.tracked.values()) {
    if (t.sessionKey !== sessionKey) continue
    head ??= t.runId
    if (opts.runId && t.runId !== opts.runId) continue
    if (opts.mayAbort && !opts.mayAbort(t.runId)) continue
    const running = core.runner.activeRun(t.runId) !== undefined || t.runId === head
    if (!running && !opts.includeQueued) continue
    if (!t.controller.signal.aborted) {
      t.controller.abort(opts.reason ?? 'abort')
      aborted.push(t.runId)
    }
  }
  return aborted
}

/**
 * A message chat.send queued behind a running reply has no run yet (queue modes hold it): aborting its runId
 * takes it out of the queue, which ends it as aborted (agent.wait and chat settle). False when it is not waiting.
 */
export function removeQueuedRun(core: RuntimeCore, sessionKey: string, runId: string): boolean {
  const item = core.queueModes?.itemFor?.(sessionKey, runId)
  return item?.status === 'queued' && core.queueModes!.remove(sessionKey, item.id)
}

/**
 * A caller that may stop only its own runs (CallContext.mayAbort) naming a run it did not start: OpenClaw's
 * "unauthorized". A runId that is neither running nor queued is no one's, and aborts nothing.
 */
export function checkMayAbort(core: RuntimeCore, sessionKey: string, runId: string | undefined, mayAbort: ((runId: string) => boolean) | undefined): void {
  if (!runId || !mayAbort || mayAbort(runId)) return
  if (core.tracked.has(runId) || core.queueModes?.itemFor?.(sessionKey, runId)) throw invalid('unauthorized')
}

/**
 * Waits until no tracked run of the session is left (they hold the transcript lock until they end), and the
 * messages of runs stopped while they waited are written (in their place in the session lane, after those runs).
 */
export async function settleSessionRuns(core: RuntimeCore, sessionKey: string): Promise<void> {
  const pending = [...core.tracked.values()].filter((t) => t.sessionKey === sessionKey).map((t) => t.done.catch(() => undefined))
  await Promise.all(pending)
  await core.runner.laterKeeps(sessionKey)
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
    // a new incarnation: a new lifecycle revision, so patches and deletes aimed at the old one are refused
    const next: SessionEntry = { sessionId: nextId, lifecycleRevision: newLifecycleRevision(), createdAt: now, updatedAt: now, status: 'idle' }
    if (cur) {
      // what the session is (title, settings, where it is filed) stays; read marks and the status note were
      // about the old conversation
      for (const f of KEPT_ON_RESET) {
        if (cur[f] !== undefined) (next as unknown as Record<string, unknown>)[f] = cur[f]
      }
    }
    return next
  })
  if (previous) {
    await store.archiveTranscript(previous.sessionId, reason)
    await core.eventLog.remove(eventLogFile(core.stateDir, agentId, previous.sessionId))
  }
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

const KEPT_ON_RESET = [
  'label', 'displayName', 'spawnedBy', 'modelOverride', 'thinkingLevel', 'verboseLevel', 'reasoningLevel', 'fastMode', 'permissionMode',
  'queueMode', 'queueDebounceMs', 'queueCap', 'queueDrop', 'archivedAt', 'pinnedAt', 'icon', 'color', 'category',
] as const satisfies ReadonlyArray<keyof SessionEntry>

/** sessions.patch fields that may accompany a fenced read acknowledgement (expectedMarkedUnreadAt). */
const UNREAD_ACK_KEYS = new Set(['key', 'agentId', 'expectedSessionId', 'expectedLifecycleRevision', 'expectedMarkedUnreadAt', 'unread'])

function organisationPatchOf(p: ParamsOf<'sessions.patch'>): OrganisationPatch {
  const { archived, pinned, unread, icon, color, category, statusNote, attention, ttlMinutes } = p
  return { archived, pinned, unread, icon, color, category, statusNote, attention, ttlMinutes }
}

/** The entry with its organisation fields replaced by `org` (fields org lacks are removed). */
function withOrganisation(entry: Record<string, unknown>, org: SessionOrganisation): SessionEntry {
  for (const k of ['archivedAt', 'pinnedAt', 'markedUnreadAt', 'lastReadAt', 'icon', 'color', 'category', 'agentStatus'] as const) delete entry[k]
  return Object.assign(entry, org) as unknown as SessionEntry
}

/** Runs started or waiting in the session's lane, or messages its queue modes still hold. */
function sessionBusy(core: RuntimeCore, key: string): boolean {
  if ([...core.tracked.values()].some((t) => t.sessionKey === key)) return true
  return (core.queueModes?.list(key) ?? []).some((i) => i.status === 'queued')
}

function validateModelRef(core: RuntimeCore, ref: string): string {
  return core.models().resolve(ref).ref
}

/** Whether sessions.create's settings (and model) would change the existing entry `cur`. */
function changesSettings(cur: SessionEntry, settings: ReadonlyArray<[keyof SessionEntry, unknown]>, model: string | undefined): boolean {
  if (model !== undefined && model !== cur.modelOverride) return true
  // no recorded mode is guarded (tools/permission-mode.ts): naming it changes nothing
  const now = (f: keyof SessionEntry) => (f === 'permissionMode' ? (cur.permissionMode ?? 'guarded') : cur[f])
  return settings.some(([f, v]) => v !== undefined && !isDeepStrictEqual(v, now(f)))
}

/** A chosen model: runs use the override; model/modelProvider show it right away. */
export function setModel(entry: SessionEntry, ref: string): void {
  const slash = ref.indexOf('/')
  entry.modelOverride = ref
  entry.modelProvider = ref.slice(0, slash)
  entry.model = ref.slice(slash + 1)
}

/** `chatSend`: how sessions.create sends a first message (the same path as chat.send). */
export function sessionHandlers(core: RuntimeCore, chatSend?: Handler<'chat.send'>): SessionHandlers {
  const create = async (p: ParamsOf<'sessions.create'>, ctx: Parameters<Handler<'sessions.create'>>[1], forkAt?: ForkPoint): Promise<ResultOf<'sessions.create'> & { editorText?: string }> => {
      let key: string
      let owner: string
      if (p.key) {
        ;({ key, agentId: owner } = canonicalKey(core, p.key, p.agentId))
      } else {
        owner = p.agentId ? assertAgent(core, p.agentId) : core.config.current.defaultAgentId
        key = `agent:${owner}:chat-${newSessionId().slice(0, 8)}`
      }
      const model = p.model ? validateModelRef(core, p.model) : undefined
      const thinking = p.thinkingLevel === undefined ? undefined : normalizeThinking(p.thinkingLevel)
      const parent = p.parentSessionKey === undefined ? undefined : canonicalKey(core, p.parentSessionKey)
      const parentEntry = parent ? requireEntry(core, parent.key, parent.agentId) : undefined
      if (!parent && (p.fork || p.spawnDepth !== undefined || p.succeedsParent !== undefined)) {
        throw invalid(`sessions.create ${p.fork ? 'fork' : p.spawnDepth !== undefined ? 'spawnDepth' : 'succeedsParent'} requires parentSessionKey`)
      }
      if (p.forkFrom && !p.fork) throw invalid('sessions.create forkFrom requires fork=true')
      if (p.succeedsParent) throw invalid('sessions.create succeedsParent=true is not supported: Loopdesk never ends the parent session')
      if (p.fork && p.key && core.store(owner).get(key)) throw invalid(`sessions.create fork makes a new session: ${key} already exists`)
      // a fork the caller does not name is named here, so the sidebar's Fork, the CLI, Regenerate and any OpenClaw
      // client get the same numbered name; a name (or label) the caller passes is kept as it is. Its number is
      // picked in the store update below, against the names stored then: two forks made at the same moment
      // (in this process or another) both read "(fork 2)" free when it was picked before the update
      const forkTitle =
        p.displayName === undefined && p.fork && parent && parentEntry && p.label === undefined
          ? await forkBaseTitle(core, parent.key, parent.agentId, parentEntry)
          : undefined
      const first = p.message ?? p.task
      const attachments = p.attachments?.length ? p.attachments : undefined
      if (attachments && first === undefined) throw invalid('sessions.create attachments go with a first message: send message (or task) too')
      if (first !== undefined && !attachments) refuseBlank(first, 'message must not be empty')
      if (first !== undefined && !chatSend) throw invalid('sessions.create cannot send a first message in this build')
      // bad attachments are refused before anything is created (chat.send checks them again when it sends)
      if (attachments) normalizeAttachments(attachments)
      const category = p.category === undefined ? undefined : normalizeSessionCategory(p.category)
      if (category && !category.ok) throw invalid(category.reason)
      // a fork keeps its parent's mode unless the call sets one (a read-only conversation stays read-only)
      const permissionMode =
        p.permissionMode !== undefined ? supportedPermissionMode(p.permissionMode, 'sessions.create') : p.fork ? parentEntry?.permissionMode : undefined
      const settings: Array<[keyof SessionEntry, unknown]> = [
        ['label', p.label],
        ['thinkingLevel', thinking],
        ['fastMode', p.fastMode],
        ['permissionMode', permissionMode],
        ['spawnedBy', parent?.key],
        ['spawnDepth', p.spawnDepth],
      ]
      if (p.fork && parent && parentEntry) {
        const entryId = forkAt && forkAt !== 'last-completed' ? forkAt.beforeEntryId : undefined
        settings.push(['forkSource', { sessionKey: parent.key, sessionId: parentEntry.sessionId, ...(entryId ? { entryId } : {}) }])
      }
      const store = core.store(owner)
      const sessionId = newSessionId()
      // a fork's transcript is written before its row exists: no run can reach the session in between
      let forkPreview: string | undefined
      let forkFile: string | undefined
      let editorText: string | undefined
      if (p.fork && parent && parentEntry) {
        const fork = await forkOf(core, parent.agentId, parentEntry.sessionId, forkAt ?? p.forkFrom)
        editorText = fork.editorText
        forkFile = store.transcriptPath(sessionId)
        await writeForkTranscript(forkFile, { sessionId, sessionKey: key, cwd: fork.cwd ?? core.config.current.defaults.workspace }, fork.entries)
        forkPreview = lastReplyPreview(fork.entries)
      }
      let created = false
      const now = Date.now()
      let entry: SessionEntry | undefined
      try {
        entry = await store.update(key, (cur, all) => {
          if (cur && forkFile) throw invalid(`sessions.create fork makes a new session: ${key} already exists`)
          if (cur && model === undefined && settings.every(([, v]) => v === undefined)) return undefined
          // changing an existing session's settings is what sessions.patch (admin) does: a writer may name the
          // values it already has (a repeated create), not new ones (OpenClaw refuses the same with missing scope)
          if (cur && ctx.maySetExistingSession === false && changesSettings(cur, settings, model)) throw missingScopeError(SCOPES.admin)
          const next: SessionEntry = cur
            ? { ...cur, updatedAt: now }
            : { sessionId, lifecycleRevision: newLifecycleRevision(), createdAt: now, updatedAt: now, status: 'idle' }
          created = !cur
          const out = next as unknown as Record<string, unknown>
          for (const [f, v] of settings) if (v !== undefined) out[f] = v
          // a title for a new session only: an existing one keeps its own
          const displayName = !created ? undefined : p.displayName ?? (forkTitle !== undefined ? numberedForkTitle(forkTitle, sessionNames(all.values())) : undefined)
          if (displayName !== undefined) next.displayName = displayName
          if (created && category?.ok) next.category = category.value
          if (created && forkPreview !== undefined) next.lastMessagePreview = forkPreview
          if (model !== undefined) setModel(next, model)
          return next
        })
      } catch (err) {
        if (forkFile) fs.rmSync(forkFile, { force: true })
        throw err
      }
      const e = entry ?? store.get(key)!
      if (created && p.emitCommandHooks && core.hooks.command) {
        // as /new: plugins learn of the new conversation (and which one it moves on from, when it has a parent)
        try {
          await core.hooks.command({ command: 'new', sessionKey: key, agentId: owner, sessionId: parentEntry?.sessionId, nextSessionId: e.sessionId })
        } catch (err) {
          console.warn('[runtime] command:new hook failed:', err)
        }
      }
      core.sessionChanged(key, created ? 'create' : 'patch')
      const result: ResultOf<'sessions.create'> = { ok: true, key, sessionId: e.sessionId, entry: toSessionRow(key, e, owner) }
      if (first === undefined) return editorText === undefined ? result : { ...result, editorText }
      // the session exists now whatever happens to its first message: a refused send is reported, not thrown
      const runId = p.idempotencyKey ?? crypto.randomUUID()
      try {
        const sent = await chatSend!({ sessionKey: key, message: first, idempotencyKey: runId, ...(attachments ? { attachments } : {}) }, ctx)
        if (sent.status !== 'command') return { ...result, runStarted: true, runId }
        if (sent.runIds !== undefined) return { ...result, runStarted: false, runId } // /stop
        // a bare /new or /reset ran in place of a run: its reply is what the caller gets, and the session is the
        // one it started (a new sessionId), not the one created above
        const now = store.get(key)
        const current = now ? { sessionId: now.sessionId, entry: toSessionRow(key, now, owner) } : {}
        return { ...result, ...current, runStarted: false, runId, messages: sent.messages ?? [] }
      } catch (err) {
        return { ...result, runStarted: false, runError: toErrorShape(err) }
      }
    }

  return {
    async 'sessions.list'(p) {
      const ids = p.agentId ? [assertAgent(core, p.agentId)] : agentIds(core)
      const since = p.activeMinutes ? Date.now() - p.activeMinutes * 60_000 : undefined
      const search = p.search?.trim().toLowerCase()
      // configuredAgentsOnly: stores are only opened for configured agents, so this always holds.
      let rows = ids.flatMap((a) => core.store(a).list().map(([key, e]) => toSessionRow(key, e, a)))
      // OpenClaw hides the global and unclassifiable sessions unless asked for
      if (!p.includeGlobal) rows = rows.filter((r) => r.kind !== 'global')
      if (!p.includeUnknown) rows = rows.filter((r) => r.kind !== 'unknown')
      // spawnedBy: sessions created with that parentSessionKey (canonical, as stored)
      if (p.spawnedBy !== undefined) {
        const parent = canonicalSessionKey(p.spawnedBy.trim(), core.config.current.defaultAgentId) ?? p.spawnedBy
        rows = rows.filter((r) => r.spawnedBy === parent)
      }
      // OpenClaw lists active sessions unless asked for archived ones (true) or both ("all")
      const archived = p.archived ?? false
      if (archived !== 'all') rows = rows.filter((r) => r.archived === archived)
      // boardFace/creatorId/ownerId/ownerFirst/involvingMe/involvingProfileId/includePeople: ignored (schema)
      if (p.label !== undefined) rows = rows.filter((r) => r.label === p.label)
      if (since !== undefined) rows = rows.filter((r) => r.updatedAt >= since)
      if (p.requireLastInteraction) rows = rows.filter((r) => lastInteraction(r) !== undefined)
      if (search) {
        rows = rows.filter((r) =>
          [r.key, r.label, r.displayName, r.lastMessagePreview].some((v) => typeof v === 'string' && v.toLowerCase().includes(search)),
        )
      }
      const sortKey = p.sortBy === 'lastInteractionAt' ? (r: SessionRow) => lastInteraction(r) ?? 0 : (r: SessionRow) => r.updatedAt
      rows.sort((a, b) => sortKey(b) - sortKey(a) || b.updatedAt - a.updatedAt)
      if (p.includeLastMessage === false) rows = rows.map(({ lastMessagePreview: _omit, ...r }) => r)
      const total = rows.length
      const offset = p.offset ?? 0
      const sessions = rows.slice(offset, p.limit === undefined ? undefined : offset + p.limit)
      if (p.includeDerivedTitles) {
        let next = 0
        const worker = async () => {
          while (next < sessions.length) await addDerivedTitle(core, sessions[next++])
        }
        await Promise.all(Array.from({ length: Math.min(DERIVED_TITLE_CONCURRENCY, sessions.length) }, worker))
      }
      const end = offset + sessions.length
      const cfg = core.config.current
      return {
        ts: Date.now(),
        path: core.store(ids.length === 1 ? ids[0] : cfg.defaultAgentId).path,
        count: sessions.length,
        total,
        hasMore: end < total,
        ...(end < total ? { nextOffset: end } : {}),
        defaults: { ...modelDefaults(core), agentId: cfg.defaultAgentId, mainKey: MAIN_KEY },
        sessions,
      }
    },

    async 'sessions.subscribe'() {
      // Delivery is per transport (every subscriber already receives sessions.changed); this is the ack.
      return { subscribed: true }
    },

    async 'sessions.unsubscribe'() {
      // as sessions.subscribe: the transport stops delivering (OpenClaw answers {subscribed: false})
      return { subscribed: false }
    },

    'sessions.create': (p, ctx) => create(p, ctx),

    async 'sessions.fork'(p, ctx) {
      // OpenClaw's fork at a user message: a new session with the conversation before it, and the message's text
      // for the composer — the window sends it (as it was, or edited) there, so the original stays as it is
      const { key, agentId } = canonicalKey(core, p.sessionKey, p.agentId)
      requireEntry(core, key, agentId)
      // unnamed: create names it as every fork is named ("<parent's title> (fork 2)" after a first Regenerate)
      const made = await create({ parentSessionKey: key, fork: true, agentId }, ctx, { beforeEntryId: p.entryId })
      return { sessionKey: made.key, ...(made.editorText !== undefined ? { editorText: made.editorText } : {}) }
    },

    async 'sessions.patch'(p) {
      const { key, agentId } = canonicalKey(core, p.key, p.agentId)
      requireEntry(core, key, agentId)
      const model = typeof p.model === 'string' ? validateModelRef(core, p.model) : p.model
      // "adaptive" (the provider decides) is no override of our own: like null, it clears the level
      const thinking = typeof p.thinkingLevel === 'string' ? (normalizeThinking(p.thinkingLevel) ?? null) : p.thinkingLevel
      const fields: Array<[keyof SessionEntry, unknown]> = [
        ['label', p.label],
        ['thinkingLevel', thinking],
        ['verboseLevel', p.verboseLevel],
        ['reasoningLevel', p.reasoningLevel],
        // an alias or April's retired name is stored as the mode it stands for
        ['queueMode', typeof p.queueMode === 'string' ? normalizeQueueMode(p.queueMode) : p.queueMode],
        ['queueDebounceMs', p.queueDebounceMs],
        ['queueCap', p.queueCap],
        ['queueDrop', p.queueDrop],
        // the session's speed; runs map it onto the provider's service tier where one exists (runner/fast-mode.ts)
        ['fastMode', p.fastMode],
        // what its next runs may do (tools/permission-mode.ts)
        ['permissionMode', typeof p.permissionMode === 'string' ? supportedPermissionMode(p.permissionMode, 'sessions.patch') : p.permissionMode],
      ]
      const organisation = organisationPatchOf(p)
      // a fenced read acknowledgement (two windows racing to mark a session read) must be nothing else
      const ack = p.expectedMarkedUnreadAt !== undefined
      if (ack && (p.unread !== false || Object.entries(p).some(([k, v]) => v !== undefined && !UNREAD_ACK_KEYS.has(k)))) {
        throw invalid('expectedMarkedUnreadAt requires unread=false as the only mutation.')
      }
      if (p.archived === true) {
        rejectProtectedArchive(key)
        if (sessionBusy(core, key)) throw invalid('Cannot archive a session with an active run.')
      }
      const expected = { sessionId: p.expectedSessionId, lifecycleRevision: p.expectedLifecycleRevision }
      let staleAck = false
      const entry = await core.store(agentId).update(key, (cur) => {
        // inside the update, so the fence also holds when the write is replayed over another process's
        checkSessionUnchanged(key, cur, expected, 'patch')
        if (!cur) return undefined
        if (ack && (cur.markedUnreadAt ?? null) !== p.expectedMarkedUnreadAt) {
          staleAck = true // marked unread again since the caller looked: the newer mark stands
          return undefined
        }
        const now = Date.now()
        const next = { ...cur, updatedAt: now } as unknown as Record<string, unknown>
        for (const [f, v] of fields) {
          if (v === undefined) continue
          if (v === null) delete next[f]
          else next[f] = v
        }
        if (model === null) delete next.modelOverride
        else if (model !== undefined) setModel(next as unknown as SessionEntry, model)
        const org = organisationOf(cur)
        const refused = applyOrganisationPatch(org, organisation, now)
        if (refused) throw invalid(refused)
        return withOrganisation(next, org)
      })
      if (!entry) throw new ApiError('NOT_FOUND', `session not found: ${key}`)
      // an archived session streams no more: its Inspector log need not stay open until the idle close
      if (p.archived === true && entry.sessionId) await core.eventLog.release(eventLogFile(core.stateDir, agentId, entry.sessionId))
      if (!staleAck) core.sessionChanged(key, 'patch')
      return { ok: true, key, entry: toSessionRow(key, entry, agentId) }
    },

    async 'sessions.reset'(p) {
      const { key, agentId } = canonicalKey(core, p.key, p.agentId)
      const out: { messages?: string[] } = {}
      const entry = await resetSession(core, key, agentId, p.reason ?? 'reset', out)
      return { ok: true, key, entry: toSessionRow(key, entry, agentId), ...(out.messages ? { messages: out.messages } : {}) }
    },

    async 'sessions.delete'(p) {
      const { key, agentId } = canonicalKey(core, p.key, p.agentId)
      rejectProtectedDelete(key)
      const store = core.store(agentId)
      const entry = store.get(key)
      const notArchived = () => invalid(`Session ${key} is not archived. Archive it first, then delete it.`)
      if (p.archivedOnly && entry?.archivedAt === undefined) throw notArchived()
      checkSessionUnchanged(
        key,
        entry,
        { sessionId: p.expectedSessionId, lifecycleRevision: p.expectedLifecycleRevision, updatedAt: p.expectedSessionUpdatedAt },
        'deletion',
      )
      if (!entry) return { ok: true, key, deleted: false, archived: [] }
      core.followups.clear(key)
      core.queueModes?.clear(key, 'session deleted')
      abortSessionRuns(core, key, { includeQueued: true, reason: 'delete' })
      await settleSessionRuns(core, key)
      // The stopped runs moved updatedAt; the incarnation (and its archive mark) must still be the one asked for.
      let gone = false
      await store.update(key, (cur) => {
        if (!cur) {
          gone = true // deleted meanwhile by another caller
          return undefined
        }
        checkSessionUnchanged(key, cur, { sessionId: entry.sessionId, lifecycleRevision: p.expectedLifecycleRevision }, 'deletion')
        if (p.archivedOnly && cur.archivedAt === undefined) throw notArchived()
        return null
      })
      if (gone) return { ok: true, key, deleted: false, archived: [] }
      // before the transcript moves: session_end counts its messages where they are
      const sessionFile = store.transcriptPath(entry.sessionId)
      if (p.emitLifecycleHooks !== false) {
        await callHook('sessionDeleted', () => core.hooks.sessionDeleted?.({ sessionKey: key, agentId, sessionId: entry.sessionId, sessionFile }), defaultHookErrorReporter)
      }
      const archived: string[] = []
      if (p.deleteTranscript) {
        await deleteTranscriptAndMedia(core, sessionFile)
      } else {
        const to = await store.archiveTranscript(entry.sessionId, 'deleted')
        if (to) archived.push(to)
      }
      await core.eventLog.remove(eventLogFile(core.stateDir, agentId, entry.sessionId))
      core.bus.clearSession(key)
      core.approvals.clearSession(key)
      core.sessionChanged(key, 'delete')
      return { ok: true, key, deleted: true, archived }
    },

    async 'sessions.abort'(p, ctx) {
      if (!p.key && !p.runId) throw invalid('sessions.abort needs key or runId')
      let key: string
      if (p.key) {
        key = canonicalKey(core, p.key, p.agentId).key
        // a send of the session still being accepted: its run exists once the accept is done (as chat.abort)
        const accepting = core.accepting.settled(key, p.runId)
        if (accepting) await accepting
        // a runId of another session is not this session's to abort
        const t = p.runId ? core.tracked.get(p.runId) : undefined
        if (t && t.sessionKey !== key) throw invalid(`runId ${p.runId} does not belong to session ${key}`)
      } else {
        // a run still being accepted has no tracked run yet: its session is known once it is
        const accepting = core.accepting.settled(core.accepting.sessionOf(p.runId!) ?? '', p.runId)
        if (accepting) await accepting
        const t = core.tracked.get(p.runId!)
        // abortedRunId null, as both OpenClaw releases answer
        if (!t) return { ok: true, abortedRunId: null, status: 'no-active-run' }
        key = t.sessionKey
      }
      checkMayAbort(core, key, p.runId, ctx.mayAbort)
      if (p.runId && !core.tracked.has(p.runId) && removeQueuedRun(core, key, p.runId)) return { ok: true, abortedRunId: p.runId, status: 'aborted' }
      // a runId names its run wherever it is, waiting in the session lane too (as chat.abort's does)
      const aborted = abortSessionRuns(core, key, { runId: p.runId, includeQueued: p.clearQueued || p.runId !== undefined, mayAbort: ctx.mayAbort })
      let clearedQueued: number | undefined
      // the queue holds other callers' turns too: only a caller who may stop every run clears it
      if (p.clearQueued && !ctx.mayAbort) {
        // what waits behind the run: queued turns (queue modes) and collected follow-ups
        const queuedRunIds = core.queueModes?.clear(key, 'aborted') ?? []
        for (const id of queuedRunIds) if (!aborted.includes(id)) aborted.push(id)
        clearedQueued = core.followups.clear(key) + queuedRunIds.length
      }
      const extra = { ...(aborted.length > 1 ? { abortedRunIds: aborted } : {}), ...(clearedQueued !== undefined ? { clearedQueued } : {}) }
      return aborted.length > 0 ? { ok: true, abortedRunId: aborted[0], status: 'aborted', ...extra } : { ok: true, abortedRunId: null, status: 'no-active-run', ...extra }
    },

    async 'sessions.compact'(p) {
      const { key, agentId } = canonicalKey(core, p.key, p.agentId)
      const entry = requireEntry(core, key, agentId)
      if (p.maxLines !== undefined) {
        // OpenClaw trims the transcript to its last maxLines lines; Loopdesk summarizes instead, and only
        // when the transcript is longer than that.
        const lines = await transcriptLines(core.store(agentId).transcriptPath(entry.sessionId))
        if (lines <= p.maxLines) return { ok: true, key, compacted: false, reason: `transcript has ${lines} line(s), within maxLines ${p.maxLines}` }
      }
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

/**
 * sessions.delete with deleteTranscript: the transcript goes, then (in the background) the inbound media
 * only it named. An archived transcript (reset, delete without deleteTranscript) keeps its media.
 */
async function deleteTranscriptAndMedia(core: RuntimeCore, file: string): Promise<void> {
  if (core.media) await core.media.deleteTranscript(file)
  else fs.rmSync(file, { force: true })
}

/** OpenClaw's lastInteractionAt, from what we store: when the last run ended (or started). */
function lastInteraction(r: SessionRow): number | undefined {
  return r.endedAt ?? r.startedAt
}

/** How much of a transcript's head is read for a derived title (the first user turn is near the top). */
const DERIVED_TITLE_SCAN_BYTES = 256 * 1024
const DERIVED_TITLE_FIRST_READ = 16 * 1024
/** transcripts read at once for titles (a first list of 1,000 sessions must not hold 1,000 buffers) */
const DERIVED_TITLE_CONCURRENCY = 16
/** derived titles found, per transcript file (a first user message never changes); bounded */
const DERIVED_TITLE_CACHE_MAX = 10_000
const derivedTitleCache = new WeakMap<RuntimeCore, Map<string, string>>()

/**
 * derivedTitle = the first user message's text, one line, cut to 60 chars (only rows without a label).
 * Reads just the transcript's head, once per transcript: the window asks for titles on every list, and
 * listing many sessions never loads whole transcripts.
 */
async function addDerivedTitle(core: RuntimeCore, row: SessionRow): Promise<void> {
  if (row.label) return
  const file = core.store(row.agentId).transcriptPath(row.sessionId)
  let cache = derivedTitleCache.get(core)
  if (!cache) derivedTitleCache.set(core, (cache = new Map()))
  const known = cache.get(file)
  if (known !== undefined) {
    row.derivedTitle = known
    return
  }
  let fh: fs.promises.FileHandle
  try {
    fh = await openRegularFile(file)
  } catch {
    return // no transcript (never ran) or unreadable: no derived title
  }
  try {
    // the first user message is usually within a few KiB; a larger read only when it is not (an inline image)
    for (const size of [DERIVED_TITLE_FIRST_READ, DERIVED_TITLE_SCAN_BYTES]) {
      const buf = Buffer.alloc(size)
      const { bytesRead } = await fh.read(buf, 0, size, 0)
      const found = firstUserTitle(buf.subarray(0, bytesRead).toString('utf8'), bytesRead >= size)
      if (found !== undefined) {
        if (found) {
          row.derivedTitle = found
          if (cache.size >= DERIVED_TITLE_CACHE_MAX) cache.delete(cache.keys().next().value!)
          cache.set(file, found)
        }
        return
      }
      if (bytesRead < size) return // the whole file was read
    }
  } catch {
    // unreadable: no derived title
  } finally {
    await fh.close().catch(() => {})
  }
}

/** The title of the first user message with text in a transcript's head; "" = the head ends before one. */
function firstUserTitle(head: string, cut: boolean): string | undefined {
  const lines = head.split('\n')
  if (cut) lines.pop() // possibly cut mid-line
  for (const line of lines) {
    let e: { type?: unknown; message?: { role?: unknown; content?: unknown } }
    try {
      e = JSON.parse(line)
    } catch {
      continue
    }
    if (e?.type !== 'message' || e.message?.role !== 'user') continue
    const title = deriveSessionTitleOf(e.message.content)
    if (title) return title
  }
  return cut ? undefined : ''
}

async function transcriptLines(file: string): Promise<number> {
  try {
    const text = await readRegularFileText(file)
    return text.split('\n').filter((l) => l.trim() !== '').length
  } catch {
    return 0
  }
}

/** OpenClaw's sessions.list defaults: the default model and its context window (null when none is set). */
export function modelDefaults(core: RuntimeCore): { modelProvider: string | null; model: string | null; contextTokens: number | null } {
  const ref = core.config.current.defaults.model
  if (!ref) return { modelProvider: null, model: null, contextTokens: null }
  const slash = ref.indexOf('/')
  let contextTokens: number | null = null
  try {
    contextTokens = core.models().resolve(ref).model.contextWindow ?? null
  } catch {
    // unknown provider/model: report the configured ref, without a window
  }
  return { modelProvider: ref.slice(0, slash), model: ref.slice(slash + 1), contextTokens }
}

export { rowOf }

/**
 * The parent's title as sessions.list reads it, which its forks are named after: "<title> (fork)", numbered past
 * the names the new session's agent has ("(fork 2)", …: numberedForkTitle, in the store update) so a second fork
 * of one session is told apart.
 */
async function forkBaseTitle(core: RuntimeCore, parentKey: string, parentAgentId: string, parentEntry: SessionEntry): Promise<string> {
  const parentRow = toSessionRow(parentKey, parentEntry, parentAgentId)
  await addDerivedTitle(core, parentRow)
  return sessionTitle(parentRow)
}

/** The names sessions go by (label and display name), which a fork's number steps past. */
function* sessionNames(entries: Iterable<SessionEntry>): Iterable<string> {
  for (const e of entries) {
    if (e.label) yield e.label
    if (e.displayName) yield e.displayName
  }
}

/** The parent's conversation as a fork starts it, and the working directory its transcript names. */
async function forkOf(
  core: RuntimeCore,
  agentId: string,
  sessionId: string,
  from?: ForkPoint,
): Promise<{ entries: TranscriptEntry[]; cwd?: string; editorText?: string }> {
  const parent = Transcript.forSession(core.stateDir, agentId, sessionId)
  const read = parent.exists() ? await parent.readAll() : { entries: [] as TranscriptEntry[] }
  const entries = forkEntries(read.entries, from)
  if (!entries) {
    throw from === 'last-completed' || !from
      ? invalid('sessions.create forkFrom=last-completed: the parent has no completed reply to fork from')
      : invalid(`sessions.fork: no user message ${from.beforeEntryId} in this session's transcript`)
  }
  const header = read.entries.find((x) => x.type === 'session')
  const editorText = from && from !== 'last-completed' ? userMessageText(read.entries, from.beforeEntryId) : undefined
  return { entries, cwd: header?.type === 'session' ? header.cwd : undefined, ...(editorText !== undefined ? { editorText } : {}) }
}
