// The controller connects the Bridge to the stores. Every incoming event is recorded in the
// inspector's ring and turned into reducer actions; actions are batched and applied at most once per
// animation frame (see flush-scheduler.ts), so a flood of deltas costs one render per frame.
import type { Bridge } from '../../../shared/bridge'
import { inspectorCovers } from '../layout'
import { isConnectionAware, isTokenChanged, pairingRequiredOf } from '../bridge/connection'
import type { AgentEvent, AnyEvent, QueueItem } from '../../../shared/events'
import type { ApprovalDecision } from '../../../shared/events'
import type { ParamsOf, Prefs, Result, Results, SessionRow } from '../../../shared/methods'
import { isBlankMessage } from '../../../shared/hidden-chars'
import { modelCommandChanges, parseCommand } from '../../../shared/chat-commands'
import type { MarkdownMessage } from '../../../shared/conversation-markdown'
import { EventLog } from './event-log'
import { activeRun, reduce, retryableRun, runsWithGaps, type Action } from './run-reducer'
import { type AppStores, type MessageFocus, type QueueEntry, type SettingsState } from './stores'
import { emptyTranscript, type Transcript, type UserItem } from './types'
import { flushScheduler, type Schedule } from './flush-scheduler'
import type { DetachedView } from './detached-window'
import type { ConfigWrites } from './config-writes'
import { errorText } from './error-text'

// a chunk of its own, loaded by the first jump far back (what first paint loads stays under 500 kB)
const detachedWindows = () => import('./detached-window')
import { HISTORY_PAGE, MAX_HISTORY_LIMIT, olderPage, planDelta, planRefetch, refetchLimit, resyncCursor, type RefetchPlan } from './history-paging'
import { withAttachmentLines } from '../../../shared/attachments'
import { compareForSidebar } from '../../../shared/sidebar-order'
import { deriveSessionTitle, sessionTitle } from '../../../shared/session-title'
import { DismissedOutcomes } from './queue-dismissed'
import { RetryWanted } from './retry-wanted'
import { lazyPairing, type PairingApi } from './pairing-lazy'
import { mergeListedRows } from './session-rows'
import { admitFiles, echoLines, encodeAttachments, releasePreviews, type PendingAttachment, type WireAttachment } from './attachments'
import { formatInt } from '../lib/format'
import { messageOverLimit } from '../../../shared/message-limit'
import { pushInputHistory } from './input-history'
import { withDraft } from './saved-drafts'
import { describeSendError, type SendRefusal } from './send-error'

/** sessions whose last sent message (attachment bytes included) is kept for Retry */
const MAX_RETRY_KEPT = 8
/** refetches (100 ms, 200 ms, …) for the user message of a run started elsewhere */
const FOREIGN_USER_TRIES = 5
/** How long a gap may stay open before we apply what we have and refetch. */
export const GAP_TIMEOUT_MS = 1500
/** How long "Stopping…" may wait for the terminal event before we reconcile with the runtime. */
export const STOP_SETTLE_MS = 8000
const MAX_CACHED_TRANSCRIPTS = 8
/**
 * The window's history pages ask for every message whole: without it a reply over 128 KiB comes back as
 * OpenClaw's "[chat.history omitted: message too large]" placeholder after a reload or a session switch.
 */
const WHOLE = true
/**
 * …and the rows of replies that said nothing (NO_REPLY; a repeat of a message-tool send), without their text:
 * without them a run that chose not to answer reloads as one that never ran ("Interrupted").
 */
const PAGE_ROWS = { wholeMessages: WHOLE, silentReplies: true } as const
const LAST_SESSION_KEY = 'loopdesk.lastSession'
/** find matches listed per query (all are counted) */
const FIND_LIMIT = 2000

