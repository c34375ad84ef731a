// The Runtime facade: wires config, sessions, lanes, the event bus, the model registry, tools and the
// embedded runner together, implements the method table (Handlers) and RuntimeHost for the transports.
// Electron-free: the desktop shell, the headless gateway, the CLI (--local) and tests all use this.
import type { AnyEvent, SessionsChangedEvent } from '../../shared/events'
import type { AgentFinal, SessionRow } from '../../shared/methods'
import { ApiError } from '../api/errors'
import { Accepting } from './accepting'
import type { Handlers } from '../api/dispatch'
import type { RuntimeHost, SessionMessageEvent } from '../api/host'
import { ConfigManager, FileCredentialStore } from './config'
import { ensurePrivateStateDir } from './private-state-dir'
import type { CredentialStore, ResolvedConfig } from './contracts'
import { EventBus, RunRegistry } from './events'
import type { ConfigSource, PrefsProvider, RuntimeCore, TrackedRun } from './handlers-context'
import { historyHandlers } from './handlers-history'
import { runHandlers } from './handlers-runs'
import { rowOf, sessionHandlers } from './handlers-sessions'
import { sessionSendHandlers } from './handlers-session-send'
import { configHandlers } from './handlers-config'
import { filePrefs, systemHandlers } from './handlers-system'
import { probeHandlers } from './handlers-probe'
import { searchHandlers } from './handlers-search'
import { applyLaneConcurrency, CommandQueue } from './lanes'
import { createModelRegistry, type ModelRegistry } from './models'
import { buildPayloads, formatToolSummary } from './reply'
import { sessionMessageOf } from './runner/chat-history'
import { ChatProjection } from './runner/chat-projection'
import { EmbeddedRunner, type RunOutcome, type RunRequest } from './runner/embedded-runner'
import { FollowupQueue } from './runner/followup-queue'
import type { RuntimeHooks } from './runner/hooks'
import { IdempotencyCache } from './runner/idempotency'
import { installExtensions, type Extensions, type ExtensionsOptions } from './hooks/extensions'
import { recoverInterruptedRuns, type RecoveredRun } from './runner/recovery'
import { adoptOrphanTranscripts } from './sessions/orphan-transcripts'
import { AcceptedJournal, readDeadJournals, removeJournals, type AcceptedRecord } from './runner/accepted-journal'
import { SessionStore, sessionsDir } from './sessions'
import { MediaJanitor, type MediaJanitorOptions } from './media/media-janitor'
import { appUserDataDir } from './config/app-user-data'
import { ArchivePruner, type ArchivePrunerOptions } from './sessions/archive-prune'
import { applyProxyEnv, describeProxySettings } from './net/proxy'
import { EventLog, eventLogFile } from './events/event-log'
import { parseSessionKey } from '../../shared/session-key'
import { ApprovalBroker, capToolResultForPersist, createTools, sanitizeToolResultForEvent, toolMeta } from './tools'
import { agentFinalOf } from './runner/agent-final'

export const LOOPDESK_VERSION = '0.1.0'
/** finished runs' finals are kept this long for agentFinal() (same as agent.wait's cache) */
const FINAL_TTL_MS = 10 * 60_000

export interface RuntimeOptions {
  stateDir: string
  /**
   * the desktop app's Electron userData folder (its settings, the keys it stores): file tools keep out of it.
   * Default (headless): where the app keeps it on this machine (config/app-user-data.ts).
   */
  userDataDir?: string
  env?: NodeJS.ProcessEnv
  /** provider API keys; default: `<stateDir>/credentials.json` (0600) */
  credentials?: CredentialStore
  /** UI prefs; default: `<stateDir>/prefs.json` */
  prefs?: PrefsProvider
  /** hook points (more can be assigned to `runtime.hooks` later) */
  hooks?: RuntimeHooks
  /** pi retries per model request (429/5xx/connection), default 2 */
  modelRetries?: number
  /** cap on a server-requested retry wait, default 15 s */
  maxRetryDelayMs?: number
  /** fsync each transcript append (default false: a crash loses nothing written, power loss might) */
  transcriptFsync?: boolean
  /** fsync sessions.json on every write (default: the session store's default, true) */
  storeFsync?: boolean
  /**
   * issue 4 extensions: plugins, internal hooks, compaction, block streaming and chat queue modes
   * (default on; `false` leaves the hook table empty, as the runner's own tests need)
   */
  extensions?: boolean | ExtensionsOptions
  /** reload loopdesk.json when it changes on disk (default true) */
  watchConfig?: boolean
  /**
   * removal of inbound media nothing references (media/media-gc.ts): a pass after start-up, then every
   * intervalMs; files younger than graceMs are never touched. `false` switches it off (default on).
   */
  mediaGc?: false | Pick<MediaJanitorOptions, 'graceMs' | 'intervalMs' | 'startDelayMs'>
  /**
   * removal of archived transcripts past `session.archiveRetentionDays` (sessions/archive-prune.ts): a pass
   * after start-up, then every intervalMs. `false` switches the timer off (default on).
   */
  archivePrune?: false | Pick<ArchivePrunerOptions, 'intervalMs' | 'startDelayMs'>
  version?: string
}

