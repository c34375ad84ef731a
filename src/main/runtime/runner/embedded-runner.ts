// The embedded runner (spec §2.3): one run of pi-agent-core for one session.
//   lanes (session → global) → write lock on the transcript → rebuild the conversation → system prompt →
//   pi Agent with tools and hook points → stream events / persist messages → reply payloads + meta.
// It emits the run's lifecycle events itself (start once the lane is ours, end/error after the session
// row and transcript are up to date), so `agent.wait` / chat finals only fire when state is consistent.
import { Agent, type AgentMessage, type AgentTool } from '@earendil-works/pi-agent-core'
import {
  clampThinkingLevel,
  createInitialSystemMessage,
  type AssistantMessage,
  type Api,
  type Model,
  type SimpleStreamOptions,
  type ToolResultMessage,
} from '@earendil-works/pi-ai'
import type { AgentStream, ErrorKind, LaneWaitData, UsageTotals } from '../../../shared/events'
import type { FastMode, InputProvenance, ReplyPayload, RunMeta, RunTiming, ThinkingLevel } from '../../../shared/methods'
import type {
  ApprovalBrokerLike,
  BuildPayloads,
  ResolvedConfig,
  ResolvedModel,
  SessionEntry,
  ToolFactory,
  TranscriptEntry,
} from '../contracts'
import type { EventBus } from '../events'
import { runInLanes, GLOBAL_LANE, type CommandQueue } from '../lanes'
import { LOCAL_DUMMY_KEY, type ModelRegistry } from '../models'
import { buildRunPrompt } from '../prompt'
import { acquireWriteLock, sessionHeader, Transcript, type SessionStore } from '../sessions'
import { READ_ONLY_PROMPT, toolDeclaration, toolsForMode, unavailableToolText } from '../tools'
import { RunBridge } from './bridge'
import { isSilentRun } from './visible-text'
import { terminalReplyOf } from '../events/terminal-reply'
import { chatErrorDetail } from './error-detail'
import { isSilentReply } from '../../../shared/silent-reply'
import { contextMismatchHint } from './context-mismatch'
import { classifyError, describeModelError, describeStorageError, isStorageError } from './errors'
import { interruptedToolResult, rebuildHistory } from './history'
import { diagnoseConnection, isBareConnectionError } from './network-diagnosis'
import { callHook, type ActiveRunHandle, type RunHookContext, type RuntimeHooks } from './hooks'
import { createToolLoadout } from './tool-loadout'
import { recordingFetch, type NetworkFailure } from './network-failure'
import { sseMergeFetch, wantsSseMerge } from './sse-merge-fetch'
import { RetryWatch } from './retry-notice'
import { ModelStalledError, SilenceWatch } from './model-silence'
import { opensReply } from './reply-opened'
import { estimateSent, isOllama, truncationNotice } from './ollama-truncation'
import { modelSwitchOf, type ModelSwitch } from './model-switch'
import { TurnPacer } from './turn-pacer'
import { emptyUsage } from './usage'
import { fastForCall, serviceTierFor } from './fast-mode'
import { loadImages, type SavedAttachment } from '../attachments'
import { storageClosing } from './recovery'
import { unsentEnding, unsentTurnEntries, type UnsentTurn } from './unsent-turn'

/** APIs (besides the SSE-merged ones) whose pi implementation passes `options.fetch` to its client */
const RECORDABLE_APIS = new Set(['openai-responses', 'openai-codex-responses', 'mistral-conversations'])

export interface RunRequest {
  runId: string
  sessionKey: string
  agentId: string
  message: string
  acceptedAt: number
  thinking?: ThinkingLevel
  /** run timeout in ms; 0 = none; undefined = agents.defaults.timeoutSeconds */
  timeoutMs?: number
  extraSystemPrompt?: string
  /** OpenClaw's `lightweight`: no workspace bootstrap files in the system prompt */
  bootstrapContextMode?: 'lightweight'
  /** global lane (default `main`) */
  lane?: string
  /** "<provider>/<model>" override */
  model?: string
  /**
   * the session's chosen model (`modelOverride`; null: none) when the message was accepted: the run uses it, not
   * the row's choice when it starts, so a /model or sessions.patch {model} applies to the messages accepted after
   * it — one that waited its turn keeps the model it was sent under. Undefined: the row's choice at the start.
   */
  sessionModel?: string | null
  /** external cancellation (chat.abort, /stop, shutdown) */
  signal?: AbortSignal
  /** called when the run leaves the lanes and starts */
  onStart?: () => void
  /** saved attachments: images go to the model inline with the prompt (the text already references them) */
  attachments?: SavedAttachment[]
  /** this run's speed (chat.send fastMode) over the session's fastMode; see fast-mode.ts */
  fastMode?: FastMode
  /** with fastMode "auto": fast for model calls started within this many seconds of the run's start (default 60) */
  fastAutoOnSeconds?: number
  /** where the run's message came from (chat.send, admin): see RunInput */
  input?: RunInput
}

/**
 * What a gateway client said about a run's message besides its text. `provenance` and `intent` are recorded on
 * the run's first user message in the transcript; `receipt` is told to the model in this run's system prompt
 * (OpenClaw gives it to the agent with the message, not as message text).
 */
export interface RunInput {
  provenance?: InputProvenance
  intent?: { kind: 'session-goal-start'; version: 1; issuedAtMs: number }
  receipt?: string
}

/** How a source receipt reaches the model: its own section of the run's system prompt. */
export function receiptPrompt(receipt: string): string {
  return `## Source receipt\nThe gateway attached this receipt to the user's message in this turn (who or what sent it; not written by the user):\n${receipt}`
}

export type EndReason = 'completed' | 'error' | 'aborted' | 'timeout'

/**
 * A stopped run's stopReason (lifecycle end, chat `aborted`, the final's meta): `shutdown` when the runtime's shutdown
 * stopped it — OpenClaw's chat `aborted` carries a free `stopReason`, so a client can say the gateway went down
 * instead of "stopped" — else `aborted`.
 */
const abortStopReason = (reason: unknown): string => (reason === 'shutdown' ? 'shutdown' : 'aborted')

export interface RunOutcome {
  runId: string
  status: 'ok' | 'error'
  reason: EndReason
  summary: string
  payloads: ReplyPayload[]
  meta: RunMeta
  error?: string
  /**
   * the run ended on a failed model call and its payloads carry the error text (after any partial reply): the
   * `agent` call completes with them (agent-final.ts)
   */
  errorReply?: boolean
}