function newId(): string {
  try {
    return crypto.randomUUID()
  } catch {
    return `id-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
  }
}

/**
 * A delta resync lost with the connection: the reconnect resyncs from the same cursor. Asking for a full page
 * instead would only queue that request for after the reconnect — a whole page where a delta would do.
 */
class ResyncOnReconnect extends Error {}

export class Controller {
  readonly log = new EventLog()
  private pending = new Map<string, Action[]>()
  private flushScheduled = false
  private unsubscribe?: () => void
  private runSessions = new Map<string, string>()
  private acceptedAt: Record<string, number> = {}
  /** live actions that arrived while a session's history was being fetched */
  private duringFetch = new Map<string, Action[]>()
  private refetchTimers = new Map<string, ReturnType<typeof setTimeout>>()
  private gapTimers = new Map<string, ReturnType<typeof setTimeout>>()
  private stopTimers = new Map<string, ReturnType<typeof setTimeout>>()
  private approvalTimers = new Map<string, ReturnType<typeof setTimeout>>()
  /** approvals already answered: a history load that read them as pending must not bring them back */
  private answeredApprovals = new Set<string>()
  /**
   * Runs started by another client (window, tab, CLI) whose user message is not shown yet → refetches tried.
   * Their events carry only the reply: the message comes from history, which has it once the run wrote it.
   */
  private foreignStarts = new Map<string, number>()
  /** per session, its last message sent from here as sent (attachment bytes too): what Retry sends again */
  private lastSent = new Map<string, { runIds: string[]; message: string; shown: string; wire?: WireAttachment[] }>()
  private searchTimer?: ReturnType<typeof setTimeout>
  private searchSeq = 0
  private focusSeq = 0
  private revealSeq = 0
  private disposed = false

  /** remote devices asking to be paired (the pairing prompt) */
  readonly pairing: PairingApi

  constructor(
    readonly bridge: Bridge,
    readonly stores: AppStores,
    private readonly schedule: Schedule = flushScheduler,
  ) {
    this.pairing = lazyPairing(() => import('./pairing').then((m) => new m.PairingRequests(bridge, stores.pairing, (text, kind) => this.toast(text, kind))))
  }

  // ------------------------------------------------------------------------------ startup

  async start(): Promise<void> {
    // start() doubles as "retry": subscribe only once.
    if (!this.unsubscribe) {
      this.unsubscribe = this.bridge.subscribe({}, (ev) => this.onEvent(ev))
      if (isConnectionAware(this.bridge)) {
        const off = this.bridge.onConnectionChange((s) => this.onConnection(s.state, s.error?.message, isTokenChanged(s.error), pairingRequiredOf(s.error)))
        const prev = this.unsubscribe
        this.unsubscribe = () => (off(), prev())
      }
    }
    const [prefs] = await Promise.all([this.loadPrefs(), this.loadSettings(), this.loadSessions(), this.loadStatus(), this.pairing.start()])
    // the remembered Inspector opens where it sits beside the conversation; in a narrow window (another
    // browser's, or the app made small) it would start as a drawer over it, so it waits to be asked for
    if (prefs) this.stores.inspector.setState({ open: prefs.inspectorOpen && !inspectorCovers() })
    const rows = this.stores.sessions.getState().rows
    if (this.disposed) return
    let last: string | null = null
    try {
      last = localStorage.getItem(LAST_SESSION_KEY)
    } catch {
      // storage unavailable
    }
    const initial = rows.find((r) => r.key === last)?.key ?? firstListed(rows)
    if (initial) await this.selectSession(initial)
    else if (this.stores.settings.getState().connection === 'ready') await this.createSession()
  }

  /** WebSocket transport state: events may have been missed while it was down, so resync after. */
  private wasDown = false
  private onConnection(state: string, error?: string, tokenChanged = false, pairingRequired?: SettingsState['pairingRequired']) {
    if (state === 'open') {
      this.stores.settings.setState({ connection: 'ready', connectionError: undefined, tokenChanged: false, pairingRequired: undefined })
      if (this.wasDown) {
        this.wasDown = false
        void this.loadSessions()
        // pairing events may have been missed too
        void this.pairing.refresh()
        const key = this.stores.sessions.getState().selectedKey
        void this.resyncApprovalsElsewhere(key)
        if (key) {
          void this.loadTranscript(key)
          // the queue may have moved on meanwhile (ran, was dropped): show the runtime's, not ours
          void this.loadQueue(key)
        }
      }
    } else if (state === 'reconnecting' || state === 'connecting') {
      this.wasDown = true
      this.stores.settings.setState({ connection: 'connecting', connectionError: 'Reconnecting to the gateway…' })
    } else if (state === 'failed' || state === 'closed') {
      this.wasDown = true
      this.stores.settings.setState({ connection: 'error', connectionError: error ?? 'The gateway connection closed', tokenChanged, pairingRequired })
    }
  }

  dispose() {
    this.disposed = true
    this.unsubscribe?.()
    this.pairing.dispose()
    for (const t of [...this.refetchTimers.values(), ...this.gapTimers.values(), ...this.stopTimers.values(), ...this.approvalTimers.values()]) clearTimeout(t)
    clearTimeout(this.searchTimer)
    clearTimeout(this.titleTimer)
    this.cancelSaveRetries()
    for (const list of Object.values(this.stores.composer.getState().attachments)) releasePreviews(list)
  }

  /** Shows a toast for 6 s (or until dismissed); returns its id. (Public for a view whose own notice is gone with it.) */
  toast(text: string, kind: 'error' | 'info' = 'error'): number {
    const id = Date.now() + Math.random()
    this.stores.ui.setState((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text }] }))
    setTimeout(() => this.stores.ui.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })), 6000)
    return id
  }

  dismissToast(id: number) {
    this.stores.ui.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }))
  }

  /** Unwraps a bridge Result; failures become a toast (with context) and undefined. */
  private async call<T>(p: Promise<Result<T>>, what: string): Promise<T | undefined> {
    try {
      const r = await p
      if (r.ok) return r.data
      this.toast(`${what}: ${errorText(r.error)}`)
    } catch (err) {
      this.toast(`${what}: ${errorText(err)}`)
    }
    return undefined
  }

  async loadPrefs(): Promise<Prefs | undefined> {
    const prefs = await this.call(this.bridge.prefsGet({}), 'Could not load preferences')
    if (prefs) this.stores.settings.setState({ prefs })
    return prefs
  }

  async loadSettings(): Promise<void> {
    try {
      const [config, models] = await Promise.all([this.bridge.settingsGet({}), this.bridge.modelsList({})])
      if (!config.ok) throw new Error(errorText(config.error))
      if (!models.ok) throw new Error(errorText(models.error))
      this.stores.settings.setState({
        config: config.data,
        models: models.data.models,
        defaultModel: models.data.defaultModel,
        modelsLoaded: true,
        connection: 'ready',
        connectionError: undefined,
      })
    } catch (err) {
      this.stores.settings.setState({ connection: 'error', connectionError: errorText(err) })
    }
  }

  /**
   * The config file's problems again (window focus: the user may have edited loopdesk.json in an editor — the
   * runtime sends no event for it). Not while Settings is open: its forms are seeded from the config.
   */
  async refreshConfigIssues(): Promise<void> {
    const settings = this.stores.settings.getState()
    if (settings.settingsOpen || settings.connection !== 'ready') return
    // status too: the window falls back to its configIssues, which would keep a fixed problem shown
    const [r] = await Promise.all([this.bridge.settingsGet({}).catch(() => undefined), this.loadStatus()])
    if (!r?.ok || this.stores.settings.getState().settingsOpen) return
    this.stores.settings.setState({ config: r.data })
  }

  async loadStatus(): Promise<void> {
    const status = await this.bridge.status({}).catch(() => undefined)
    if (status?.ok) this.stores.settings.setState({ status: status.data })
  }

  // ------------------------------------------------------------------------------ events

  private sessionOf(ev: AnyEvent): string | undefined {
    const p = ev.payload as { sessionKey?: string; runId?: string }
    if (typeof p.sessionKey === 'string') {
      if (typeof p.runId === 'string') this.runSessions.set(p.runId, p.sessionKey)
      return p.sessionKey
    }
    return typeof p.runId === 'string' ? this.runSessions.get(p.runId) : undefined
  }

  /** Entry point for every event from the bridge. */
  onEvent(ev: AnyEvent) {
    if (!ev || typeof ev !== 'object' || !ev.payload) return
    const sessionKey = this.sessionOf(ev)
    if (sessionKey && ev.event !== 'sessions.changed') this.log.record(sessionKey, ev)
    switch (ev.event) {
      case 'sessions.changed':
        if (sessionKey) this.log.record(sessionKey, ev)
        return this.onSessionChanged(ev.payload)
      case 'agent':
        if (sessionKey) {
          const p = ev.payload
          // a run this window did not send: its user message is fetched from history (afterChange)
          const open = !!this.stores.runs.getState().transcripts[sessionKey]
          if (open && p.stream === 'lifecycle' && p.data?.phase === 'start' && !(p.runId in this.acceptedAt) && !this.foreignStarts.has(p.runId))
            this.foreignStarts.set(p.runId, 0)
          this.trackWaiting(sessionKey, p)
          this.enqueue(sessionKey, { type: 'agent', event: ev.payload })
        }
        break
      case 'chat':
        if (sessionKey) this.enqueue(sessionKey, { type: 'chat', event: ev.payload })
        break
      case 'exec.approval.requested':
        if (sessionKey) this.setApprovalPending(sessionKey, ev.payload.id, ev.payload.expiresAt)
        // its run's user message is in the transcript by now (a list read at the run's start may have been too early)
        if (sessionKey && !this.stores.sessions.getState().rows.find((r) => r.key === sessionKey)?.derivedTitle) this.scheduleTitleRefresh()
        if (sessionKey) this.enqueue(sessionKey, { type: 'approval.requested', request: ev.payload })
        break
      case 'exec.approval.resolved':
        if (sessionKey) this.setApprovalPending(sessionKey, ev.payload.id, undefined)
        if (sessionKey) this.enqueue(sessionKey, { type: 'approval.resolved', resolved: ev.payload })
        break
      case 'queue.changed':
        this.onQueue(ev.payload.sessionKey, ev.payload.items)
        if (sessionKey) this.enqueue(sessionKey, { type: 'queue', items: ev.payload.items })
        break
      case 'shutdown':
        this.stores.settings.setState({ connection: 'error', connectionError: `The runtime is shutting down (${ev.payload.reason}).` })
        return
      default:
        return
    }
    if (this.stores.inspector.getState().open) this.scheduleFlush()
  }

  /**
   * Runs waiting for a slot in every session, open or not (the sidebar's and the header's "Waiting"): the `lane`
   * stream adds one, its lifecycle (start, or an end while still queued) removes it.
   */
  private trackWaiting(sessionKey: string, p: AgentEvent) {
    const all = this.stores.sessions.getState().waitingRuns ?? {}
    if (p.stream === 'lane' && (p.data as { phase?: unknown })?.phase === 'waiting') {
      if (all[sessionKey] !== p.runId) this.stores.sessions.setState({ waitingRuns: { ...all, [sessionKey]: p.runId } })
    } else if (p.stream === 'lifecycle' && all[sessionKey] === p.runId) {
      const next = { ...all }
      delete next[sessionKey]
      this.stores.sessions.setState({ waitingRuns: next })
    }
  }

  /**
   * The approvals waiting for an answer in every session, open or not (the sidebar's "Needs approval", the
   * window title): `expiresAt` adds one, undefined removes it.
   */
  private setApprovalPending(sessionKey: string, id: string, expiresAt: number | undefined) {
    clearTimeout(this.approvalTimers.get(id))
    this.approvalTimers.delete(id)
    const all = this.stores.sessions.getState().pendingApprovals
    const mine = { ...all[sessionKey] }
    if (expiresAt === undefined) {
      this.answeredApprovals.add(id)
      if (!(id in mine)) return
      delete mine[id]
    } else {
      if (this.answeredApprovals.has(id) || this.disposed) return
      mine[id] = expiresAt
      // The runtime denies it at expiresAt; should its resolved event be missed (a reconnect), drop it then.
      // At least a few seconds: the runtime's clock may run ahead of ours.
      const left = Math.max(expiresAt - Date.now(), 5000) + 1000
      this.approvalTimers.set(
        id,
        setTimeout(() => this.setApprovalPending(sessionKey, id, undefined), left),
      )
    }
    const next = { ...all }
    if (Object.keys(mine).length) next[sessionKey] = mine
    else delete next[sessionKey]
    this.stores.sessions.setState({ pendingApprovals: next })
  }

  /**
   * After a reconnect: the approvals still waiting in sessions other than the open one (whose history load reads
   * its own) — one answered while this window was away would say "Needs approval" until it expired.
   */
  private async resyncApprovalsElsewhere(openKey: string | undefined) {
    const all = this.stores.sessions.getState().pendingApprovals
    await Promise.all(
      Object.keys(all)
        .filter((k) => k !== openKey)
        .map(async (k) => {
          const before = Object.keys(this.stores.sessions.getState().pendingApprovals[k] ?? {})
          // the fewest events: only its approvals are read
          const r = await this.bridge.recentEvents({ sessionKey: k, limit: 1 }).catch(() => undefined)
          if (r?.ok && !this.disposed) this.syncApprovals(k, r.data.approvals ?? [], before)
        }),
    )
  }

  /**
   * A history load read the session's pending approvals (asked before this window connected, or while it was
   * away). `before`: the ids waiting here when the read was asked for — one of them not in it was answered
   * (in another window, by the CLI, timed out) while this window missed the event (a reconnect): it goes.
   * One requested after the read was taken is not in it either, but was not waiting here before it.
   */
  private syncApprovals(sessionKey: string, pending: readonly { id: string; expiresAt: number }[], before: readonly string[]) {
    const still = new Set(pending.map((r) => r.id))
    for (const id of before) if (!still.has(id)) this.setApprovalPending(sessionKey, id, undefined)
    for (const r of pending) if (!this.stores.sessions.getState().pendingApprovals[sessionKey]?.[r.id]) this.setApprovalPending(sessionKey, r.id, r.expiresAt)
  }

  private enqueue(sessionKey: string, action: Action) {
    const fetching = this.duringFetch.get(sessionKey)
    if (fetching) fetching.push(action)
    if (!this.stores.runs.getState().transcripts[sessionKey]) return // not open: history covers it later
    const list = this.pending.get(sessionKey)
    if (list) list.push(action)
    else this.pending.set(sessionKey, [action])
    this.scheduleFlush()
  }

  private scheduleFlush() {
    if (this.flushScheduled) return
    this.flushScheduled = true
    this.schedule(() => this.flush())
  }

  /** Applies all pending actions (one store update) — also called directly by tests. */
  flush() {
    this.flushScheduled = false
    if (this.stores.inspector.getState().open) this.stores.inspector.setState((s) => ({ version: s.version + 1 }))
    if (!this.pending.size) return
    const batches = this.pending
    this.pending = new Map()
    const before = this.stores.runs.getState().transcripts
    let next = before
    for (const [key, actions] of batches) {
      const t = next[key]
      if (!t) continue
      const r = reduce(t, actions)
      if (r !== t) next = { ...next, [key]: r }
    }
    if (next !== before) this.stores.runs.setState({ transcripts: next })
    for (const key of batches.keys()) this.afterChange(key)
  }

  private afterChange(sessionKey: string) {
    const t = this.stores.runs.getState().transcripts[sessionKey]
    if (!t) return
    if (t.needsRefetch) this.scheduleRefetch(sessionKey)
    this.fetchForeignUsers(sessionKey, t)
    const gaps = runsWithGaps(t)
    if (gaps.length && !this.gapTimers.has(sessionKey)) {
      this.gapTimers.set(
        sessionKey,
        setTimeout(() => {
          this.gapTimers.delete(sessionKey)
          this.dispatch(sessionKey, [{ type: 'gap.flush' }])
        }, GAP_TIMEOUT_MS),
      )
    }
    // Stop settled by a terminal event: no reconcile needed.
    const active = activeRun(t)
    for (const [runId, timer] of this.stopTimers) {
      if (this.runSessions.get(runId) === sessionKey && active?.runId !== runId) {
        clearTimeout(timer)
        this.stopTimers.delete(runId)
      }
    }
  }

  /**
   * A run started elsewhere shows its user message from the start, not only after the end-of-run refetch:
   * refetch history (a delta) until it has the message. The runtime writes it just after the run's
   * lifecycle start, so the first refetch may be early; a few tries with growing delays, then the end-of-run
   * refetch covers it. A refetch that brings it also names an unnamed session after it, as a send here does.
   */
  private fetchForeignUsers(sessionKey: string, t: Transcript) {
    for (const [runId, tries] of this.foreignStarts) {
      if (this.runSessions.get(runId) !== sessionKey) continue
      const track = t.runs[runId]
      const user = t.items.find((it): it is UserItem => it.kind === 'user' && it.runId === runId)
      if (user) {
        this.foreignStarts.delete(runId)
        if (user.text) this.nameFromFirstMessage(sessionKey, user.text, user.text)
      } else if (!track || track.terminal || tries >= FOREIGN_USER_TRIES || runId in this.acceptedAt) {
        this.foreignStarts.delete(runId)
      } else if (!this.refetchTimers.has(sessionKey) && !this.duringFetch.has(sessionKey)) {
        this.foreignStarts.set(runId, tries + 1)
        this.scheduleRefetch(sessionKey, 100 * 2 ** tries)
      }
    }
  }

  /** Applies actions to a session's transcript right away (local actions). */
  private dispatch(sessionKey: string, actions: Action[]) {
    const t = this.stores.runs.getState().transcripts[sessionKey]
    if (!t) return
    const r = reduce(t, actions)
    if (r !== t) this.stores.runs.setState((s) => ({ transcripts: { ...s.transcripts, [sessionKey]: r } }))
    this.afterChange(sessionKey)
  }

  private onSessionChanged(p: import('../../../shared/events').SessionsChangedEvent) {
    const s = this.stores.sessions.getState()
    if (p.reason === 'delete') {
      this.deletedAt.set(p.sessionKey, p.ts)
      this.lastSent.delete(p.sessionKey)
      this.stores.sessions.setState({ rows: s.rows.filter((r) => r.key !== p.sessionKey) })
      for (const id of Object.keys(s.pendingApprovals[p.sessionKey] ?? {})) this.setApprovalPending(p.sessionKey, id, undefined)
      this.dropTranscript(p.sessionKey)
      this.dropAttachments(p.sessionKey, this.stores.composer.getState().attachments[p.sessionKey] ?? [])
      if (s.selectedKey === p.sessionKey) {
        const next = firstListed(this.stores.sessions.getState().rows)
        this.stores.sessions.setState({ selectedKey: next })
        if (next) void this.selectSession(next)
      }
      return
    }
    if (p.session) this.upsertRow(p.session)
    if (p.reason === 'reset') this.jumpToLatest(p.sessionKey) // the window's rows are another transcript's now
    if (p.reason === 'reset' && this.stores.runs.getState().transcripts[p.sessionKey]) void this.loadTranscript(p.sessionKey)
    // A run of this session finished: reconcile with the persisted transcript (same keys, no flicker).
    if ((p.reason === 'end' || p.reason === 'error') && this.stores.runs.getState().transcripts[p.sessionKey]) this.scheduleRefetch(p.sessionKey, 400)
  }

  private upsertRow(incoming: SessionRow) {
    this.stores.sessions.setState((s) => {
      const i = s.rows.findIndex((r) => r.key === incoming.key)
      // event rows carry no derived title: keep the one we have (a reset starts a new one)
      const known = i < 0 || incoming.sessionId !== s.rows[i].sessionId ? undefined : s.rows[i].derivedTitle
      const row = incoming.derivedTitle === undefined && known !== undefined ? { ...incoming, derivedTitle: known } : incoming
      // a run going on has a user message too (lastMessagePreview comes only at its end): a session another
      // client (the CLI) started is named while it runs, not after — e.g. while it waits on an approval
      if (!row.label && row.derivedTitle === undefined && (row.lastMessagePreview || row.activeRunId)) this.scheduleTitleRefresh()
      const rows = i < 0 ? [row, ...s.rows] : s.rows.map((r, j) => (j === i ? row : r))
      return { rows: rows.slice().sort((a, b) => b.updatedAt - a.updatedAt) }
    })
  }

  /** when sessions were deleted (their event's ts): a list built before that must not bring them back */
  private readonly deletedAt = new Map<string, number>()
  private titleTimer: ReturnType<typeof setTimeout> | undefined
  /** A session that has messages but no title yet (another client wrote it): one list refresh names it. */
  private scheduleTitleRefresh() {
    if (this.titleTimer || this.disposed) return
    this.titleTimer = setTimeout(() => {
      this.titleTimer = undefined
      if (!this.disposed) void this.loadSessions()
    }, 1000)
  }

  /** The first message sent in an unnamed session names it at once (the runtime derives the same title). */
  private nameFromFirstMessage(sessionKey: string, message: string, shown: string) {
    if (message.startsWith('/')) return // a command, not a topic
    const title = deriveSessionTitle(shown)
    if (!title) return
    this.stores.sessions.setState((s) => {
      const row = s.rows.find((r) => r.key === sessionKey)
      if (!row || row.label || row.derivedTitle !== undefined || row.lastMessagePreview) return s
      return { rows: s.rows.map((r) => (r === row ? { ...r, derivedTitle: title } : r)) }
    })
  }

  private readonly dismissedOutcomes = new DismissedOutcomes()
  /** runs whose Stop and retry timed out: Retry once stopped, through history rebuilds and reloads */
  private readonly retryWanted = new RetryWanted()

  private onQueue(sessionKey: string, incoming: QueueItem[]) {
    // outcomes the user cleared stay cleared (the runtime keeps sending its recent finished items)
    const items = incoming.filter((q) => q.status === 'queued' || !this.dismissedOutcomes.has(sessionKey, q.id))
    this.stores.composer.setState((s) => {
      const prev = s.queues[sessionKey] ?? []
      const now = Date.now()
      const byId = new Map(prev.map((q) => [q.id, q]))
      const merged: QueueEntry[] = items.map((q) => {
        const old = byId.get(q.id)
        return { ...q, seenAt: old && old.status === q.status ? old.seenAt : now }
      })
      // Items that left the runtime's list keep their last known outcome for a while.
      for (const old of prev) if (!items.some((q) => q.id === old.id) && old.status !== 'queued') merged.push(old)
      const finished = merged.filter((q) => q.status !== 'queued').slice(-5)
      return { queues: { ...s.queues, [sessionKey]: [...merged.filter((q) => q.status === 'queued'), ...finished] } }
    })
  }

  dismissQueueOutcomes(sessionKey: string) {
    const finished = (this.stores.composer.getState().queues[sessionKey] ?? []).filter((q) => q.status !== 'queued')
    this.dismissedOutcomes.add(sessionKey, finished.map((q) => q.id))
    this.stores.composer.setState((s) => ({
      queues: { ...s.queues, [sessionKey]: (s.queues[sessionKey] ?? []).filter((q) => q.status === 'queued') },
    }))
  }

  // ------------------------------------------------------------------------------ sessions

  async loadSessions(): Promise<void> {
    try {
      // archived ones too: the sidebar hides them behind "Show archived" without asking again
      // derived titles: a session without a label is named after its first message
      const r = await this.bridge.sessionsList({ limit: 1000, includeGlobal: true, includeUnknown: true, archived: 'all', includeDerivedTitles: true })
      if (!r.ok) throw new Error(errorText(r.error))
      // events that arrived while the list was on its way are newer than it (session-rows.ts)
      for (const [key, at] of this.deletedAt) if (at < r.data.ts - 60_000) this.deletedAt.delete(key)
      const before = this.stores.sessions.getState().rows
      const rows = mergeListedRows(r.data.sessions, r.data.ts, before, this.deletedAt)
      this.stores.sessions.setState({ rows, loaded: true, error: undefined })
      this.stores.settings.setState({ connection: 'ready' })
      // deleted while this window missed the event (a reconnect; another window or the CLI deleted it): gone as
      // the event would have it — the open one left for another, not kept open with nothing behind it
      const listed = new Set(rows.map((row) => row.key))
      for (const row of before) if (!listed.has(row.key)) this.onSessionChanged({ sessionKey: row.key, reason: 'delete', ts: r.data.ts })
    } catch (err) {
      this.stores.sessions.setState({ loaded: true, error: errorText(err) })
      this.stores.settings.setState({ connection: 'error', connectionError: errorText(err) })
    }
  }

  async selectSession(key: string): Promise<void> {
    this.stores.sessions.setState({ selectedKey: key })
    // opened (again) from the list: at its latest messages, not at a window a jump left
    this.jumpToLatest(key)
    try {
      localStorage.setItem(LAST_SESSION_KEY, key)
    } catch {
      // ignore
    }
    const cached = this.stores.runs.getState().transcripts[key]
    if (!cached) {
      this.stores.runs.setState((s) => ({ transcripts: { ...s.transcripts, [key]: emptyTranscript(key) } }))
      this.trimCache(key)
    }
    // Always refresh from the runtime; a cached copy shows meanwhile (same keys, so no jump).
    await Promise.all([this.loadTranscript(key), this.loadQueue(key)])
  }

  private trimCache(keep: string) {
    const t = this.stores.runs.getState().transcripts
    const keys = Object.keys(t)
    if (keys.length <= MAX_CACHED_TRANSCRIPTS) return
    const drop = keys.find((k) => k !== keep && k !== this.stores.sessions.getState().selectedKey)
    if (drop) this.dropTranscript(drop)
  }

  private dropTranscript(key: string) {
    this.jumpToLatest(key)
    this.stores.runs.setState((s) => {
      const transcripts = { ...s.transcripts }
      delete transcripts[key]
      return { transcripts }
    })
    this.pending.delete(key)
    for (const runId of this.foreignStarts.keys()) if (this.runSessions.get(runId) === key) this.foreignStarts.delete(runId)
  }

  private scheduleRefetch(sessionKey: string, delay = 150) {
    if (this.refetchTimers.has(sessionKey)) return
    this.refetchTimers.set(
      sessionKey,
      setTimeout(() => {
        this.refetchTimers.delete(sessionKey)
        if (this.stores.runs.getState().transcripts[sessionKey]) void this.loadTranscript(sessionKey)
      }, delay),
    )
  }

  /**
   * Loads the newest history + the in-flight run's events and rebuilds the newest part of the
   * transcript (live events kept; older pages the user scrolled back to are kept too). A loaded session
   * (reconnect, re-opened, end of a run, seq gap) asks only for what was appended since its history
   * cursor; a reset, a failure or no cursor refetches the newest part in full.
   */
  async loadTranscript(sessionKey: string): Promise<void> {
    if (this.duringFetch.has(sessionKey)) {
      this.scheduleRefetch(sessionKey, 300)
      return
    }
    const buffered: Action[] = []
    this.duringFetch.set(sessionKey, buffered)
    this.stores.runs.setState((s) => ({ loading: { ...s.loading, [sessionKey]: true } }))
    try {
      const current = this.stores.runs.getState().transcripts[sessionKey]
      const waitingBefore = Object.keys(this.stores.sessions.getState().pendingApprovals[sessionKey] ?? {})
      const [plan, recent] = await Promise.all([
        this.planFromDelta(sessionKey, current).then((p) => p ?? this.planFromPages(sessionKey, current)),
        this.bridge.recentEvents({ sessionKey, limit: 5000 }),
      ])
      for (const ev of recent.ok ? recent.data.events : []) if (ev.runId) this.runSessions.set(ev.runId, sessionKey)
      if (recent.ok) this.syncApprovals(sessionKey, recent.data.approvals ?? [], waitingBefore)
      // A window opened (or reloaded) after the session's runs: the Inspector shows the agent events the
      // runtime still holds for it instead of nothing (live ones are recorded as they come)
      if (recent.ok && this.log.size(sessionKey) === 0) {
        for (const ev of recent.data.events) this.log.record(sessionKey, { event: 'agent', payload: ev }, ev.ts)
        if (recent.data.events.length && this.stores.inspector.getState().open) this.scheduleFlush()
      }
      // Apply pending live actions first so the hydrate sees optimistic items, then re-apply what
      // arrived during the fetch on top of the snapshot (duplicates are dropped by seq).
      const pending = this.pending.get(sessionKey) ?? []
      this.pending.delete(sessionKey)
      const base = this.stores.runs.getState().transcripts[sessionKey] ?? emptyTranscript(sessionKey)
      let t: Transcript = reduce(base, pending)
      const retryWanted = this.retryWanted.get(sessionKey)
      t = reduce(t, [{ type: 'hydrate', history: plan.history, recent: recent.ok ? recent.data : undefined, paging: plan.paging, retryWanted }, ...buffered])
      // a run still waiting for a slot (its lane event replayed from the runtime's ring): the row and header say so
      const waiting = activeRun(t)
      if (waiting?.waiting) this.trackWaiting(sessionKey, { runId: waiting.runId, seq: 0, ts: waiting.ts, stream: 'lane', data: { phase: 'waiting' } })
      this.stores.runs.setState((s) => ({
        transcripts: s.transcripts[sessionKey] || sessionKey === this.stores.sessions.getState().selectedKey ? { ...s.transcripts, [sessionKey]: t } : s.transcripts,
        loadErrors: { ...s.loadErrors, [sessionKey]: undefined },
      }))
    } catch (err) {
      if (!(err instanceof ResyncOnReconnect)) this.stores.runs.setState((s) => ({ loadErrors: { ...s.loadErrors, [sessionKey]: errorText(err) } }))
    } finally {
      this.duringFetch.delete(sessionKey)
      this.stores.runs.setState((s) => ({ loading: { ...s.loading, [sessionKey]: false } }))
    }
    this.afterChange(sessionKey)
  }

  /**
   * The refetch plan from a chat.history delta, when the transcript has a cursor and the runtime can answer
   * from it; undefined (refetch in full) on `reset`, on any failure, or when the transcript changed meanwhile —
   * except a failure because the connection dropped meanwhile: that load ends, and the reconnect's resync asks
   * with the same cursor.
   */
  private async planFromDelta(sessionKey: string, current: Transcript | undefined): Promise<RefetchPlan | undefined> {
    const cursor = resyncCursor(current)
    if (!current || !cursor) return undefined
    try {
      // whole: over the gateway a v4 delta otherwise carries OpenClaw's display copies (8,000-character cap)
      const r = await this.bridge.history({ sessionKey, cursor, wholeMessages: WHOLE })
      if (!r.ok) return this.deltaFailed()
      if (r.data.kind !== 'delta') return undefined
      // a reset (or another refetch) replaced what the cursor described while we waited
      if (this.stores.runs.getState().transcripts[sessionKey]?.historyCursor !== cursor) return undefined
      return planDelta(current, r.data)
    } catch (err) {
      if (err instanceof ResyncOnReconnect) throw err
      return this.deltaFailed()
    }
  }

  /** A delta call failed: refetch in full, unless the connection is down — then its reconnect resyncs. */
  private deltaFailed(): undefined {
    if (this.stores.settings.getState().connection === 'connecting') throw new ResyncOnReconnect()
    return undefined
  }

  /** The refetch plan from the newest page(s): back until the anchor of the part shown is included. */
  private async planFromPages(sessionKey: string, current: Transcript | undefined): Promise<RefetchPlan> {
    const history = await this.bridge.history({ sessionKey, limit: refetchLimit(current), ...PAGE_ROWS })
    if (!history.ok) throw new Error(errorText(history.error))
    // A long run may have added more messages than one page holds.
    let fetched = history.data.messages
    let more = history.data.hasMore
    let offset = history.data.nextOffset
    let plan = planRefetch(current, history.data, fetched, more)
    while (!plan && offset !== undefined) {
      const r = await this.bridge.history({ sessionKey, limit: MAX_HISTORY_LIMIT, offset, ...PAGE_ROWS })
      if (!r.ok) throw new Error(errorText(r.error))
      fetched = r.data.messages.concat(fetched)
      more = r.data.hasMore
      offset = r.data.nextOffset
      plan = planRefetch(current, history.data, fetched, more)
    }
    return plan ?? planRefetch(undefined, history.data, fetched, more)!
  }

  /**
   * Loads the next older page of history (the conversation calls this when its top is reached); `limit`
   * rows (a jump back to a message loads more at once). False when nothing could be loaded.
   */
  async loadOlder(sessionKey: string, limit = HISTORY_PAGE): Promise<boolean> {
    if (this.detachedView(sessionKey)) return this.pageDetached(sessionKey, 'older')
    const t = this.stores.runs.getState().transcripts[sessionKey]
    if (!t?.hasMore || t.nextOffset === undefined || this.stores.runs.getState().loading[sessionKey]) return false
    this.stores.runs.setState((s) => ({ loading: { ...s.loading, [sessionKey]: true } }))
    try {
      let offset: number | undefined = t.nextOffset
      // A page that only repeats messages already shown (new ones arrived since the offset was
      // computed) moves the offset on; give up after a few such pages rather than loop.
      for (let round = 0; round < 10 && offset !== undefined; round++) {
        const r = await this.bridge.history({ sessionKey, limit, offset, ...PAGE_ROWS })
        if (!r.ok) {
          this.toast(`Could not load older messages: ${errorText(r.error)}`)
          return false
        }
        const cur = this.stores.runs.getState().transcripts[sessionKey]
        if (!cur) return false
        const page = olderPage(cur, r.data)
        if (page.messages.length || !page.hasMore) {
          this.dispatch(sessionKey, [{ type: 'prepend', history: page }])
          return true
        }
        offset = page.nextOffset
      }
      return false
    } catch (err) {
      this.toast(`Could not load older messages: ${errorText(err)}`)
      return false
    } finally {
      this.stores.runs.setState((s) => ({ loading: { ...s.loading, [sessionKey]: false } }))
    }
  }

  /**
   * Opens a session at one message (a search hit, a find match). A message the conversation shows is scrolled
   * to; any other opens a detached window of the rows around it (`detached-window.ts`: a `messageId` window,
   * paged both ways from there) instead of loading every row from the end down to it. Then the conversation
   * scrolls to it and highlights it. False when the message is not in the session's transcript (any more).
   */
  async revealMessage(sessionKey: string, messageId: string, opts: { persist?: boolean; query?: string; occurrence?: number } = {}): Promise<boolean> {
    // the latest request wins: stepping quickly through matches never lands on an earlier one last
    const mine = ++this.revealSeq
    if (this.stores.sessions.getState().selectedKey !== sessionKey) await this.selectSession(sessionKey)
    else if (!this.stores.runs.getState().transcripts[sessionKey]?.loaded) await this.loadTranscript(sessionKey)
    const where = await this.locate(sessionKey, messageId, () => mine === this.revealSeq)
    if (!where || mine !== this.revealSeq || this.stores.sessions.getState().selectedKey !== sessionKey) return false
    const focus: MessageFocus = { sessionKey, messageId, seq: ++this.focusSeq }
    if (opts.persist) focus.persist = true
    if (opts.query) focus.query = opts.query
    if (opts.occurrence !== undefined) focus.occurrence = opts.occurrence
    // the window and the focus in one update: the conversation never shows a window without knowing where to land
    // (it would take its bottom for reached, where the live end's scroll position left it, and page on)
    const detached = where === 'shown' ? this.stores.runs.getState().detached : { ...this.stores.runs.getState().detached, [sessionKey]: where === 'live' ? undefined : where }
    this.stores.runs.setState({ focus, detached })
    return true
  }

  /** Drops the highlight of a message (the find bar closed, a search hit's highlight faded). */
  clearFocus(seq?: number) {
    const f = this.stores.runs.getState().focus
    if (f && (seq === undefined || f.seq === seq)) this.stores.runs.setState({ focus: undefined })
  }

  /** Every message of the session matching `query` (the find bar): oldest first, with the count of all. */
  async findInChat(sessionKey: string, query: string) {
    const r = await this.bridge.chatFind({ sessionKey, query: query.slice(0, 200), limit: FIND_LIMIT })
    if (!r.ok) throw new Error(errorText(r.error))
    return r.data
  }

  /** The session shown at a detached window (a jump far back), if it is. */
  detachedView(sessionKey: string): DetachedView | undefined {
    return this.stores.runs.getState().detached?.[sessionKey]
  }

  private setDetached(sessionKey: string, v: DetachedView | undefined) {
    const cur = this.stores.runs.getState().detached
    if (!v && !cur?.[sessionKey]) return
    this.stores.runs.setState({ detached: { ...cur, [sessionKey]: v } })
  }

  /** Back to the session's live end (the conversation's "Jump to latest", a newer page that reached it). */
  jumpToLatest(sessionKey: string) {
    this.setDetached(sessionKey, undefined)
  }

  /**
   * Where the message is shown: in what is shown already, else in the live transcript, else in a detached window
   * opened around it (undefined: it is gone, or a later request took over).
   */
  private async locate(sessionKey: string, messageId: string, current: () => boolean): Promise<'shown' | 'live' | DetachedView | undefined> {
    const { detachedHas, openDetached, OPEN_ROWS } = await detachedWindows()
    if (!current()) return undefined
    if (detachedHas(this.detachedView(sessionKey), messageId)) return 'shown'
    const live = () => {
      const t = this.stores.runs.getState().transcripts[sessionKey]
      return !!t && (!!t.msgKeys?.has(messageId) || t.olderIds.has(messageId) || t.recentIds.has(messageId))
    }
    if (live()) return 'live'
    // rows as the window's pages count them (silent replies included), so a row a page has is found
    const r = await this.bridge.history({ sessionKey, messageId, limit: OPEN_ROWS, ...PAGE_ROWS }).catch(() => undefined)
    if (!current()) return undefined
    const v = r?.ok ? openDetached(sessionKey, r.data, messageId) : undefined
    if (!v) {
      this.toast('That message is no longer in this conversation')
      return undefined
    }
    // the live transcript got it meanwhile (a refetch): no window needed
    return live() ? 'live' : v
  }

  /** The next page of a detached window: older rows above it, or newer ones below (the end: back to latest). */
  private async pageDetached(sessionKey: string, dir: 'older' | 'newer'): Promise<boolean> {
    const v = this.detachedView(sessionKey)
    if (!v || (dir === 'older' && !v.hasOlder) || this.stores.runs.getState().loading[sessionKey]) return false
    const edge = dir === 'older' ? v.rows[0] : v.rows[v.rows.length - 1]
    if (!edge) return false
    this.stores.runs.setState((s) => ({ loading: { ...s.loading, [sessionKey]: true } }))
    try {
      const { pageLimit, withNewer, withOlder } = await detachedWindows()
      const limit = pageLimit()
      const r = await this.bridge.history({ sessionKey, messageId: edge.id, limit, ...PAGE_ROWS })
      if (!r.ok) {
        this.toast(`Could not load ${dir} messages: ${errorText(r.error)}`)
        return false
      }
      // "Jump to latest", another jump or a session change meanwhile: this page is for a window no longer shown
      if (this.detachedView(sessionKey) !== v) return false
      const next = dir === 'older' ? withOlder(v, r.data.messages, limit) : withNewer(v, r.data.messages, limit)
      this.setDetached(sessionKey, next === 'latest' ? undefined : next)
      return true
    } catch (err) {
      this.toast(`Could not load ${dir} messages: ${errorText(err)}`)
      return false
    } finally {
      this.stores.runs.setState((s) => ({ loading: { ...s.loading, [sessionKey]: false } }))
    }
  }

  /** Loads the rows after a detached window (the conversation calls this when its bottom is reached). */
  loadNewer(sessionKey: string): Promise<boolean> {
    return this.pageDetached(sessionKey, 'newer')
  }

  async loadQueue(sessionKey: string): Promise<void> {
    const r = await this.bridge.queueList({ sessionKey }).catch(() => undefined)
    if (r?.ok) this.onQueue(sessionKey, r.data.items)
  }

  async createSession(label?: string): Promise<string | undefined> {
    const r = await this.opening(this.call(this.bridge.sessionsCreate(label ? { label } : {}), 'Could not create a session'))
    if (!r) return undefined
    this.upsertRow(r.entry)
    await this.selectSession(r.key)
    return r.key
  }

  /**
   * While a session is made to be opened, the shown one's message box takes no input (`UiState.openingSession`);
   * it ends as the new one is selected (in the same tick: selectSession sets it first), not when its history loaded.
   */
  private async opening<T>(made: Promise<T>): Promise<T> {
    this.stores.ui.setState({ openingSession: true })
    try {
      return await made
    } finally {
      this.stores.ui.setState({ openingSession: false })
    }
  }

  /**
   * A new session that starts with a copy of this one's conversation (sessions.create fork); it opens. While
   * the session is running, the copy ends at its last completed reply (not at a question still being answered).
   */
  async forkSession(key: string): Promise<string | undefined> {
    const row = this.stores.sessions.getState().rows.find((r) => r.key === key)
    const running = row?.status === 'running' || !!row?.activeRunId
    // no name sent: the runtime names it as every fork ("<title> (fork 2)" when "(fork)" is taken)
    const params = { parentSessionKey: key, fork: true, ...(running ? { forkFrom: 'last-completed' as const } : {}) }
    const r = await this.opening(this.call(this.bridge.sessionsCreate(params), 'Could not fork'))
    if (!r) return undefined
    this.upsertRow(r.entry)
    await this.selectSession(r.key)
    return r.key
  }

  async renameSession(key: string, label: string): Promise<boolean> {
    const r = await this.call(this.bridge.sessionsPatch({ key, label: label.trim() ? label.trim() : null }), 'Could not rename')
    if (r) this.upsertRow(r.entry)
    return !!r
  }

  async pinSession(key: string, pinned: boolean): Promise<boolean> {
    const r = await this.call(this.bridge.sessionsPatch({ key, pinned }), pinned ? 'Could not pin' : 'Could not unpin')
    if (r) this.upsertRow(r.entry)
    return !!r
  }

  /**
   * Read-only (the agent may read and search, not change files or run commands) or back to the default
   * (guarded). A run already going keeps its tools; the next one gets the new set.
   */
  async setReadOnly(key: string, readOnly: boolean): Promise<boolean> {
    const r = await this.call(
      this.bridge.sessionsPatch({ key, permissionMode: readOnly ? 'read-only' : null }),
      readOnly ? 'Could not make the session read-only' : 'Could not allow changes',
    )
    if (r) this.upsertRow(r.entry)
    return !!r
  }

  /**
   * The model for the session's next runs (`null`: back to the default model; sessions.patch `model`). A reply
   * already running keeps its model: the note says the change applies from the next message.
   */
  async setSessionModel(key: string, model: string | null): Promise<boolean> {
    const r = await this.call(this.bridge.sessionsPatch({ key, model }), 'Could not change the model')
    if (!r) return false
    this.upsertRow(r.entry)
    const t = this.stores.runs.getState().transcripts[key]
    const running = !!(t && activeRun(t)) || r.entry.status === 'running'
    const chosen = model ?? `the default model${this.stores.settings.getState().defaultModel ? `, ${this.stores.settings.getState().defaultModel}` : ''}`
    this.toast(`This session now uses ${chosen}.${running ? ' The reply running now keeps its model; the change applies from the next message.' : ''}`, 'info')
    return true
  }

  /**
   * `/model` is answered by the runtime (its reply is the command's `messages`): said as a note; a bare `/model`
   * (or `status`, `list`) also opens the header's picker, where the model is chosen.
   */
  private afterModelCommand(sessionKey: string, message: string, result: Results['chat.send']) {
    if (result.status !== 'command') return
    const cmd = parseCommand(message)
    if (cmd?.command !== 'model') return
    if (result.messages?.length) this.toast(result.messages.join(' '), 'info')
    // (a chosen model reaches the row with the session's sessions.changed)
    if (!modelCommandChanges(cmd.rest)) this.openModelPicker(sessionKey)
  }

  /** Opens the header's model picker of the session (a failed run's "Choose another model", a bare `/model`). */
  openModelPicker(sessionKey: string) {
    this.stores.ui.setState((s) => ({ modelPicker: { sessionKey, seq: (s.modelPicker?.seq ?? 0) + 1 } }))
  }

  /** Archiving the open session while archived ones are hidden opens the next listed one. */
  async archiveSession(key: string, archived: boolean): Promise<boolean> {
    const r = await this.call(this.bridge.sessionsPatch({ key, archived }), archived ? 'Could not archive' : 'Could not unarchive')
    if (!r) return false
    this.upsertRow(r.entry)
    const s = this.stores.sessions.getState()
    if (archived && s.selectedKey === key && !s.showArchived) {
      const next = firstListed(s.rows)
      if (next) await this.selectSession(next)
    }
    return true
  }

  setShowArchived(showArchived: boolean) {
    this.stores.sessions.setState({ showArchived })
  }

  async resetSession(key: string): Promise<boolean> {
    const r = await this.call(this.bridge.sessionsReset({ key }), 'Could not reset')
    if (!r) return false
    this.upsertRow(r.entry)
    if (this.stores.runs.getState().transcripts[key]) {
      this.stores.runs.setState((s) => ({ transcripts: { ...s.transcripts, [key]: emptyTranscript(key) } }))
      await this.loadTranscript(key)
    }
    return true
  }

  /**
   * Summarizes the session's older messages now (sessions.compact; the runtime waits for a running turn).
   * Says what it did either way: a summary that would not be smaller, or a short session, is not applied.
   */
  /** The settings' "Check" of a model server: its model list or why not (a call failure reads as a failed check). */
  async probeModels(params: ParamsOf<'loopdesk.models.probe'>): Promise<Results['loopdesk.models.probe']> {
    try {
      const r = await this.bridge.modelsProbe(params)
      if (r.ok) return r.data
      return { ok: false, url: params.baseUrl ?? '', error: errorText(r.error), ms: 0 }
    } catch (err) {
      return { ok: false, url: params.baseUrl ?? '', error: errorText(err), ms: 0 }
    }
  }

  async compactSession(key: string): Promise<boolean> {
    const row = this.stores.sessions.getState().rows.find((r) => r.key === key)
    const name = row ? `“${sessionTitle(row)}”` : 'the session'
    // a summary is a model call: seconds, so say it started (the outcome replaces this note)
    const busy = this.toast(`Compacting ${name}…`, 'info')
    const r = await this.call(this.bridge.sessionsCompact({ key }), 'Could not compact')
    this.dismissToast(busy)
    if (!r) return false
    if (!r.compacted) {
      this.toast(`Nothing to compact in ${name}${r.reason ? `: ${r.reason}` : ''}`, 'info')
      return false
    }
    const counts = r.tokensBefore !== undefined && r.tokensAfter !== undefined ? ` (${formatInt(r.tokensBefore)} → ${formatInt(r.tokensAfter)} tokens)` : ''
    this.toast(`Compacted ${name}${counts}`, 'info')
    if (this.stores.runs.getState().transcripts[key]) await this.loadTranscript(key)
    return true
  }

  /**
   * The whole conversation as Markdown (shared/conversation-markdown.ts, as `loopdesk sessions export`);
   * undefined (and a toast) on failure.
   */
  async exportMarkdown(key: string): Promise<{ filename: string; markdown: string } | undefined> {
    const row = this.stores.sessions.getState().rows.find((r) => r.key === key)
    const title = row ? sessionTitle(row) : key
    // a chunk of its own: only an export needs it (what first paint loads stays under 500 kB)
    const { conversationMarkdown, wholeConversation } = await import('../../../shared/conversation-markdown')
    let failed = false
    const pages = await wholeConversation(async (p) => (await this.call(this.bridge.history({ sessionKey: key, ...p }), 'Could not export')) ?? ((failed = true), undefined))
    if (!pages) {
      // a failed page said why; else the session kept being reset while it was read
      if (!failed) this.toast(`Could not export “${title}”: it was reset while being read. Try again.`)
      return undefined
    }
    const messages = pages.flatMap((p) => p.messages) as MarkdownMessage[]
    const markdown = conversationMarkdown(messages, { title, sessionKey: key, now: Date.now() })
    this.toast(`Exported “${title}” (${formatInt(messages.length)} messages)`, 'info')
    return { filename: `${title.replace(/[\\/:*?"<>|\x00-\x1f]+/g, ' ').trim().slice(0, 80) || 'conversation'}.md`, markdown }
  }

  async deleteSession(key: string): Promise<boolean> {
    const r = await this.call(this.bridge.sessionsDelete({ key, deleteTranscript: true }), 'Could not delete')
    if (!r) return false
    this.onSessionChanged({ sessionKey: key, reason: 'delete', ts: Date.now() })
    return true
  }

  /**
   * Filters the list by title at once, then (debounced) through the runtime: by key, label and preview
   * (sessions.list) and by the messages themselves (loopdesk.sessions.search, with a snippet of the match).
   */
  setSearch(search: string) {
    this.stores.sessions.setState({ search })
    clearTimeout(this.searchTimer)
    const q = search.trim()
    if (!q) {
      this.stores.sessions.setState({ contentMatches: undefined, contentSnippets: undefined, contentHits: undefined })
      return
    }
    const seq = ++this.searchSeq
    this.searchTimer = setTimeout(async () => {
      const [listed, found] = await Promise.all([
        this.bridge.sessionsList({ search: q, limit: 1000, includeGlobal: true, includeUnknown: true, archived: 'all' }).catch(() => undefined),
        this.bridge.sessionsSearch({ query: q.slice(0, 200), limit: 200 }).catch(() => undefined),
      ])
      if (seq !== this.searchSeq) return // a newer query won
      const keys = new Set(listed?.ok ? listed.data.sessions.map((s) => s.key) : [])
      const snippets: Record<string, string> = {}
      const hits: Record<string, string> = {}
      for (const m of found?.ok ? found.data.matches : []) {
        keys.add(m.key)
        snippets[m.key] = m.snippet
        if (m.messageId) hits[m.key] = m.messageId
      }
      if (listed?.ok || found?.ok) this.stores.sessions.setState({ contentMatches: [...keys], contentSnippets: snippets, contentHits: hits })
    }, 200)
  }

  // ------------------------------------------------------------------------------ composer

  private transcript(): Transcript | undefined {
    const key = this.stores.sessions.getState().selectedKey
    return key ? this.stores.runs.getState().transcripts[key] : undefined
  }

  setDraft(sessionKey: string, text: string) {
    this.stores.composer.setState((s) => ({ drafts: withDraft(s.drafts, sessionKey, text) }))
  }

  /** Adds picked, pasted or dropped files to a session's pending attachments (those within the limits). */
  async addAttachments(sessionKey: string, files: File[]): Promise<void> {
    if (!files.length) return
    const current = this.stores.composer.getState().attachments[sessionKey] ?? []
    const { added, errors } = await admitFiles(current, files, newId)
    if (this.disposed) return releasePreviews(added)
    this.stores.composer.setState((s) => ({
      attachments: added.length ? { ...s.attachments, [sessionKey]: [...(s.attachments[sessionKey] ?? []), ...added] } : s.attachments,
      attachErrors: { ...s.attachErrors, [sessionKey]: errors.length ? errors : undefined },
    }))
  }

  removeAttachment(sessionKey: string, id: string) {
    const list = this.stores.composer.getState().attachments[sessionKey] ?? []
    this.dropAttachments(sessionKey, list.filter((a) => a.id === id))
    this.dismissAttachErrors(sessionKey)
  }

  dismissAttachErrors(sessionKey: string) {
    this.stores.composer.setState((s) => ({ attachErrors: { ...s.attachErrors, [sessionKey]: undefined } }))
  }

  /** Removes these attachments from the session's pending ones and frees their thumbnails. */
  private dropAttachments(sessionKey: string, gone: PendingAttachment[]) {
    if (!gone.length) return
    releasePreviews(gone)
    const ids = new Set(gone.map((a) => a.id))
    this.stores.composer.setState((s) => {
      const left = (s.attachments[sessionKey] ?? []).filter((a) => !ids.has(a.id))
      const attachments = { ...s.attachments }
      if (left.length) attachments[sessionKey] = left
      else delete attachments[sessionKey]
      return { attachments }
    })
  }

  /**
   * Sends a message, with the given pending attachments (read as base64 only now). While a run is active it
   * must be steered into it or queued as a follow-up — both carry attachments (a steered image reaches the
   * model as its saved path); otherwise it starts a run and shows up at once (optimistic, then keyed to the
   * server runId). Sent attachments leave the composer; on a failure they (and the text) stay there.
   */
  async send(text: string, mode?: 'steer' | 'followup', attachments: PendingAttachment[] = []): Promise<boolean> {
    const sessionKey = this.stores.sessions.getState().selectedKey
    const message = text.trim()
    // only invisible characters is as empty (the composer disables Send; the runtime would refuse it)
    if (!sessionKey || (isBlankMessage(message) && !attachments.length)) return false
    // the composer says so and disables Send; the gateway would refuse it anyway
    if (messageOverLimit(message)) return false
    let wire: WireAttachment[] | undefined
    if (attachments.length) {
      if (this.stores.composer.getState().encoding[sessionKey]) return false // already being sent
      this.setEncoding(sessionKey, true)
      try {
        wire = await encodeAttachments(attachments)
      } catch (err) {
        this.stores.composer.setState((s) => ({ attachErrors: { ...s.attachErrors, [sessionKey]: [errorText(err)] } }))
        this.setEncoding(sessionKey, false)
        return false
      }
    }
    // what the conversation and the queue show until the runtime's copy (with the saved paths) replaces it
    const shown = withAttachmentLines(message, echoLines(attachments))
    return this.sendEncoded(sessionKey, text, message, shown, mode, attachments, wire)
  }

  /**
   * Sends the failed last turn's message again as a new message (new idempotency key): the same text, and the
   * same attachments when this window sent it (their bytes are kept for the session's last message only);
   * otherwise the text the runtime stored (attachments named by their saved paths). Like "Regenerate".
   */
  /** a sendInFork is under way (a second click must not fork twice) */
  private forking = false

  async retry(sessionKey: string, runId: string, stopped?: boolean): Promise<boolean> {
    const t = this.stores.runs.getState().transcripts[sessionKey]
    if (!t || retryableRun(t, stopped) !== runId || this.stores.composer.getState().sending) return false
    if (this.stores.sessions.getState().selectedKey !== sessionKey) return false
    const kept = this.lastSent.get(sessionKey)
    const same = kept && kept.runIds.includes(runId) ? kept : undefined
    const user = t.items.find((it): it is UserItem => it.kind === 'user' && it.runId === runId)
    const message = same?.message ?? user?.text.trim() ?? ''
    if (!message && !same?.wire?.length) return false
    const sent = await this.sendEncoded(sessionKey, message, message, same?.shown ?? message, undefined, [], same?.wire, 'retry')
    if (sent) this.retryWanted.delete(sessionKey)
    return sent
  }

  /**
   * Regenerate and Edit: a new session with the conversation before that user message (sessions.fork — the
   * original stays as it is), which opens, and the message sent there: `text` (an edit) or, for Regenerate, the
   * message as it was — with its attachments when this window sent it (`runId`: the run it started), else the
   * text the runtime stored.
   */
  async sendInFork(sessionKey: string, entryId: string, edit: { text: string } | { runId: string }): Promise<boolean> {
    if (this.stores.composer.getState().sending || this.forking) return false
    const edited = 'text' in edit ? edit.text.trim() : undefined
    if (edited !== undefined && (isBlankMessage(edited) || messageOverLimit(edited))) return false
    this.forking = true
    try {
      const r = await this.call(this.bridge.sessionsFork({ sessionKey, entryId }), 'Could not start a new branch')
      if (!r) return false
      const kept = 'runId' in edit ? this.lastSent.get(sessionKey) : undefined
      const same = kept && 'runId' in edit && kept.runIds.includes(edit.runId) ? kept : undefined
      const message = edited ?? same?.message ?? r.editorText?.trim() ?? ''
      await this.loadSessions()
      await this.selectSession(r.sessionKey)
      if (!message && !same?.wire?.length) return false
      const sent = await this.sendEncoded(r.sessionKey, message, message, same?.shown ?? message, undefined, [], same?.wire, 'retry')
      // refused (a toast says why): the new session is open and empty — its composer gets the text to send again
      if (!sent && message) this.restoreDraft(r.sessionKey, message)
      return sent
    } finally {
      this.forking = false
    }
  }

  /**
   * Retry on a "Not sent" message (one the runtime did not take, without attachments): its row goes and the
   * text is sent again as a new message. The draft is cleared only when it still holds that same text.
   */
  async resend(sessionKey: string, item: UserItem): Promise<boolean> {
    if (!item.failed?.retryable || item.files || this.stores.composer.getState().sending) return false
    if (this.stores.sessions.getState().selectedKey !== sessionKey) return false
    const message = item.text.trim()
    if (!message || messageOverLimit(message)) return false
    this.dispatch(sessionKey, [{ type: 'local.sendWithdrawn', id: item.failed.id }])
    return this.sendEncoded(sessionKey, item.text, message, message, undefined, [], undefined, 'resend')
  }

  private async sendEncoded(
    sessionKey: string,
    text: string,
    message: string,
    shown: string,
    mode: 'steer' | 'followup' | undefined,
    attachments: PendingAttachment[],
    wire: WireAttachment[] | undefined,
    origin: 'composer' | 'retry' | 'resend' = 'composer',
  ): Promise<boolean> {
    const retry = origin === 'retry'
    const files = !!wire?.length
    const t = this.stores.runs.getState().transcripts[sessionKey]
    const running = !!(t && activeRun(t))
    const id = newId()
    // a retry leaves the composer (its draft, its input history) alone; a resend takes the draft only when
    // it is the same text (put back by the failure), never what the user typed since
    if (retry) this.stores.composer.setState({ sending: true })
    else
      this.stores.composer.setState((s) => ({
        sending: true,
        history: message ? pushInputHistory(s.history, message) : s.history,
        drafts: origin === 'composer' || s.drafts[sessionKey]?.trim() === message ? withDraft(s.drafts, sessionKey, '') : s.drafts,
        attachErrors: origin === 'composer' ? { ...s.attachErrors, [sessionKey]: undefined } : s.attachErrors,
      }))
    // the same text sent again from the composer replaces its "Not sent" row: one message, one outcome
    if (!retry && t) {
      const stale = t.items.filter((it): it is UserItem => it.kind === 'user' && !!it.failed && !it.files && it.text === shown)
      if (stale.length) this.dispatch(sessionKey, stale.map((it) => ({ type: 'local.sendWithdrawn' as const, id: it.failed!.id })))
    }
    const params = { sessionKey, message, idempotencyKey: id, ...(wire ? { attachments: wire } : {}) }
    this.nameFromFirstMessage(sessionKey, message, shown)
    let sent = false
    try {
      if (running || mode) {
        const r = await this.bridge.send({ ...params, queueMode: mode ?? 'followup' })
        if (!r.ok) {
          this.toast(`Could not ${mode === 'steer' ? 'steer' : 'queue'} the message: ${describeSendError(r.error).text}`)
          if (!retry) this.restoreDraft(sessionKey, text)
          return false
        }
        sent = true
        const d = r.data
        if (d.status === 'steered' && d.runId) {
          this.runSessions.set(d.runId, sessionKey)
          this.dispatch(sessionKey, [{ type: 'local.steered', runId: d.runId, text: shown, ts: Date.now() }])
        } else if (d.status === 'queued') {
          this.onQueue(sessionKey, [
            ...(this.stores.composer.getState().queues[sessionKey] ?? []).filter((q) => q.id !== d.queueItemId),
            { id: d.queueItemId, sessionKey, mode: mode ?? 'followup', text: shown, enqueuedAt: Date.now(), status: 'queued' },
          ])
        } else {
          // The run ended meanwhile and the message started a new one.
          this.dispatch(sessionKey, [
            { type: 'local.send', id, text: shown, ts: Date.now(), files },
            { type: 'local.sendResult', id, text: shown, result: d, ts: Date.now() },
          ])
          this.afterModelCommand(sessionKey, message, d)
        }
        return true
      }
      this.runSessions.set(id, sessionKey)
      this.acceptedAt[id] = Date.now()
      this.dispatch(sessionKey, [{ type: 'local.send', id, text: shown, ts: Date.now(), files }])
      const r = await this.bridge.send(params)
      if (!r.ok) {
        this.sendFailed(sessionKey, id, text, describeSendError(r.error), retry)
        return false
      }
      sent = true
      if (r.data.runId) {
        this.runSessions.set(r.data.runId, sessionKey)
        this.acceptedAt[r.data.runId] = this.acceptedAt[id]
      }
      this.dispatch(sessionKey, [{ type: 'local.sendResult', id, text: shown, result: r.data, ts: Date.now() }])
      this.afterModelCommand(sessionKey, message, r.data)
      // what a Retry of this turn sends again (attachment bytes included): the session's last message only
      this.lastSent.delete(sessionKey)
      this.lastSent.set(sessionKey, { runIds: [id, ...(r.data.runId ? [r.data.runId] : [])], message, shown, wire })
      // bounded: only the most recently used sessions keep theirs
      if (this.lastSent.size > MAX_RETRY_KEPT) this.lastSent.delete(this.lastSent.keys().next().value!)
      return true
    } catch (err) {
      if (running || mode) {
        this.toast(`Could not ${mode === 'steer' ? 'steer' : 'queue'} the message: ${describeSendError(err).text}`)
        if (!retry) this.restoreDraft(sessionKey, text)
      } else {
        this.sendFailed(sessionKey, id, text, describeSendError(err), retry)
      }
      return false
    } finally {
      if (sent) this.dropAttachments(sessionKey, attachments)
      if (attachments.length) this.setEncoding(sessionKey, false)
      this.stores.composer.setState({ sending: false })
    }
  }

  /**
   * A send the runtime did not take: "Not sent" on the message and its text back in the composer (unless
   * something new was typed meanwhile: then ↑ recalls it), or for a Retry a toast (the turn keeps its Retry).
   */
  private sendFailed(sessionKey: string, id: string, text: string, refusal: SendRefusal, retry: boolean) {
    if (!retry) {
      const restored = this.restoreDraft(sessionKey, text)
      return this.dispatch(sessionKey, [{ type: 'local.sendFailed', id, error: refusal.text, retryable: refusal.retryable, restored }])
    }
    this.dispatch(sessionKey, [{ type: 'local.sendWithdrawn', id }])
    this.toast(`Could not retry: ${refusal.text}`)
  }

  private setEncoding(sessionKey: string, on: boolean) {
    this.stores.composer.setState((s) => ({ encoding: { ...s.encoding, [sessionKey]: on || undefined } }))
  }

  /** A failed send: its text goes back to the composer (next to its attachments, if any) unless a new one was typed. */
  private restoreDraft(sessionKey: string, text: string): boolean {
    const now = this.stores.composer.getState().drafts[sessionKey]
    if (now?.trim() && now !== text) return false
    this.setDraft(sessionKey, text)
    return true
  }

  /**
   * Stops the active run of the selected session ("Stopping…" until its terminal event). Messages queued
   * behind it are held first, so they do not start when it ends: they stay listed to send or remove.
   */
  /** Stop and retry gave up waiting for `runId` to end (stop-and-retry.ts): its footer keeps a way to retry. */
  stopRetryTimedOut(sessionKey: string, runId: string): void {
    this.retryWanted.set(sessionKey, runId)
    this.dispatch(sessionKey, [{ type: 'local.stopRetryTimedOut', runId }])
  }

  async stop(): Promise<void> {
    const sessionKey = this.stores.sessions.getState().selectedKey
    const t = this.transcript()
    const run = t && activeRun(t)
    if (!sessionKey || !run || run.stopping) return
    const runId = run.runId
    this.dispatch(sessionKey, [{ type: 'local.stopping', runId }])
    const queued = (this.stores.composer.getState().queues[sessionKey] ?? []).some((q) => q.status === 'queued')
    // a runtime without queue holds still stops the run (its queue then runs as before)
    const held = queued ? await this.bridge.queueHold({ sessionKey }).catch(() => undefined) : undefined
    const r = await this.call(this.bridge.abort({ sessionKey, runId }), 'Could not stop the run')
    if (!r) {
      // Not "Stopping…" forever: the request never reached the runtime, Stop can be pressed again.
      this.dispatch(sessionKey, [{ type: 'local.stopFailed', runId }])
      // the run goes on: what waits behind it runs after it, as before
      if (held?.ok && held.data.ids.length) void this.bridge.queueRelease({ sessionKey, ids: held.data.ids }).catch(() => undefined)
      return
    }
    // If the terminal event never arrives (lost, or the run was already gone), reconcile.
    clearTimeout(this.stopTimers.get(runId))
    this.stopTimers.set(
      runId,
      setTimeout(async () => {
        this.stopTimers.delete(runId)
        const cur = this.stores.runs.getState().transcripts[sessionKey]
        if (!cur || activeRun(cur)?.runId !== runId) return
        await this.loadTranscript(sessionKey)
        const after = this.stores.runs.getState().transcripts[sessionKey]
        if (after && activeRun(after)?.runId === runId) this.dispatch(sessionKey, [{ type: 'local.stopSettle', runId, ts: Date.now() }])
      }, r.aborted ? STOP_SETTLE_MS : 1000),
    )
  }

  /** Sends a held message (queued behind a run that was stopped): it runs now, or after the active run. */
  async releaseQueued(sessionKey: string, id: string): Promise<void> {
    const r = await this.call(this.bridge.queueRelease({ sessionKey, ids: [id] }), 'Could not send the queued message')
    if (r && !r.ids.includes(id)) await this.loadQueue(sessionKey)
  }

  /**
   * Moves a waiting message one place up (-1) or down (+1) among the waiting ones: the runtime starts the
   * next follow-up (and builds a collect batch) in this order. queue.changed brings the new order.
   */
  async moveQueued(sessionKey: string, id: string, by: -1 | 1): Promise<void> {
    const ids = (this.stores.composer.getState().queues[sessionKey] ?? []).filter((q) => q.status === 'queued').map((q) => q.id)
    const from = ids.indexOf(id)
    const to = from + by
    if (from < 0 || to < 0 || to >= ids.length) return
    ;[ids[from], ids[to]] = [ids[to], ids[from]]
    const r = await this.call(this.bridge.queueReorder({ sessionKey, ids }), 'Could not move the queued message')
    // the queue changed meanwhile (a message started or was removed): show what the runtime has
    if (r && r.ids.join('\n') !== ids.filter((x) => r.ids.includes(x)).join('\n')) await this.loadQueue(sessionKey)
  }

  async removeQueued(sessionKey: string, id: string): Promise<void> {
    const r = await this.call(this.bridge.queueRemove({ sessionKey, id }), 'Could not remove the queued message')
    if (r?.removed) {
      this.stores.composer.setState((s) => ({
        queues: {
          ...s.queues,
          [sessionKey]: (s.queues[sessionKey] ?? []).map((q) => (q.id === id ? { ...q, status: 'removed' as const, seenAt: Date.now() } : q)),
        },
      }))
    } else if (r) await this.loadQueue(sessionKey)
  }

  /**
   * Answers one approval. A failure is a toast, or with `quiet` only returned, for the approval it is about
   * (Allow all sends one call each: ApprovalBatch.tsx says which failed).
   */
  async resolveApproval(sessionKey: string, id: string, decision: ApprovalDecision, quiet?: boolean): Promise<string | undefined> {
    const e = await this.bridge.approvalResolve({ id, decision }).then((r) => (r.ok ? '' : errorText(r.error)), errorText)
    if (e) {
      if (!quiet) this.toast(`Could not answer the approval: ${e}`)
      return e
    }
    this.setApprovalPending(sessionKey, id, undefined)
    this.dispatch(sessionKey, [{ type: 'local.approvalDecided', id, decision }])
  }

  // ------------------------------------------------------------------------------ inspector & settings

  setInspectorOpen(open: boolean) {
    this.stores.inspector.setState((s) => ({ open, version: s.version + 1 }))
    void this.bridge.prefsSet({ inspectorOpen: open }).catch(() => undefined)
  }

  acceptedTimes(): Record<string, number> {
    return this.acceptedAt
  }

  /** `provider`: Settings scrolls to that provider and focuses it (e.g. the one a run failed with). */
  openSettings(section?: string, provider?: string) {
    this.stores.settings.setState({ settingsOpen: true, settingsSection: section, settingsProvider: provider })
  }

  /** Settings took the provider it was opened at into view: a later opening starts plain again. */
  clearSettingsProvider() {
    this.stores.settings.setState({ settingsProvider: undefined })
  }

  /** A short confirmation (a saved endpoint, a removed one). */
  notify(text: string) {
    this.toast(text, 'info')
  }

  closeSettings() {
    this.stores.settings.setState({ settingsOpen: false })
  }

  /**
   * Applies a config merge patch; secrets in it are write-only (the result reports set/not set).
   * A save the gateway refuses for now (config writes are rate limited: UNAVAILABLE + retryable +
   * retryAfterMs) is sent again once that time has passed — the form keeps what the user typed while
   * the promise is pending, and the Settings dialog says when the retry happens (`saveRetry`).
   */
  async patchConfig(patch: Record<string, unknown>, what = 'Could not save settings', replacePaths?: string[]): Promise<boolean> {
    return (await this.configWrites(what))?.patch(patch, what, replacePaths) ?? false
  }

  /**
   * Renames a provider of one's own (`loopdesk.config.renameProvider`): its entry, its stored key (moved by
   * the runtime, never through this window) and the model refs naming it move in one write, with `patch` —
   * the form's edits of the entry under its new name. Saved and refused like patchConfig.
   */
  async renameProvider(from: string, to: string, patch: Record<string, unknown>, what: string, replacePaths?: string[]): Promise<boolean> {
    return (await this.configWrites(what))?.renameProvider(from, to, patch, what, replacePaths) ?? false
  }

  /** Drops the saves waiting to be retried (the forms keep their values; the user may save again). */
  cancelSaveRetries() {
    this.writes?.cancelRetries()
  }

  /** First usable model: when no default model is set yet, use one of this provider's. */
  async ensureDefaultModel(provider: string): Promise<void> {
    await (await this.configWrites('Could not choose a default model'))?.ensureDefaultModel(provider)
  }

  /**
   * config writes (Settings, its forms) are a chunk of their own, loaded by the first one: first paint does not need
   * them. One that cannot load is a failed save (a toast, undefined), not a rejection the forms' busy state never ends.
   */
  private writes?: ConfigWrites
  private writesLoading?: Promise<ConfigWrites>
  private async configWrites(what: string): Promise<ConfigWrites | undefined> {
    this.writesLoading ??= import('./config-writes').then(
      ({ ConfigWrites }) => (this.writes = new ConfigWrites(this.bridge, this.stores.settings, (text) => this.toast(text), () => this.loadSettings())),
    )
    try {
      return await this.writesLoading
    } catch (err) {
      this.writesLoading = undefined // asked for again by the next save
      this.toast(`${what}: ${errorText(err)} (reload the window if this goes on)`)
      return undefined
    }
  }

  async setPrefs(p: Partial<Prefs>): Promise<void> {
    this.stores.settings.setState((s) => ({ prefs: { ...s.prefs, ...p } }))
    const r = await this.call(this.bridge.prefsSet(p), 'Could not save preferences')
    if (r) this.stores.settings.setState({ prefs: r })
  }

  setRevealedToken(token: string | undefined) {
    this.stores.settings.setState({ revealedToken: token })
  }

  /** Opens (or closes) a tool card, a tool group or an Inspector row on the user's behalf: theirs from now on. */
  setExpanded(key: string, open: boolean) {
    this.keepOpened(key)
    if (!!this.stores.ui.getState().expanded[key] === open) return
    this.stores.ui.setState((s) => ({ expanded: { ...s.expanded, [key]: open } }))
  }

  toggleExpanded(key: string) {
    this.keepOpened(key)
    this.stores.ui.setState((s) => ({ expanded: { ...s.expanded, [key]: !s.expanded[key] } }))
  }

  /**
   * Opens a card or group holding the match landed on. For the find bar's match (a persistent focus) a card
   * that was closed is recorded as find's, to fold back once find moves on; a search hit's stays open.
   */
  openForMatch(key: string) {
    const ui = this.stores.ui.getState()
    if (ui.expanded[key]) return
    const byFind = !!this.stores.runs.getState().focus?.persist
    this.stores.ui.setState((s) => ({
      expanded: { ...s.expanded, [key]: true },
      ...(byFind ? { findOpened: { ...s.findOpened, [key]: true as const } } : {}),
    }))
  }

  /** The user interacted with a card or group find opened: it stays open when find moves on. */
  keepOpened(...keys: (string | undefined)[]) {
    const opened = this.stores.ui.getState().findOpened
    if (!opened || !keys.some((k) => k && opened[k])) return
    const rest = { ...opened }
    for (const k of keys) if (k) delete rest[k]
    this.stores.ui.setState({ findOpened: rest })
  }

  /** Find moved on (or closed): what it opened for earlier matches folds back, `keep` (the current one's) excepted. */
  foldFindOpened(keep: (string | undefined)[] = []) {
    const opened = this.stores.ui.getState().findOpened
    if (!opened) return
    const fold = Object.keys(opened).filter((k) => !keep.includes(k))
    if (!fold.length) return
    this.stores.ui.setState((s) => {
      const expanded = { ...s.expanded }
      const rest = { ...s.findOpened }
      for (const k of fold) {
        delete expanded[k]
        delete rest[k]
      }
      return { expanded, findOpened: rest }
    })
  }
}

/** The session the sidebar lists first (archived ones are hidden by default). */
function firstListed(rows: SessionRow[]): string | undefined {
  return rows.filter((r) => !r.archived).sort(compareForSidebar)[0]?.key
}