export interface Runtime extends RuntimeHost {
  /** mutable hook table: assign hook functions to plug modules in (read at each use) */
  readonly hooks: RuntimeHooks
  /** runtime parts for modules that wire into it (queue modes, compaction) and for tests */
  readonly core: RuntimeCore
  /** runs found interrupted at start-up (a previous process died mid-run) */
  readonly recovered: RecoveredRun[]
  /** resolves when the run ends (queued or running); undefined for unknown runIds */
  runOutcome(runId: string): Promise<RunOutcome> | undefined
  /** the installed extensions (plugin registry, queue modes, gateway_start/stop hooks) */
  readonly extensions?: Extensions
}

class RuntimeImpl implements Runtime {
  readonly hooks: RuntimeHooks
  readonly handlers: Handlers
  readonly info: RuntimeHost['info']
  readonly core: RuntimeCore
  recovered: RecoveredRun[] = []
  extensions?: Extensions
  /** messages the user had paused when the previous process died: back into their queues once those exist */
  private paused: Array<AcceptedRecord & { agentId: string }> = []

  private readonly listeners = new Set<(ev: AnyEvent) => void>()
  private readonly messageListeners = new Set<(ev: SessionMessageEvent) => void>()
  private readonly stores = new Map<string, SessionStore>()
  private readonly journals = new Map<string, AcceptedJournal>()
  private readonly finals = new Map<string, { final: AgentFinal; expiresAt: number }>()
  private registry!: ModelRegistry
  private shuttingDown = false
  private readonly disposers: Array<() => void> = []
  private archivePruner?: ArchivePruner