export interface RunnerDeps {
  config(): ResolvedConfig
  bus: EventBus
  queue: CommandQueue
  store(agentId: string): SessionStore
  models(): ModelRegistry
  tools?: ToolFactory
  /** handed to the tools, which keep out of it even when the workspace contains it */
  stateDir?: string
  /** the desktop app's data folder, handed to the tools like stateDir */
  userDataDir?: string
  /** the config file, handed to the tools like stateDir (LOOPDESK_CONFIG_PATH may put it elsewhere) */
  configPath?: string
  approvals: ApprovalBrokerLike
  buildPayloads: BuildPayloads
  sanitizeToolResult(result: unknown): unknown
  capToolResultForPersist<T>(msg: T): T
  toolMeta(name: string, args: unknown): string
  formatToolSummary?(name: string, meta?: string): string
  hooks: RuntimeHooks
  /** the session row changed (sessions.changed) */
  sessionChanged(sessionKey: string, reason: 'start' | 'end' | 'error', runId: string): void
  /** usage for the chat final (set before lifecycle end) */
  setChatUsage?(runId: string, usage: UsageTotals): void
  onHookError?(name: string, err: unknown): void
  /** transcript fsync per append (default false: a crash keeps every written line; power loss may not) */
  transcriptFsync?: boolean
  /** a message entry was appended to the session's transcript (messageSeq: its 1-based position) */
  onTranscriptMessage?(sessionKey: string, entry: Extract<TranscriptEntry, { type: 'message' }>, messageSeq: number): void
  /**
   * The run ends (before its lifecycle end) without its message in the transcript: writing it failed, or it
   * waits for its place in the session lane (stopped while it waited there). Its accepted-message record must
   * stay open: for the next start's recovery, unless `messageKept` follows. Also a run whose write failed with a
   * storage error after its message was written (`error`: recovery closes the run with it and its streamed reply).
   */
  messageNotKept?(run: { runId: string; agentId: string; sessionKey: string; error?: string }): void
  /** the Inspector's event log of a session: where the streamed reply of a run that ended on a storage error is */
  eventsFile?(agentId: string, sessionId: string): string
  /** writes the event log's pending lines (appended every 250 ms) before it is read */
  flushEvents?(): Promise<void>
  /** A message held open by messageNotKept was written after all (in its place in the session lane): settle it. */
  messageKept?(run: { runId: string; agentId: string; sessionKey: string }): void
}

interface LiveRun extends ActiveRunHandle {
  controller: AbortController
  endReason?: 'abort' | 'timeout' | 'shutdown' | 'storage'
}

const userMessage = (text: string, images: ImageBlock[] = []): AgentMessage =>
  ({ role: 'user', content: [{ type: 'text', text }, ...images], timestamp: Date.now() }) as AgentMessage

type ImageBlock = ReturnType<typeof loadImages>[number]
/** saved path of each inline image block this process sent (the transcript keeps the path, not the bytes) */
const imagePaths = new WeakMap<object, string>()

/**
 * The transcript form of a message: inline images become a short text reference to their saved file, so
 * the JSONL never carries megabytes of base64 that every later read would parse again.
 */
function transcriptForm(message: AgentMessage): AgentMessage {
  const m = message as { role?: string; content?: unknown }
  if (m.role !== 'user' || !Array.isArray(m.content) || !m.content.some((c) => (c as { type?: string })?.type === 'image')) return message
  const content = (m.content as Array<{ type?: string; mimeType?: string }>).map((c) =>
    c?.type === 'image' ? { type: 'text', text: `\n[image: ${imagePaths.get(c) ?? 'not kept'} (${c.mimeType ?? 'image'})]` } : c,
  )
  return { ...(message as object), content } as AgentMessage
}