  constructor(
    private readonly opts: RuntimeOptions,
    private readonly config: ConfigManager,
    private readonly credentials: CredentialStore,
  ) {
    const env = opts.env ?? process.env
    this.hooks = { ...opts.hooks }
    const startedAt = Date.now()
    const bus = new EventBus()
    let eventLogWarned = false
    const eventLog = new EventLog({
      fileFor: (sessionKey) => {
        const agentId = parseSessionKey(sessionKey)?.agentId
        const sessionId = agentId && this.stores.get(agentId)?.get(sessionKey)?.sessionId
        return sessionId ? eventLogFile(opts.stateDir, agentId, sessionId) : undefined
      },
      onError: (err) => {
        if (eventLogWarned) return
        eventLogWarned = true // once: a full disk would say it for every run
        console.warn(`[runtime] the Inspector's event log could not be written (runs are not affected): ${(err as Error).message}`)
      },
    })
    const runs = new RunRegistry()
    const queue = new CommandQueue()
    applyLaneConcurrency(queue, config.current)
    const stores = this.stores
    const store = (agentId: string) => {
      let s = stores.get(agentId)
      if (!s) stores.set(agentId, (s = new SessionStore({ stateDir: opts.stateDir, agentId, fsync: opts.storeFsync })))
      return s
    }
    const projection = new ChatProjection((payload) => this.emit({ event: 'chat', payload }))
    const approvals = new ApprovalBroker({
      timeoutMs: config.current.exec.approvalTimeoutMs,
      emit: (e) => {
        this.emit(e as AnyEvent)
        // mirror on the run's own stream so a run timeline shows its approvals in order
        const p = e.payload
        if (this.core.runner.activeRun(p.runId)) {
          bus.emit({
            runId: p.runId,
            sessionKey: p.sessionKey,
            stream: 'approval',
            data: e.event === 'exec.approval.requested' ? { phase: 'requested', ...p } : { phase: 'resolved', ...p },
          })
        }
      },
    })
    const followups = new FollowupQueue((sessionKey, items) => {
      this.emit({ event: 'queue.changed', payload: { sessionKey, items } })
      this.sessionChanged(sessionKey, 'queue')
    })
    const runner = new EmbeddedRunner({
      config: () => config.current,
      bus,
      queue,
      store,
      models: () => this.registry,
      tools: createTools,
      stateDir: opts.stateDir,
      userDataDir: opts.userDataDir,
      configPath: config.path,
      approvals,
      buildPayloads,
      sanitizeToolResult: sanitizeToolResultForEvent,
      capToolResultForPersist,
      toolMeta,
      formatToolSummary,
      hooks: this.hooks,
      sessionChanged: (key, reason, runId) => this.sessionChanged(key, reason, runId),
      setChatUsage: (runId, usage) => projection.setUsage(runId, usage),
      transcriptFsync: opts.transcriptFsync,
      eventsFile: (agentId, sessionId) => eventLogFile(opts.stateDir, agentId, sessionId),
      flushEvents: () => eventLog.flush(),
      // its record stays open past the lifecycle end: the next start's recovery writes the message
      // a collect batch's run carries the messages folded into it, each with its own record: they stay open too
      // (recovery writes each message, as it was accepted)
      messageNotKept: (run) => {
        const journal = this.journals.get(run.agentId)
        if (!journal) return
        journal.keepOpen(run.runId, run.error)
        for (const t of this.core.tracked.values()) if (t.foldedInto === run.runId) journal.keepOpen(t.runId, run.error)
      },
      messageKept: (run) => this.journals.get(run.agentId)?.kept(run.runId),
      onTranscriptMessage: (sessionKey, entry, messageSeq) => {
        if (this.messageListeners.size === 0) return
        const session = this.rowFor(sessionKey)
        const ev: SessionMessageEvent = { ...sessionMessageOf(sessionKey, entry, messageSeq), ...(session ? { session } : {}) }
        for (const l of this.messageListeners) {
          try {
            l(ev)
          } catch (err) {
            console.warn('[runtime] session message listener failed:', err)
          }
        }
      },
    })
    const tracked = new Map<string, TrackedRun>()
    const journals = this.journals
    const accepted = (agentId: string) => {
      let j = journals.get(agentId)
      if (!j) journals.set(agentId, (j = new AcceptedJournal(sessionsDir(opts.stateDir, agentId))))
      return j
    }
    this.disposers.push(
      bus.subscribe((ev) => {
        // OpenClaw order: buffered chat text is flushed before a tool starts, so the tool-start agent event
        // goes out after the projection's flush delta; every other event goes out before its chat projection.
        const toolStart = ev.stream === 'tool' && (ev.data as { phase?: string }).phase === 'start'
        if (toolStart) projection.handle(ev)
        this.emit({ event: 'agent', payload: ev })
        if (!toolStart) projection.handle(ev)
        eventLog.add(ev)
        // a run that ended (or will never run: cancelled in its lane, removed from a queue) settles its message
        const phase = ev.stream === 'lifecycle' ? (ev.data as { phase?: string }).phase : undefined
        if ((phase === 'end' || phase === 'error') && ev.sessionKey) journals.get(ev.sessionKey.split(':')[1] ?? '')?.end(ev.runId)
      }),
      runs.attach(bus),
    )

    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the core object's methods call back into the facade
    const self = this
    this.core = {
      stateDir: opts.stateDir,
      env,
      startedAt,
      version: opts.version ?? LOOPDESK_VERSION,
      config: config satisfies ConfigSource,
      credentials,
      bus,
      eventLog,
      runs,
      queue,
      runner,
      approvals,
      projection,
      followups,
      hooks: this.hooks,
      prefs: opts.prefs ?? filePrefs(opts.stateDir),
      dedupe: new IdempotencyCache<unknown>(),
      tracked,
      accepting: new Accepting(),
      accepted,
      models: () => self.registry,
      refreshModels: () => self.rebuildModels(),
      store,
      emit: (ev) => self.emit(ev),
      sessionChanged: (key, reason, runId) => self.sessionChanged(key, reason, runId),
      startRun: (req, source) => self.startRun(req, source),
      recordFinal: (final) => self.recordFinal(final),
      isShuttingDown: () => self.shuttingDown,
    }
    if (opts.mediaGc !== false) {
      this.core.media = new MediaJanitor({
        stateDir: opts.stateDir,
        ...opts.mediaGc,
        // messages accepted but not settled: their text and saved paths name the files they carry
        pendingRefs: function* () {
          for (const j of journals.values()) for (const r of j.pending()) yield* [r.text, ...(r.media ?? [])]
        },
      })
    }
    if (opts.archivePrune !== false) {
      this.archivePruner = new ArchivePruner({
        stateDir: opts.stateDir,
        ...opts.archivePrune,
        retentionDays: () => config.current.session.archiveRetentionDays,
      })
    }
    const runHs = runHandlers(this.core)
    this.handlers = {
      ...runHs,
      ...historyHandlers(this.core),
      ...sessionHandlers(this.core, runHs['chat.send']),
      ...systemHandlers(this.core),
      ...searchHandlers(this.core),
      ...probeHandlers(this.core),
      ...configHandlers(this.core),
      ...sessionSendHandlers(this.core, runHs['chat.send']),
    }
    this.info = { version: this.core.version, stateDir: opts.stateDir, configPath: config.path, startedAt }
  }

  async init(): Promise<void> {
    await this.rebuildModels()
    if (this.opts.watchConfig !== false) this.disposers.push(this.config.watch(1000))
    this.disposers.push(
      this.config.onChange(() => {
        applyLaneConcurrency(this.core.queue, this.config.current)
        this.rebuildModels().catch((err) => console.warn('[runtime] model registry rebuild failed:', err))
      }),
    )
    const interruptedRunIds = new Set<string>()
    for (const a of this.config.current.agents) {
      // a lost sessions.json must not hide the conversations still on disk: first their rows come back
      await adoptOrphanTranscripts(this.core.store(a.id)).catch((err) =>
        console.warn(`[runtime] could not look for unlisted transcripts of agent ${a.id}: ${(err as Error).message}`),
      )
      // messages a dead process acknowledged but never answered go back into their sessions
      const dead = readDeadJournals(sessionsDir(this.opts.stateDir, a.id))
      // a message the user paused was not left unanswered: it stays theirs to send (journaled again here, before
      // the dead file goes, and put back in its queue, held, by restorePaused)
      const unanswered: AcceptedRecord[] = []
      for (const r of dead.records) {
        if (!r.held) {
          unanswered.push(r)
          continue
        }
        try {
          this.core.accepted(a.id).accept({ ...r, held: true })
          this.paused.push({ ...r, agentId: a.id })
        } catch {
          unanswered.push(r)
        }
      }
      this.recovered.push(
        ...(await recoverInterruptedRuns(this.core.store(a.id), {
          accepted: unanswered,
          workspaceDir: a.workspace,
          eventsFile: (sessionId) => eventLogFile(this.opts.stateDir, a.id, sessionId),
        })),
      )
      removeJournals(dead)
      for (const r of unanswered) interruptedRunIds.add(r.runId)
    }
    for (const r of this.recovered) {
      if (r.runId) interruptedRunIds.add(r.runId)
      this.sessionChanged(r.sessionKey, 'end', r.runId)
    }
    // agent.wait on a run the previous process never finished answers at once instead of waiting it out
    const endedAt = Date.now()
    for (const runId of interruptedRunIds) {
      this.core.runs.finish(runId, { status: 'error', endedAt, error: 'interrupted: Loopdesk stopped before this run finished' })
    }
    // after recovery: messages a dead process left in its journal are in their transcripts by now
    this.core.media?.start()
    this.archivePruner?.start()
  }