/** What the user sees when the run timeout cut the run off (whatever partial reply came before it). */
const timeoutPayload = (timeoutMs: number): ReplyPayload => ({
  text: `⚠️ The run timed out after ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`} and was stopped.`,
  isError: true,
})

/** The provider key never reaches the user, the logs or the transcript, even when the provider echoes it. */
function redactSecret(text: string, secret: string | undefined): string {
  return secret && secret.length >= 8 ? text.split(secret).join('[redacted]') : text
}

function abortError(reason: unknown): Error {
  const e = new Error(typeof reason === 'string' ? reason : 'aborted')
  e.name = 'AbortError'
  return e
}

export class EmbeddedRunner {
  private readonly live = new Map<string, LiveRun>()
  private readonly bySession = new Map<string, Set<string>>()
  /** per session: runs that ended on a storage error whose turn is not closed in the transcript yet */
  private readonly unclosed = new Map<string, Array<{ req: RunRequest; sessionId: string; error: string }>>()
  /** per session: writes of stopped runs' messages waiting for their place in the session lane */
  private readonly pendingKeeps = new Map<string, Set<Promise<void>>>()
  /** heavy run steps (setup, finish) take turns with I/O, one per macrotask */
  private readonly turns = new TurnPacer()
  /**
   * the merging fetch for one model call: its response reads wait for a turn while other heavy steps are queued
   * (see sse-merge-fetch.ts), and each read is a sign of life for the call's silence watch
   */
  private watchedMergingFetch(watch: SilenceWatch): typeof fetch {
    return sseMergeFetch({
      beforeProcessing: () => {
        watch.alive()
        return this.turns.turnIfBusy()
      },
      // the model's message opened (Anthropic's message_start, OpenAI's first chunk with a choice): the reply is
      // under way, so silence past the idle timeout fails it from here on, not only after a token of text
      onEvents: (text, dialect) => {
        if (!watch.replying && opensReply(text, dialect)) watch.token()
      },
    })
  }

  constructor(private readonly deps: RunnerDeps) {}

  /** Runs live right now (started, not yet ended). */
  activeRuns(): ActiveRunHandle[] {
    return [...this.live.values()]
  }

  activeRun(runId: string): ActiveRunHandle | undefined {
    return this.live.get(runId)
  }

  activeRunsOf(sessionKey: string): ActiveRunHandle[] {
    return [...(this.bySession.get(sessionKey) ?? [])].map((id) => this.live.get(id)!).filter(Boolean)
  }

  /**
   * Queues and runs one agent run. Never rejects: failures become an `error` outcome with lifecycle
   * `error`; cancellation (signal / timeout) becomes lifecycle end `{aborted:true}`.
   */
  async run(req: RunRequest): Promise<RunOutcome> {
    const lane = req.lane ?? GLOBAL_LANE
    // which lane the run last waited in: a stop while it waits in its session's lane keeps its place there
    let waitingIn: 'session' | 'global' | undefined
    // what that kept place does, decided once the stop has been handled below
    let placeDecided!: (write: (() => Promise<void>) | undefined) => void
    const place = new Promise<(() => Promise<void>) | undefined>((resolve) => (placeDecided = resolve))
    try {
      // A free lane starts its task synchronously, i.e. inside the accepting call (`agent` / `chat.send`):
      // the run's setup (transcript, prompt, …) starts on the next macrotask instead, so the ack leaves first.
      return await runInLanes(this.deps.queue, req.sessionKey, lane, () => this.turns.turn().then(() => this.attempt(req)), {
        signal: req.signal,
        // the run waits for its session's earlier run or a global slot: say so (lifecycle start ends it), with
        // its message, which the transcript gets only at the start (a window reloaded meanwhile draws it)
        onQueued: (q) => {
          waitingIn = q.lane
          this.emit(req, 'lane', { phase: 'waiting', ...q, message: req.message } satisfies LaneWaitData)
        },
        inPlaceOfAborted: () => place.then((write) => write?.()),
      })
    } catch (err) {
      // Only lane failures reach here (aborted or cleared while queued): the run never started.
      const aborted = req.signal?.aborted === true || (err as Error)?.name === 'AbortError' || (err as Error)?.name === 'LaneClearedError'
      const endedAt = Date.now()
      const message = aborted ? 'run cancelled before it started' : `run failed to start: ${(err as Error)?.message ?? String(err)}`
      // a message taken out of its queue (removed, the lane cleared) is not kept; one stopped while it waited is,
      // like one stopped after it started
      const reason = req.signal?.aborted ? req.signal.reason : undefined
      const keep = !aborted || (reason !== undefined && reason !== 'removed')
      const ending = unsentEnding(aborted, reason, message)
      if (keep && aborted && waitingIn === 'session') {
        // it waited behind its session's earlier run, which still writes its reply: the message is written in
        // the place it kept in the lane, after that reply (never inside it); its record stays open until then
        this.messageNotKept(req)
        let written!: () => void
        this.noteLaterKeep(req.sessionKey, new Promise<void>((resolve) => (written = resolve)))
        placeDecided(async () => {
          try {
            if (await this.keepUnsentTurn(req, ending, { lockHeld: false })) this.messageKept(req)
          } finally {
            written()
          }
        })
      } else {
        placeDecided(undefined)
        if (keep) await this.keepUnsentTurn(req, ending, { lockHeld: false })
      }
      const stopReason = abortStopReason(reason)
      if (aborted) this.emit(req, 'lifecycle', { phase: 'end', endedAt, aborted: true, stopReason })
      else this.emit(req, 'lifecycle', { phase: 'error', error: message, endedAt, errorKind: 'unknown', executionSettled: true })
      this.deps.bus.clearRun(req.runId)
      return this.outcome(req, aborted ? 'aborted' : 'error', [], { acceptedAt: req.acceptedAt, endedAt }, emptyUsage(), undefined, message, '', aborted ? stopReason : undefined)
    }
  }

  /** Messages of stopped runs still waiting for their place in the session lane to be written (all sessions without a key). */
  laterKeeps(sessionKey?: string): Promise<void> {
    const waits = sessionKey === undefined ? [...this.pendingKeeps.values()].flatMap((s) => [...s]) : [...(this.pendingKeeps.get(sessionKey) ?? [])]
    return Promise.all(waits).then(() => undefined)
  }

  private noteLaterKeep(sessionKey: string, written: Promise<void>): void {
    let set = this.pendingKeeps.get(sessionKey)
    if (!set) this.pendingKeeps.set(sessionKey, (set = new Set()))
    set.add(written)
    void written.finally(() => {
      set.delete(written)
      if (set.size === 0 && this.pendingKeeps.get(sessionKey) === set) this.pendingKeeps.delete(sessionKey)
    })
  }

  private emit(req: Pick<RunRequest, 'runId' | 'sessionKey'>, stream: AgentStream, data: Record<string, unknown>): void {
    this.deps.bus.emit({ runId: req.runId, sessionKey: req.sessionKey, stream, data })
  }

  private hookError = (name: string, err: unknown) => {
    ;(this.deps.onHookError ?? ((n, e) => console.warn(`[runner] hook ${n} failed:`, e)))(name, err)
  }

  private async attempt(req: RunRequest): Promise<RunOutcome> {
    const { deps } = this
    const config = deps.config()
    const startedAt = Date.now()
    const timing: RunTiming & { modelMs?: number } = { acceptedAt: req.acceptedAt, startedAt }
    this.emit(req, 'lifecycle', { phase: 'start', startedAt })
    try {
      req.onStart?.()
    } catch {
      // bookkeeping callback: never blocks the run
    }

    const controller = new AbortController()
    const live: LiveRun = {
      runId: req.runId,
      sessionKey: req.sessionKey,
      sessionId: '',
      startedAt,
      controller,
      isStreaming: () => false,
      steer: () => {
        throw new Error('run is not streaming yet')
      },
      followUp: () => {
        throw new Error('run is not streaming yet')
      },
      abort: (reason = 'abort') => {
        if (controller.signal.aborted) return
        live.endReason ??= reason
        controller.abort(reason)
      },
      partialText: () => '',
    }
    this.track(live)
    // the runtime's shutdown aborts with reason 'shutdown': the run's end says so (stopReason), not a plain stop
    const onExternalAbort = () => live.abort(req.signal?.reason === 'shutdown' ? 'shutdown' : 'abort')
    if (req.signal?.aborted) onExternalAbort()
    else req.signal?.addEventListener('abort', onExternalAbort, { once: true })
    const timeoutMs = req.timeoutMs ?? config.defaults.timeoutSeconds * 1000
    const timer =
      timeoutMs > 0 ? setTimeout(() => live.abort('timeout'), Math.min(timeoutMs, 2 ** 31 - 1)) : undefined

    const store = deps.store(req.agentId)
    let release: (() => Promise<void>) | undefined
    let bridge: RunBridge | undefined
    let resolved: ResolvedModel | undefined
    let sessionId = ''
    let agent: Agent | undefined
    let hookCtx: RunHookContext | undefined
    // the session's compactions: those in its transcript at the start, plus each one this run writes
    let compactionCount = 0
    // Ollama's prompt count per model call, against what was sent (ollama-truncation.ts): told once per run
    let sent: { model: Model<Api>; tokens: number } | undefined
    // the current model call's silence watch (model-silence.ts), and the stall that failed a call, if one did
    let silence: SilenceWatch | undefined
    let stalled: ModelStalledError | undefined
    let truncationTold = false
    // the session's last model was gone and this run uses another (model-switch.ts): stored with its first reply
    let switched: ModelSwitch | undefined
    // pi wrote the run's message (its first user message): before that, an ending must write it (unsent-turn.ts)
    let userTurnWritten = false
    try {
      // ---- session + model
      let entry: SessionEntry | undefined = store.get(req.sessionKey)
      if (!entry) {
        // the agent command creates the entry; it can vanish if the session was deleted while queued
        entry = await store.update(req.sessionKey, (cur) => cur ?? { sessionId: crypto.randomUUID(), updatedAt: Date.now(), createdAt: Date.now() })
      }
      sessionId = entry!.sessionId
      live.sessionId = sessionId
      const agentCfg = config.agents.find((a) => a.id === req.agentId)
      const workspaceDir = agentCfg?.workspace ?? config.defaults.workspace
      const models = deps.models()
      const chosen = req.sessionModel !== undefined ? (req.sessionModel ?? undefined) : entry!.modelOverride
      resolved = models.resolve(req.model ?? chosen ?? agentCfg?.model ?? config.defaults.model)
      const authProblem = models.authProblem(resolved.provider)
      if (authProblem) throw new Error(authProblem)
      const known = (ref: string) => {
        try {
          models.resolve(ref)
          return true
        } catch {
          return false
        }
      }
      // the session's last model is gone: it moves to the default, and the run says so (model-switch.ts)
      switched = modelSwitchOf({ ...entry!, modelOverride: chosen }, resolved.ref, req.model !== undefined, (p) => models.list().some((m) => m.provider === p), known)
      if (switched) {
        console.warn(`[runner] ${req.sessionKey}: ${switched.message}`)
        this.emit(req, 'error', { reason: 'model_changed', ...switched })
      }
      // Ollama read only part of the prompt (ollama-truncation.ts): told once per run
      const truncationNote = (m: AssistantMessage) => {
        if (!sent || truncationTold) return undefined
        const u = m.usage
        const notice = u && truncationNotice(sent.model, sent.tokens, u.input + u.cacheRead + u.cacheWrite)
        if (!notice) return undefined
        truncationTold = true
        console.warn(`[runner] ${req.sessionKey}: ${notice.message}`)
        this.emit(req, 'error', { ...notice })
        return { contextTruncated: { promptTokens: notice.promptTokens, estimatedTokens: notice.estimatedTokens, message: notice.message } }
      }

      // ---- transcript (write lock held for the whole run)
      const transcript = new Transcript(store.transcriptPath(sessionId), { fsync: deps.transcriptFsync })
      release = await acquireWriteLock(transcript.file)
      this.throwIfAborted(controller.signal)
      const read = await transcript.readAll()
      await this.turns.turn() // history rebuild, prompt, agent: the next heavy step
      if (read.entries.length === 0) {
        await transcript.ensureHeader(sessionHeader(sessionId, workspaceDir, req.sessionKey))
      }
      // an earlier run of the session that ended on a storage error: its turn closes first, in its place
      const entries = await this.closeUnclosed(req, sessionId, transcript, read.entries, entry!)
      const history = rebuildHistory(entries)
      compactionCount = history.compactionCount
      // transcript entry id per message object (rebuilt history reuses the parsed message objects): the
      // messages this run writes are noted as they are written; the history's are indexed only if asked
      // (compaction), not on every run
      const entryIds = new WeakMap<object, string>()
      const persistedFrom = new WeakMap<object, object>()
      const persistedForm = (msg: ToolResultMessage): ToolResultMessage => {
        const capped = deps.capToolResultForPersist(msg)
        if (!deps.hooks.toolResultPersist) return capped
        try {
          return deps.hooks.toolResultPersist(capped, ctx) ?? capped
        } catch (err) {
          this.hookError('tool_result_persist', err)
          return capped
        }
      }
      let historyIds: WeakMap<object, string> | undefined
      const entryIdOf = (m: object): string | undefined => {
        const own = entryIds.get(m)
        if (own !== undefined) return own
        if (!historyIds) {
          historyIds = new WeakMap()
          for (const e of entries) if (e.type === 'message') historyIds.set(e.message, e.id)
        }
        return historyIds.get(m)
      }
      if (history.orphanToolCalls.length > 0) {
        // A previous run died mid-tool: close its calls so the conversation stays well-formed.
        const now = Date.now()
        const repairs: TranscriptEntry[] = history.orphanToolCalls.map((c) => ({
          type: 'message',
          id: crypto.randomUUID(),
          timestamp: now,
          runId: c.runId,
          message: interruptedToolResult(c, now),
        }))
        await transcript.appendMany(repairs)
        for (const r of repairs) if (r.type === 'message') entryIds.set(r.message, r.id)
        for (const r of repairs) history.messages.push((r as Extract<TranscriptEntry, { type: 'message' }>).message as unknown as AgentMessage)
      }
      // messages already in the transcript (repairs included): the next one written is number messageSeq + 1
      let messageSeq = entries.filter((e) => e.type === 'message').length + history.orphanToolCalls.length
      const append = async (entry: TranscriptEntry) => {
        await transcript.append(entry)
        if (entry.type === 'compaction') compactionCount++
        if (entry.type !== 'message' || !deps.onTranscriptMessage) return
        try {
          deps.onTranscriptMessage(req.sessionKey, entry, ++messageSeq)
        } catch (err) {
          console.warn('[runner] transcript message listener failed:', err)
        }
      }

      // ---- levels
      const thinkingWanted = req.thinking ?? entry!.thinkingLevel ?? config.defaults.thinkingDefault
      const thinking = clampThinkingLevel(resolved.model, thinkingWanted) as ThinkingLevel
      const verbose = entry!.verboseLevel ?? config.defaults.verboseDefault
      const reasoningMode = entry!.reasoningLevel ?? config.defaults.reasoningDefault

      hookCtx = {
        runId: req.runId,
        sessionKey: req.sessionKey,
        sessionId,
        agentId: req.agentId,
        workspaceDir,
        model: resolved,
        signal: controller.signal,
        emit: (stream, data) => this.emit(req, stream, data),
        appendTranscript: append,
        entryIdOf: (m) => entryIdOf(m as object),
      }
      const ctx = hookCtx

      // ---- tools
      const runModel = resolved
      let inputStamp: Record<string, unknown> | undefined =
        req.input?.provenance || req.input?.intent
          ? { ...(req.input.provenance ? { provenance: req.input.provenance } : {}), ...(req.input.intent ? { intent: req.input.intent } : {}) }
          : undefined
      // the message's speed over the session's (see fast-mode.ts)
      const fastMode = req.fastMode ?? entry!.fastMode
      const b = new RunBridge({
        emit: (stream, data) => this.emit(req, stream, data),
        isAborted: () => controller.signal.aborted,
        // the caller's reason when the stop came through its signal (chat.abort 'abort', /stop 'stop', a steer, …)
        abortMark: () => {
          const reason = req.signal?.aborted ? req.signal.reason : controller.signal.reason
          return { reason: typeof reason === 'string' ? reason : 'abort', runId: req.runId }
        },
        // deltas of one tick leave as one event; every other event of the run flushes them first
        emitDelta: (stream, text, delta) => deps.bus.emitDelta({ runId: req.runId, sessionKey: req.sessionKey, stream, text, delta }),
        onPersistError: () => {
          if (controller.signal.aborted) return
          live.endReason ??= 'storage'
          controller.abort('storage')
        },
        redact: (text) => redactSecret(text, models.getApiKey(runModel.provider)),
        // stored with the message that showed it, so the run's note survives a reload (shared/history-row.ts)
        noteFor: (m) => {
          const moved = switched ? { modelChanged: switched } : undefined
          switched = undefined
          const notes = { ...moved, ...truncationNote(m) }
          return Object.keys(notes).length ? notes : undefined
        },
        unavailableTool: (name) => unavailableToolText(name, entry!.permissionMode, tools.map((t) => t.name)),
        persist: (message) => {
          const id = crypto.randomUUID()
          entryIds.set(message as object, id)
          const from = persistedFrom.get(message as object)
          if (from) entryIds.set(from, id)
          let stored = transcriptForm(message as AgentMessage) as unknown as Record<string, unknown>
          const user = stored.role === 'user'
          if (user) userTurnWritten = true
          if (inputStamp && user) {
            // the run's own message is its first user message; steered ones come later
            stored = { ...stored, ...inputStamp }
            inputStamp = undefined
          }
          // a refused write (storage error) ends the run; the journal keeps its message (messageNotKept)
          return append({ type: 'message', id, timestamp: Date.now(), runId: req.runId, message: stored as any })
        },
        persistToolResult: (msg) => {
          const out = persistedForm(msg)
          // pi's history keeps `msg`, the transcript gets `out` (capped, or a hook's — its copy of the event even when
          // it changed nothing): `msg` has the written entry's id (compaction keeps from a message by its id)
          if (out !== msg) persistedFrom.set(out, msg)
          return out
        },
        sanitize: deps.sanitizeToolResult,
        toolMeta: deps.toolMeta,
        formatToolSummary: deps.formatToolSummary,
        reasoningMode,
        timing,
        onError: (where, err) => console.warn(`[runner] event ${where} of run ${req.runId} failed:`, err),
      })
      bridge = b
      const tools: AgentTool<any, any>[] = deps.tools
        ? deps.tools({
            workspaceDir,
            ...(deps.stateDir ? { stateDir: deps.stateDir } : {}),
            ...(deps.userDataDir ? { userDataDir: deps.userDataDir } : {}),
            ...(deps.configPath ? { configPath: deps.configPath } : {}),
            runId: req.runId,
            sessionKey: req.sessionKey,
            approvals: deps.approvals,
            execAllowlist: config.exec.allowlist,
            execTimeoutSeconds: config.exec.timeoutSeconds,
            execMaxOutputChars: config.exec.maxOutputChars,
            execEnv: config.exec.env,
            webFetch: config.webFetch,
            sendMessage: async (text) => {
              // plugin message_sending may rewrite or cancel what the `message` tool delivers
              const r = deps.hooks.messageSending
                ? await callHook('message_sending', () => deps.hooks.messageSending!({ content: text }, ctx), this.hookError)
                : undefined
              if (r?.cancel) return false
              const content = typeof r?.content === 'string' ? r.content : text
              b.messageSent(content)
              deps.hooks.messageSent?.({ content, success: true }, ctx)
              return true
            },
          })
        : []
      // a read-only session offers only the built-in tools that read; plugin tools are left out (nothing vouches
      // that they only read), so their hook is not even asked
      const readOnly = entry!.permissionMode === 'read-only'
      if (readOnly) tools.splice(0, tools.length, ...toolsForMode('read-only', tools))
      else tools.push(...((await callHook('extraTools', deps.hooks.extraTools && (() => deps.hooks.extraTools!(ctx)), this.hookError)) ?? []))

      // ---- system prompt
      const built = await buildRunPrompt({
        agentId: req.agentId,
        sessionKey: req.sessionKey,
        sessionId,
        workspaceDir,
        toolNames: tools.map((t) => t.name),
        bootstrapMaxChars: config.defaults.bootstrapMaxChars,
        ...(req.bootstrapContextMode === 'lightweight' ? { skipBootstrapFiles: true } : {}),
        previousSkills: entry!.skillsSnapshot,
        extraSystemPrompt:
          [req.extraSystemPrompt, req.input?.receipt ? receiptPrompt(req.input.receipt) : undefined, readOnly ? READ_ONLY_PROMPT : undefined].filter(Boolean).join('\n\n') ||
          undefined,
        compactionSummary: history.compactionSummary,
        bootstrapHook: deps.hooks.bootstrap,
      })
      for (const w of built.warnings) console.warn(`[runner] ${req.sessionKey}: ${w}`)
      let systemPrompt = built.systemPrompt
      let promptText = req.message
      const override = await callHook(
        'before_agent_start',
        deps.hooks.beforeAgentStart &&
          (() => deps.hooks.beforeAgentStart!({ prompt: req.message, systemPrompt, messages: history.messages }, ctx)),
        this.hookError,
      )
      if (override) {
        if (typeof override.systemPrompt === 'string' && override.systemPrompt.trim()) systemPrompt = override.systemPrompt
        if (typeof override.prependContext === 'string' && override.prependContext.trim()) {
          promptText = `${override.prependContext.trim()}\n\n${promptText}`
        }
      }
      this.throwIfAborted(controller.signal)

      // ---- session row: running
      const report = { ...built.report, chars: systemPrompt.length }
      await store.update(req.sessionKey, (cur) =>
        cur && cur.sessionId === sessionId
          ? {
              ...cur,
              status: 'running',
              activeRunId: req.runId,
              startedAt,
              endedAt: undefined,
              updatedAt: Date.now(),
              model: resolved!.id,
              modelProvider: resolved!.provider,
              skillsSnapshot: built.skills,
              systemPromptReport: report,
              lastRunTiming: { acceptedAt: req.acceptedAt, startedAt },
            }
          : undefined,
        // group commit: the cache (what every reader in this process sees) changes now, the file within
        // ~25 ms together with other runs' updates. The transcript, not this row, is the crash-safe record.
        // shared: the mutator only spreads the stored entry (no private deep copy; untouched members kept)
        { defer: true, shared: true },
      )
      deps.sessionChanged(req.sessionKey, 'start', req.runId)

      // ---- the pi agent
      // built-in tools' declarations are built once per tool spec, not per run
      const declarations = tools.map(toolDeclaration)
      // tools + declarations go to pi per request, past its per-request tool diff (see tool-loadout.ts)
      const loadout = systemPrompt && tools.length > 0 ? createToolLoadout(systemPrompt, tools, declarations) : undefined
      const leading = loadout ? loadout.leading : createInitialSystemMessage(systemPrompt, declarations)
      const registry = models
      const piStream = registry.streamFn
      const a = new Agent({
        // tools are set below: through initialState, pi would build (and drop) a declaration of each
        initialState: {
          model: resolved.model as Model<Api>,
          thinkingLevel: thinking,
          messages: leading ? [leading, ...history.messages] : history.messages,
        },
        prepareRequest: loadout && ((request) => loadout.prepareRequest(request)),
        prepareNextTurnWithContext: loadout && ((turn) => loadout.prepareNextTurnWithContext(turn)),
        streamFn: async (model, context, options?: SimpleStreamOptions) => {
          await this.turns.turn() // building and sending the request: the next heavy step
          b.modelCallStarted()
          // delta SSE events of one network read reach the provider SDK (OpenAI or Anthropic) as one (see sse-merge-fetch.ts)
          b.networkFailure = undefined
          b.modelBaseUrl = model.baseUrl
          const record = (f: NetworkFailure) => (b.networkFailure = f)
          // a response pi will retry is told to the user (retry-notice.ts)
          const retries = registry.retryPolicy && new RetryWatch(registry.retryPolicy)
          b.lastResponse = undefined
          // a server that goes quiet is told, and a reply stalled mid-way fails the call — through the fetch, so
          // only for the APIs whose client takes one (the others get the notice only)
          const fetchable = wantsSseMerge(model.api) || RECORDABLE_APIS.has(model.api)
          const llm = config.defaults.llm
          const callAbort = new AbortController()
          silence?.end()
          const watch = (silence = new SilenceWatch(
            { noticeAfterMs: llm.silenceNoticeSeconds * 1000, idleTimeoutMs: fetchable ? llm.idleTimeoutSeconds * 1000 : 0 },
            model.provider,
            {
              emit: (data) => this.emit(req, 'silence', data),
              stalled: (err) => {
                stalled = err
                // a plain Error, not an AbortError: the SDK passes it on as the call's failure
                callAbort.abort(err)
              },
            },
          ))
          watch.start()
          const stallable = (f: typeof fetch): typeof fetch => (input, init) =>
            f(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, callAbort.signal]) : callAbort.signal })
          // Ollama cuts a prompt longer than its context silently: what was sent, to compare with what it read
          sent = isOllama(model) ? { model, tokens: estimateSent(context) } : undefined
          const onResponse = (res: Response, url: URL | undefined) => {
            // where a refusal came from (a 404 there is most often the base URL) and what a 200 sent (errors.ts)
            watch.alive()
            if (url) b.lastResponse = { url, status: res.status, contentType: res.headers.get('content-type') ?? undefined }
            const notice = retries?.onResponse(res)
            if (notice) this.emit(req, 'error', { ...notice })
          }
          // the APIs that take a fetch get one that remembers why a request failed (Google's refuses one)
          let opts = options?.fetch
            ? options
            : wantsSseMerge(model.api)
              ? { ...options, fetch: recordingFetch(stallable(this.watchedMergingFetch(watch)), record, onResponse) }
              : RECORDABLE_APIS.has(model.api)
                ? { ...options, fetch: recordingFetch(stallable((input, init) => globalThis.fetch(input, init)), record, onResponse) }
                : options
          const tier = serviceTierFor(model, fastForCall(fastMode, Date.now() - startedAt, req.fastAutoOnSeconds))
          if (tier) {
            const inner = opts?.onPayload
            opts = {
              ...opts,
              onPayload: async (payload, m) => {
                const p = ((await inner?.(payload, m)) ?? payload) as Record<string, unknown>
                return { ...p, service_tier: tier }
              },
            }
          }
          return piStream(model, context, opts)
        },
        getApiKey: (provider) => registry.getApiKey(provider),
        sessionId,
        transformContext: deps.hooks.transformContext
          ? async (messages) => {
              try {
                return (await deps.hooks.transformContext!(messages, ctx)) ?? messages
              } catch (err) {
                // a request the hook refuses to send (too large for the window) fails the model call: pi ends the
                // turn with an error message carrying this text
                if ((err as { refusesRequest?: unknown })?.refusesRequest === true) throw err
                this.hookError('transformContext', err)
                return messages
              }
            }
          : undefined,
        beforeToolCall: async ({ toolCall, args }) => {
          // arguments that were not valid JSON were completed by guesswork: never run a tool on them
          const badArgs = b.invalidToolArguments(toolCall.id)
          if (badArgs) return { block: true, reason: badArgs }
          if (!deps.hooks.beforeToolCall) return undefined
          const r = await callHook(
            'before_tool_call',
            () => deps.hooks.beforeToolCall!({ toolName: toolCall.name, toolCallId: toolCall.id, params: args }, ctx),
            this.hookError,
          )
          if (!r) return undefined
          if (r.params !== undefined && args && typeof args === 'object' && r.params && typeof r.params === 'object') {
            // pi hands the validated args object to execute(): update it in place
            for (const k of Object.keys(args)) delete (args as Record<string, unknown>)[k]
            Object.assign(args as Record<string, unknown>, r.params)
          }
          return r.block ? { block: true, reason: r.blockReason ?? 'Tool call blocked by a plugin hook' } : undefined
        },
        afterToolCall: deps.hooks.afterToolCall
          ? async ({ toolCall, args, result, isError }) => {
              await callHook(
                'after_tool_call',
                () =>
                  deps.hooks.afterToolCall!(
                    { toolName: toolCall.name, toolCallId: toolCall.id, params: args, result, isError, durationMs: 0 },
                    ctx,
                  ),
                this.hookError,
              )
              return undefined
            }
          : undefined,
      })
      if (!loadout) a.state.tools = tools
      agent = a
      if (deps.hooks.agentEvent) {
        // before the bridge: a hook may need to act before the bridge emits (block flush before tool start)
        a.subscribe(async (event) => {
          try {
            // optional call: the extensions' hooks are taken off at runtime shutdown while a run may still stream
            await deps.hooks.agentEvent?.(event, ctx)
          } catch (err) {
            this.hookError('agentEvent', err)
          }
        })
      }
      // one listener (pi awaits each per event): the silence watch sees each token and the message's end first
      a.subscribe((event) => {
        if (event.type === 'message_update') {
          const type = event.assistantMessageEvent.type
          if (type === 'text_delta' || type === 'thinking_delta' || type === 'toolcall_delta') silence?.token()
        } else if (event.type === 'message_end' && (event.message as { role?: string }).role === 'assistant') silence?.end()
        return b.listener(event)
      })
      live.isStreaming = () => a.state.isStreaming
      live.steer = (text) => a.steer(userMessage(text))
      live.followUp = (text) => a.followUp(userMessage(text))
      live.partialText = () => b.currentText
      const abortAgent = () => a.abort()
      controller.signal.addEventListener('abort', abortAgent, { once: true })
      // a stop during the session row write above would not reach the agent (the signal fired before the listener)
      this.throwIfAborted(controller.signal)
      callHook('runStarted', deps.hooks.runStarted && (() => deps.hooks.runStarted!(live)), this.hookError)

      const images: ImageBlock[] = []
      // a text-only model gets the images by reference only (the prompt text names each saved file)
      const visual = (runModel.model.input as readonly string[] | undefined)?.includes('image') === true
      for (const att of visual ? (req.attachments ?? []) : []) {
        for (const img of loadImages([att])) {
          imagePaths.set(img, att.path)
          images.push(img)
        }
      }
      await a.prompt(userMessage(promptText, images))
      // A failed model request (e.g. context overflow) may get one compaction + retry: the hook decides.
      const failed = b.lastAssistant
      if (failed?.stopReason === 'error' && !controller.signal.aborted && deps.hooks.onContextOverflow) {
        const r = await callHook(
          'onContextOverflow',
          () =>
            deps.hooks.onContextOverflow!(
              { messages: loadout ? loadout.asDeclared(a.state.messages) : a.state.messages, errorMessage: failed.errorMessage ?? '' },
              ctx,
            ),
          this.hookError,
        )
        if (r?.retry && !controller.signal.aborted) {
          // drop the failed assistant message (continue() needs a user/toolResult tail), then run again
          const msgs = a.state.messages
          const lastMsg = msgs[msgs.length - 1] as { role?: string; stopReason?: string } | undefined
          if (lastMsg?.role === 'assistant' && lastMsg.stopReason === 'error') a.state.messages = msgs.slice(0, -1)
          await a.continue()
        }
      }
      controller.signal.removeEventListener('abort', abortAgent)

      // ---- outcome
      const last = b.lastAssistant
      // a message that could not be written ends the run as an error: never a reply the transcript lacks
      const storage = b.persistError !== undefined
      const aborted = !storage && (live.endReason !== undefined || last?.stopReason === 'aborted')
      const reason: EndReason = storage
        ? 'error'
        : aborted
          ? live.endReason === 'timeout'
            ? 'timeout'
            : 'aborted'
          : last?.stopReason === 'error'
            ? 'error'
            : 'completed'
      // a connection error without its cause (Google's client): retrace the connection to find it
      if (reason === 'error' && !storage && !b.networkFailure && isBareConnectionError(last?.errorMessage)) {
        b.networkFailure = await diagnoseConnection(b.modelBaseUrl)
      }
      const errorText = storage
        ? describeStorageError(b.persistError)
        : reason === 'error' && stalled
          ? // the SDK says only "terminated" (the body read failed): the stall is why — a failed call ends the run
            stalled.message
          : reason === 'error'
          ? describeModelError(last?.errorMessage, resolved.provider, b.networkFailure, b.lastResponse, models.getApiKey(resolved.provider) === LOCAL_DUMMY_KEY) +
            contextMismatchHint(last?.errorMessage ?? '', resolved.model, resolved.ref)
          : undefined
      const input = b.payloadInput({ verbose })
      // an aborted run shows what it produced, not pi's "operation was aborted" error text
      input.errorText = errorText
      if (aborted) input.lastToolError = undefined // tools cut off by the abort did not "fail"
      const payloads = deps.buildPayloads(input)
      if (reason === 'timeout') payloads.push(timeoutPayload(timeoutMs))
      // a write refused part-way (the reply, a tool turn): what is missing is written by the session's next run
      // once the disk has room, or else by the next start's recovery
      if (storage) this.storageEnded(req, sessionId, errorText!)
      return await this.finish(req, {
        reason,
        payloads,
        timing,
        bridge: b,
        resolved,
        sessionId,
        error: errorText,
        errorKind: storage
          ? { kind: 'unknown', metaKind: 'storage' }
          : errorText
            ? classifyError(last, errorText, resolved.model.contextWindow)
            : undefined,
        stopReason: storage ? 'error' : reason === 'timeout' ? 'timeout' : reason === 'aborted' ? abortStopReason(live.endReason) : (last?.stopReason ?? 'stop'),
        ctx,
        compactionCount,
        errorReply: reason === 'error' && !storage,
      })
    } catch (err) {
      const storage = bridge?.persistError !== undefined || isStorageError(err)
      const aborted = !storage && controller.signal.aborted
      const message = storage
        ? describeStorageError(bridge?.persistError ?? err)
        : aborted
          ? live.endReason === 'timeout'
            ? 'run timed out'
            : 'run aborted'
          : err instanceof Error
            ? err.message
            : String(err)
      const reason: EndReason = aborted ? (live.endReason === 'timeout' ? 'timeout' : 'aborted') : 'error'
      // a storage failure is not written over (the transcript just refused a write): the journal keeps it, also
      // when the message itself was written (recovery closes the run with the error then)
      if (storage) this.storageEnded(req, sessionId, message)
      else if (!userTurnWritten) {
        const stopReason = req.signal?.aborted ? req.signal.reason : controller.signal.reason
        await this.keepUnsentTurn(req, unsentEnding(aborted, stopReason, message), { lockHeld: release !== undefined, resolved })
      }
      return await this.finish(req, {
        reason,
        payloads: reason === 'timeout' ? [timeoutPayload(timeoutMs)] : aborted ? [] : [{ text: `⚠️ ${message}`, isError: true }],
        timing,
        bridge,
        resolved,
        sessionId,
        error: aborted ? undefined : message,
        errorKind: aborted ? undefined : { kind: 'unknown', metaKind: storage ? 'storage' : 'runtime_error' },
        stopReason: reason === 'timeout' ? 'timeout' : aborted ? abortStopReason(live.endReason) : 'error',
        ctx: hookCtx,
        compactionCount,
      })
    } finally {
      silence?.end()
      if (timer) clearTimeout(timer)
      req.signal?.removeEventListener('abort', onExternalAbort)
      if (agent?.state.isStreaming) await agent.waitForIdle().catch(() => undefined)
      this.untrack(live)
      callHook('runEnded', deps.hooks.runEnded && (() => deps.hooks.runEnded!(live)), this.hookError)
      if (release) await release().catch(() => undefined)
      deps.bus.clearRun(req.runId)
    }
  }

  /**
   * Writes the message of a run that ended before pi sent it, closed by its stop or error (unsent-turn.ts), so an
   * accepted message is never lost; before the lifecycle end, which settles its journal record. When the write
   * fails (logged), the journal record is left open instead (messageNotKept): the next start writes it.
   */
  private async keepUnsentTurn(req: RunRequest, ending: UnsentTurn['ending'], opts: { lockHeld: boolean; resolved?: ResolvedModel }): Promise<boolean> {
    try {
      const store = this.deps.store(req.agentId)
      const entry = store.get(req.sessionKey)
      if (!entry) return true // deleted meanwhile: no transcript to keep it in (recovery would not find one either)
      const transcript = new Transcript(store.transcriptPath(entry.sessionId), { fsync: this.deps.transcriptFsync })
      const release = opts.lockHeld ? undefined : await acquireWriteLock(transcript.file)
      try {
        const read = await transcript.readAll()
        if (read.entries.length === 0) {
          const config = this.deps.config()
          await transcript.ensureHeader(
            sessionHeader(entry.sessionId, config.agents.find((a) => a.id === req.agentId)?.workspace ?? config.defaults.workspace, req.sessionKey),
          )
        }
        const stamp = req.input?.provenance || req.input?.intent
          ? { ...(req.input.provenance ? { provenance: req.input.provenance } : {}), ...(req.input.intent ? { intent: req.input.intent } : {}) }
          : undefined
        const m = opts.resolved
        // the provider key never reaches the transcript, even when an error names it
        if (m && ending.kind === 'error') ending = { kind: 'error', error: redactSecret(ending.error, this.deps.models().getApiKey(m.provider)) }
        const entries = unsentTurnEntries({
          runId: req.runId,
          message: req.message,
          acceptedAt: req.acceptedAt,
          ...(stamp ? { stamp } : {}),
          ...(m ? { model: { api: String(m.model.api), provider: m.provider, id: m.id } } : {}),
          ending,
        })
        await transcript.appendMany(entries)
        let seq = read.entries.filter((e) => e.type === 'message').length
        for (const e of entries) {
          try {
            this.deps.onTranscriptMessage?.(req.sessionKey, e, ++seq)
          } catch (err) {
            console.warn('[runner] transcript message listener failed:', err)
          }
        }
      } finally {
        await release?.().catch(() => undefined)
      }
      return true
    } catch (err) {
      console.warn(`[runner] could not keep the message of run ${req.runId} in its transcript (the next start writes it):`, err)
      this.messageNotKept(req)
      return false
    }
  }

  /** The run ended on a storage error: its record stays open, and the session's next run closes its turn first. */
  private storageEnded(req: RunRequest, sessionId: string, error: string): void {
    this.messageNotKept(req, error)
    if (!sessionId) return
    const list = this.unclosed.get(req.sessionKey) ?? []
    list.push({ req, sessionId, error })
    this.unclosed.set(req.sessionKey, list)
  }

  /**
   * Writes the turns of the session's earlier runs that ended on a storage error (recovery.ts `storageClosing`:
   * the message if it is missing, the closing error with the reply as far as the event log has it) before this
   * run's own, and settles their records. Returns the transcript's entries with them. A write that fails again
   * (the disk still full) fails this run the same way; they stay for the next run or the next start.
   */
  private async closeUnclosed(
    req: RunRequest,
    sessionId: string,
    transcript: Transcript,
    entries: TranscriptEntry[],
    row: SessionEntry,
  ): Promise<TranscriptEntry[]> {
    const list = this.unclosed.get(req.sessionKey)
    if (!list?.length) return entries
    this.unclosed.delete(req.sessionKey)
    // the reply's last deltas may still wait for the log's next append
    await this.deps.flushEvents?.().catch(() => undefined)
    for (let i = 0; i < list.length; i++) {
      const u = list[i]
      if (u.sessionId !== sessionId) continue // reset since: the next start's recovery puts it into the session
      const record = { runId: u.req.runId, sessionKey: u.req.sessionKey, text: u.req.message, at: u.req.acceptedAt, error: u.error }
      const eventsFile = this.deps.eventsFile && ((id: string) => this.deps.eventsFile!(u.req.agentId, id))
      const written = storageClosing(entries, record, { sessionId, model: row.model, modelProvider: row.modelProvider }, { eventsFile })
      try {
        await transcript.appendMany(written)
      } catch (err) {
        this.unclosed.set(req.sessionKey, [...list.slice(i), ...(this.unclosed.get(req.sessionKey) ?? [])])
        throw err
      }
      let seq = entries.filter((e) => e.type === 'message').length
      entries = [...entries, ...written]
      for (const e of written) {
        try {
          this.deps.onTranscriptMessage?.(req.sessionKey, e, ++seq)
        } catch (err) {
          console.warn('[runner] transcript message listener failed:', err)
        }
      }
      this.messageKept(u.req)
    }
    return entries
  }

  private messageNotKept(req: RunRequest, error?: string): void {
    try {
      this.deps.messageNotKept?.({ runId: req.runId, agentId: req.agentId, sessionKey: req.sessionKey, ...(error !== undefined ? { error } : {}) })
    } catch (err) {
      console.warn('[runner] unkept message listener failed:', err)
    }
  }

  private messageKept(req: RunRequest): void {
    try {
      this.deps.messageKept?.({ runId: req.runId, agentId: req.agentId, sessionKey: req.sessionKey })
    } catch (err) {
      console.warn('[runner] kept message listener failed:', err)
    }
  }

  private throwIfAborted(signal: AbortSignal): void {
    if (signal.aborted) throw abortError(signal.reason)
  }

  private track(live: LiveRun): void {
    this.live.set(live.runId, live)
    let set = this.bySession.get(live.sessionKey)
    if (!set) this.bySession.set(live.sessionKey, (set = new Set()))
    set.add(live.runId)
  }

  private untrack(live: LiveRun): void {
    this.live.delete(live.runId)
    const set = this.bySession.get(live.sessionKey)
    set?.delete(live.runId)
    if (set && set.size === 0) this.bySession.delete(live.sessionKey)
  }

  /** Session row, agent_end hook, lifecycle end/error — in that order. */
  private async finish(
    req: RunRequest,
    r: {
      reason: EndReason
      payloads: ReplyPayload[]
      timing: RunTiming & { modelMs?: number }
      bridge?: RunBridge
      resolved?: ResolvedModel
      sessionId: string
      error?: string
      errorKind?: { kind: ErrorKind; metaKind: string }
      stopReason: string
      ctx?: RunHookContext
      compactionCount: number
      errorReply?: boolean
    },
  ): Promise<RunOutcome> {
    await this.turns.turn()
    // the reply is delivered now: plugin message_sending may rewrite or withhold each payload (reference §8.3)
    const shaped = r.payloads
    if (r.ctx) r.payloads = await this.deliverReply(r.payloads, r.ctx)
    // (deliverReply keeps an untouched payload's object: a new object or a shorter list = a hook changed it)
    const replyChanged = r.payloads.length !== shaped.length || r.payloads.some((p, i) => p !== shaped[i])
    const endedAt = Date.now()
    r.timing.endedAt = endedAt
    const usage = r.bridge?.usage ?? emptyUsage()
    const startedAt = r.timing.startedAt ?? endedAt
    const status = r.reason === 'completed' ? 'done' : r.reason === 'error' ? 'failed' : r.reason === 'timeout' ? 'timeout' : 'killed'
    const visible = r.payloads.filter((p) => !p.isReasoning && !p.isError && p.text?.trim()).map((p) => p.text!)
    const preview = visible.length > 0 ? visible[visible.length - 1].slice(0, 200) : undefined
    try {
      await this.deps.store(req.agentId).update(req.sessionKey, (cur) => {
        if (!cur || (r.sessionId && cur.sessionId !== r.sessionId)) return undefined // reset/deleted meanwhile
        const next: SessionEntry = {
          ...cur,
          status,
          activeRunId: cur.activeRunId === req.runId ? undefined : cur.activeRunId,
          endedAt,
          runtimeMs: endedAt - startedAt,
          updatedAt: endedAt,
          inputTokens: (cur.inputTokens ?? 0) + usage.input,
          outputTokens: (cur.outputTokens ?? 0) + usage.output,
          cacheRead: (cur.cacheRead ?? 0) + usage.cacheRead,
          cacheWrite: (cur.cacheWrite ?? 0) + usage.cacheWrite,
          totalTokens: (cur.totalTokens ?? 0) + usage.totalTokens,
          estimatedCostUsd: (cur.estimatedCostUsd ?? 0) + usage.costUsd,
          lastRunTiming: { ...r.timing },
          lastError: r.error,
        }
        if (preview !== undefined) next.lastMessagePreview = preview
        if (r.resolved) {
          next.model = r.resolved.id
          next.modelProvider = r.resolved.provider
        }
        return next
      }, { defer: true, shared: true })
    } catch (err) {
      console.warn(`[runner] could not update session ${req.sessionKey} after run ${req.runId}:`, err)
    }
    if (r.ctx && this.deps.hooks.agentEnd) {
      const ctx = r.ctx
      await callHook(
        'agent_end',
        () =>
          this.deps.hooks.agentEnd!(
            {
              messages: r.bridge?.messages ?? [],
              success: r.reason === 'completed',
              aborted: r.reason === 'aborted' || r.reason === 'timeout',
              error: r.error,
              durationMs: endedAt - startedAt,
            },
            ctx,
          ),
        this.hookError,
      )
    }
    this.deps.setChatUsage?.(req.runId, usage)
    this.deps.sessionChanged(req.sessionKey, r.reason === 'error' ? 'error' : 'end', req.runId)
    if (r.reason === 'error') {
      this.emit(req, 'lifecycle', {
        phase: 'error',
        error: r.error ?? 'run failed',
        endedAt,
        startedAt,
        errorKind: r.errorKind?.kind ?? 'unknown',
        // OpenClaw v4's bounded request facts (a storage failure is no model request's)
        ...(r.errorKind?.metaKind === 'storage' ? {} : { errorDetail: chatErrorDetail({ provider: r.resolved?.provider, model: r.resolved?.id, status: r.bridge?.lastResponse?.status, kind: r.errorKind?.kind }) }),
        // no retry ever follows under this runId: agent.wait needs no retry grace (reference §3, v4 executionSettled)
        executionSettled: true,
      })
    } else {
      const data: Record<string, unknown> = { phase: 'end', endedAt, startedAt, stopReason: r.stopReason }
      if (r.reason === 'aborted' || r.reason === 'timeout') data.aborted = true
      // the model ended without writing anything (no text, no NO_REPLY, nothing sent by the message tool): the
      // window says so instead of a bare "Done"
      else if (r.bridge && r.bridge.assistantTexts.length === 0 && r.bridge.messagingSent.length === 0) data.emptyReply = true
      // the model chose to say nothing (NO_REPLY, and the message tool showed nothing either): the window reads
      // "No reply" instead of taking the missing answer for an interrupted run
      else if (r.bridge && isSilentRun(r.payloads, r.bridge.messagingSent)) data.silentReply = true
      // the streamed assistant text is what the model wrote; a message_sending hook changed what was delivered:
      // chat finals / transports show this instead ("" = everything withheld)
      if (replyChanged) data.replyText = r.payloads.filter((p) => !p.isReasoning && p.text?.trim()).map((p) => p.text!).join('\n\n')
      // OpenClaw 2026.9's reply fact for agent.wait: the run's last reply text (what delivery sent, after hooks)
      const last = r.payloads.filter((p) => !p.isReasoning && !p.isError && p.text?.trim() && !isSilentReply(p.text)).at(-1)?.text
      data.terminalReply = terminalReplyOf({ silent: data.silentReply === true, text: replyChanged ? (data.replyText as string) : last })
      this.emit(req, 'lifecycle', data)
    }
    const out = this.outcome(req, r.reason, r.payloads, r.timing, usage, r.resolved, r.error, r.sessionId, r.stopReason, r.errorKind?.metaKind, r.compactionCount)
    if (r.errorReply) out.errorReply = true
    return out
  }

  /** Outbound delivery of the final reply: message_sending per text payload (cancel drops it), then message_sent. */
  private async deliverReply(payloads: ReplyPayload[], ctx: RunHookContext): Promise<ReplyPayload[]> {
    const hooks = this.deps.hooks // called as methods: a hook table entry may rely on `this`
    if (!hooks.messageSending && !hooks.messageSent) return payloads
    const out: ReplyPayload[] = []
    for (const p of payloads) {
      const original = p.text
      if (p.isReasoning || !original?.trim()) {
        out.push(p)
        continue
      }
      const r = hooks.messageSending
        ? await callHook('message_sending', () => hooks.messageSending!({ content: original, kind: 'reply' }, ctx), this.hookError)
        : undefined
      if (r?.cancel) continue
      const text = typeof r?.content === 'string' ? r.content : original
      out.push(text === original ? p : { ...p, text })
      hooks.messageSent?.({ content: text, success: true, kind: 'reply' }, ctx)
    }
    return out
  }

  private outcome(
    req: RunRequest,
    reason: EndReason,
    payloads: ReplyPayload[],
    timing: RunTiming,
    usage: UsageTotals,
    resolved?: ResolvedModel,
    error?: string,
    sessionId = '',
    stopReason?: string,
    errorKind?: string,
    compactionCount = 0,
  ): RunOutcome {
    const endedAt = timing.endedAt ?? Date.now()
    const meta: RunMeta = {
      durationMs: endedAt - (timing.startedAt ?? timing.acceptedAt),
      agentMeta: {
        sessionId,
        provider: resolved?.provider ?? '',
        model: resolved?.id ?? '',
        // OpenClaw's NormalizedUsage names the sum `total`; Loopdesk's own readers use totalTokens
        usage: { ...usage, total: usage.totalTokens },
        compactionCount,
      },
      timing: { ...timing },
    }
    if (reason === 'aborted' || reason === 'timeout') meta.aborted = true
    if (stopReason) meta.stopReason = stopReason
    if (reason === 'error') meta.error = { kind: errorKind ?? 'unknown', message: error ?? 'run failed' }
    const status = reason === 'error' ? 'error' : 'ok'
    return {
      runId: req.runId,
      status,
      reason,
      summary: reason === 'completed' ? 'completed' : reason === 'error' ? (error ?? 'error') : reason,
      payloads,
      meta,
      error,
    }
  }
}

export type { ToolResultMessage }