  /**
   * After the extensions are in: paused messages of the previous process go back into their queues, held (the
   * window shows them "Paused · Not sent" again; their sessions stay idle). Without queue modes nothing can hold
   * them: they are restored as unanswered messages, as recovery does for the rest.
   */
  async restorePaused(): Promise<void> {
    const paused = this.paused
    this.paused = []
    const q = this.core.queueModes
    const leftover = new Map<string, AcceptedRecord[]>()
    for (const r of paused) {
      if (q?.restoreHeld) {
        q.restoreHeld({ ...r.run, sessionKey: r.sessionKey, agentId: r.agentId, message: r.text, runId: r.runId, enqueuedAt: r.at })
        continue
      }
      const list = leftover.get(r.agentId) ?? []
      list.push(r)
      leftover.set(r.agentId, list)
    }
    for (const [agentId, records] of leftover) {
      const out = await recoverInterruptedRuns(this.core.store(agentId), { accepted: records })
      this.recovered.push(...out)
      for (const r of records) {
        this.core.accepted(agentId).end(r.runId)
        this.core.runs.finish(r.runId, { status: 'error', endedAt: Date.now(), error: 'interrupted: Loopdesk stopped before this run finished' })
      }
      for (const r of out) this.sessionChanged(r.sessionKey, 'end', r.runId)
    }
  }

  private async rebuildModels(): Promise<void> {
    this.registry = await createModelRegistry(this.config.current, this.credentials, this.core.env, {
      maxRetries: this.opts.modelRetries,
      maxRetryDelayMs: this.opts.maxRetryDelayMs,
    })
  }

  onSessionMessage(listener: (event: SessionMessageEvent) => void): () => void {
    this.messageListeners.add(listener)
    return () => this.messageListeners.delete(listener)
  }

  subscribe(listener: (event: AnyEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  currentConfig(): ResolvedConfig {
    return this.config.current
  }

  onConfigChange(listener: (config: ResolvedConfig) => void): () => void {
    return this.config.onChange((config) => listener(config))
  }

  private readonly shutdownListeners = new Set<() => void>()

  onShutdownStart(listener: () => void): () => void {
    // begun already (a gateway started during the drain): told at once
    if (this.shuttingDown) queueMicrotask(listener)
    this.shutdownListeners.add(listener)
    return () => this.shutdownListeners.delete(listener)
  }

  onIdempotencyKey(listener: (key: string) => void): () => void {
    // the cache's keys are `agent:<key>` / `chat:<key>`
    return this.core.dedupe.onSet((k) => listener(k.slice(k.indexOf(':') + 1)))
  }

  idempotencyKeysTaken(): { live: string[]; taken: string[] } {
    const live = [...this.core.tracked.keys()]
    const taken = this.core.dedupe.keys().map((k) => k.slice(k.indexOf(':') + 1))
    return { live, taken: taken.filter((k) => !this.core.tracked.has(k)) }
  }

  archivedSessionKeys(): string[] {
    const keys: string[] = []
    for (const { id } of this.config.current.agents) {
      for (const [key, entry] of this.core.store(id).list()) if (entry.archivedAt !== undefined) keys.push(key)
    }
    return keys
  }

  private emit(ev: AnyEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev)
      } catch (err) {
        console.warn(`[runtime] event listener failed on ${ev.event}:`, err)
      }
    }
  }

  /** the session's list row as it is now (sessions.changed and session.message carry it); undefined when unknown */
  private rowFor(sessionKey: string): SessionRow | undefined {
    try {
      const agentId = sessionKey.split(':')[1]
      return agentId ? rowOf(this.core, sessionKey, agentId) : undefined
    } catch {
      return undefined
    }
  }

  private sessionChanged(sessionKey: string, reason: SessionsChangedEvent['reason'], runId?: string): void {
    const session = this.rowFor(sessionKey)
    const payload: SessionsChangedEvent = { sessionKey, reason, ts: Date.now() }
    if (runId) payload.runId = runId
    if (session) payload.session = session
    this.emit({ event: 'sessions.changed', payload })
  }

  private startRun(req: Omit<RunRequest, 'signal'>, source: 'agent' | 'chat'): TrackedRun {
    const controller = new AbortController()
    const t = { runId: req.runId, sessionKey: req.sessionKey, agentId: req.agentId, controller, source } as TrackedRun
    this.core.tracked.set(req.runId, t)
    t.request = { ...req, signal: controller.signal }
    t.done = this.core.runner.run(t.request).then(
      (outcome) => {
        this.core.tracked.delete(req.runId)
        this.settleIfIdle(req.sessionKey, req.agentId)
        this.recordFinal(agentFinalOf(req.runId, outcome))
        return outcome
      },
      (err) => {
        // the runner never rejects; this is a last-resort guard so agentFinal still settles
        this.core.tracked.delete(req.runId)
        this.settleIfIdle(req.sessionKey, req.agentId)
        const summary = err instanceof Error ? err.message : String(err)
        this.recordFinal({ runId: req.runId, status: 'error', summary })
        throw err
      },
    )
    return t
  }

  /** Nothing of the session runs or waits any more: every message accepted for it was handled. */
  private settleIfIdle(sessionKey: string, agentId: string): void {
    const journal = this.journals.get(agentId)
    if (!journal || journal.openCount() === 0) return
    for (const t of this.core.tracked.values()) if (t.sessionKey === sessionKey) return
    if (this.core.queueModes?.list(sessionKey).some((i) => i.status === 'queued')) return
    if (this.core.followups.list(sessionKey).some((i) => i.status === 'queued')) return
    journal.idle(sessionKey)
  }

  private recordFinal(final: AgentFinal): void {
    const now = Date.now()
    for (const [id, f] of this.finals) {
      if (f.expiresAt > now) break
      this.finals.delete(id)
    }
    this.finals.set(final.runId, { final, expiresAt: now + FINAL_TTL_MS })
  }

  runOutcome(runId: string): Promise<RunOutcome> | undefined {
    return this.core.tracked.get(runId)?.done
  }

  async agentFinal(runId: string): Promise<AgentFinal> {
    const t = this.core.tracked.get(runId)
    if (t) await t.done.catch(() => undefined)
    const hit = this.finals.get(runId)
    if (hit && hit.expiresAt > Date.now()) return hit.final
    throw new ApiError('NOT_FOUND', `unknown runId: ${runId}`)
  }

  async shutdown(opts: { drainMs?: number; reason?: string } = {}): Promise<void> {
    if (this.shuttingDown) return
    this.shuttingDown = true
    for (const l of [...this.shutdownListeners]) {
      try {
        l()
      } catch {
        // a listener's failure does not stop the shutdown
      }
    }
    const drainMs = opts.drainMs ?? 10_000
    const pending = () => [...this.core.tracked.values()].map((t) => t.done.catch(() => undefined))
    await Promise.race([Promise.all(pending()), new Promise((r) => setTimeout(r, drainMs))])
    for (const t of this.core.tracked.values()) t.controller.abort('shutdown')
    // aborted runs end quickly (tools are killed); don't hang forever on a tool that ignores its signal. Stopped
    // messages written in their place in a session lane are written then, before the journals close.
    await Promise.race([Promise.all(pending()).then(() => this.core.runner.laterKeeps()), new Promise((r) => setTimeout(r, 5_000))])
    // deferred (group-committed) session updates go to disk before we report being down
    await Promise.all([...this.stores.values()].map((s) => s.flush().catch(() => undefined)))
    await this.core.eventLog.close()
    await this.core.media?.stop()
    await this.archivePruner?.stop()
    // messages accepted but never run (still queued) stay in the journal: the next start restores them
    for (const j of this.journals.values()) j.close()
    this.emit({ event: 'shutdown', payload: { reason: opts.reason ?? 'shutdown' } })
    for (const d of this.disposers.splice(0)) d()
    this.core.projection.dispose()
    this.core.runs.dispose()
    this.listeners.clear()
    this.messageListeners.clear()
  }
}

/** Creates a runtime over a state dir (config, sessions, credentials), recovering interrupted runs. */
export async function createRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const env = opts.env ?? process.env
  ensurePrivateStateDir(opts.stateDir)
  const proxy = await applyProxyEnv(env)
  for (const p of proxy.problems) console.warn(`[network] ${p.message}`)
  if (proxy.settings) console.warn(`[network] ${describeProxySettings(proxy.settings)}`)
  const credentials = opts.credentials ?? new FileCredentialStore({ stateDir: opts.stateDir })
  const config = new ConfigManager({ stateDir: opts.stateDir, env, credentials })
  config.load() // an invalid file is reported in config.issues; defaults (or the last good config) apply
  // headless (no shell to say where it is): the folder the desktop app would use on this machine
  const userDataDir = opts.userDataDir ?? appUserDataDir(env)
  const rt = new RuntimeImpl({ ...opts, env, userDataDir }, config, credentials)
  await rt.init()
  if (opts.extensions !== false) {
    rt.extensions = await installExtensions(rt, typeof opts.extensions === 'object' ? opts.extensions : {})
  }
  await rt.restorePaused()
  return rt
}
