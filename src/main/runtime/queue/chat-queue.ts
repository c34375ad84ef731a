// Queue modes for chat.send over the runtime: SessionQueues with its dependencies bound to the runtime's
// tracked runs (active = a run of the session is queued in its lane or running), the runner's live run
// handles (steer) and the runtime's run starter.
import type { SavedAttachment } from '../attachments'
import type { QueueItem, QueueMode } from '../../../shared/events'
import type { FastMode, ThinkingLevel } from '../../../shared/methods'
import { parseSessionKey } from '../../../shared/session-key'
import type { SessionEntry } from '../contracts'
import type { RunInput, RunRequest } from '../runner/embedded-runner'
import { moveRunModels, type AcceptedRun } from '../runner/accepted-run'
import { SessionQueues, type SubmitResult } from './session-queues'
import { resolveQueueSettings, type QueueSettings } from './settings'

/** What the queue needs from the runtime (RuntimeCore satisfies it through `chatQueueHost`). */
export interface ChatQueueHost {
  /** runs queued or running, by runId */
  tracked: Map<string, { runId: string; sessionKey: string; controller: AbortController; done: Promise<unknown> }>
  /** live (started) runs of a session */
  activeRunsOf(sessionKey: string): Array<{ runId: string; isStreaming(): boolean; steer(text: string): void }>
  startRun(
    req: Pick<RunRequest, 'runId' | 'sessionKey' | 'agentId' | 'message' | 'acceptedAt'> & AcceptedRun,
  ): { runId: string }
  /** config queue defaults (messages.queue) */
  queueDefaults(): Partial<QueueSettings>
  /** the session entry (per-session queueMode / debounce / cap / drop) */
  sessionEntry(sessionKey: string): SessionEntry | undefined
  onChange(sessionKey: string, items: QueueItem[]): void
  /**
   * A queued message will never run under the run id chat.send returned for it (removed, dropped, cleared,
   * failed to start): close that run id (lifecycle end, aborted) so waiters are not left hanging.
   */
  discarded?(sessionKey: string, runId: string, reason: string): void
  /**
   * Messages (their accepted run ids) that became held without a loopdesk.queue.hold: a steered message queued
   * again after the user stopped its run. The accepted journal marks them paused.
   */
  held?(sessionKey: string, runIds: string[]): void
  /**
   * Collect mode: the messages acknowledged as `runIds` ride along in the batch run `intoRunId` (called before
   * it starts); those runIds must end with it. `unfold` when the batch run failed to start after all.
   */
  fold?(sessionKey: string, intoRunId: string, runIds: string[]): void
  unfold?(intoRunId: string): void
  logger?: { warn(msg: string): void; error(msg: string): void }
}

export interface ChatSubmit {
  sessionKey: string
  agentId: string
  message: string
  /** the chat.send idempotency key: becomes the runId of the run that carries this message */
  runId: string
  thinking?: ThinkingLevel
  timeoutMs?: number
  /** chat.send `queueMode` (overrides the session and config mode) */
  queueMode?: QueueMode
  /** saved attachments; `message` already references each by path (all a steered message can carry) */
  attachments?: SavedAttachment[]
  /** chat.send fastMode / fastAutoOnSeconds: the speed of the run that carries this message */
  fastMode?: FastMode
  fastAutoOnSeconds?: number
  /** provenance / intent / receipt of this message (the run that carries it; a steered message joins a running turn without them) */
  input?: RunInput
  /**
   * `agent`-only run options (chat.send has none): a message restored from the accepted journal carries what
   * its request asked for
   */
  extraSystemPrompt?: string
  bootstrapContextMode?: 'lightweight'
  lane?: string
  model?: string
  /** the session's chosen model when the message was accepted (see RunRequest.sessionModel) */
  sessionModel?: string | null
}

export type ChatSubmitResult =
  | { runId: string; status: 'started' }
  | { runId: string; status: 'queued' | 'steered'; queueItemId: string }

interface Meta extends AcceptedRun {
  runId: string
  agentId: string
}

/** What a queued message's run is started with (its first message's, for a collected batch). */
function metaOf(p: ChatSubmit): Meta {
  const meta: Meta = { runId: p.runId, agentId: p.agentId }
  for (const k of ['thinking', 'timeoutMs', 'attachments', 'fastMode', 'fastAutoOnSeconds', 'input', 'extraSystemPrompt', 'bootstrapContextMode', 'lane', 'model', 'sessionModel'] as const) {
    if (p[k] !== undefined) (meta as unknown as Record<string, unknown>)[k] = p[k]
  }
  return meta
}

export class QueueFullError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'QueueFullError'
  }
}

export class ChatQueueModes {
  readonly queues: SessionQueues

  constructor(private readonly host: ChatQueueHost) {
    this.queues = new SessionQueues({
      isActive: (key) => this.runsOf(key).length > 0,
      steer: (key, text) => {
        const live = host.activeRunsOf(key).find((r) => r.isStreaming())
        if (!live) return false
        live.steer(text)
        return { runId: live.runId }
      },
      abort: async (key) => {
        for (const t of this.runsOf(key)) if (!t.controller.signal.aborted) t.controller.abort('interrupt')
      },
      startRun: async (key, text, _ids, metas) => {
        const m = (metas.find((x) => x) ?? {}) as Meta
        const agentId = m.agentId ?? parseSessionKey(key)?.agentId ?? 'main'
        const runId = m.runId && !host.tracked.has(m.runId) ? m.runId : `${m.runId ?? 'queued'}:${Date.now().toString(36)}`
        // a coalesced batch: the other messages' runIds end together with this run
        const folded = (metas as Array<Meta | undefined>)
          .map((x) => x?.runId)
          .filter((id): id is string => !!id && id !== runId && id !== m.runId && !host.tracked.has(id))
        if (folded.length > 0) host.fold?.(key, runId, folded)
        // a collected batch carries the images of every message in it
        const attachments = (metas as Array<Meta | undefined>).flatMap((x) => x?.attachments ?? [])
        try {
          return host.startRun({
            runId,
            sessionKey: key,
            agentId,
            message: text,
            acceptedAt: Date.now(),
            thinking: m.thinking,
            timeoutMs: m.timeoutMs,
            // like thinking and timeout, a collected batch runs with its first message's speed and input facts
            ...(m.fastMode !== undefined ? { fastMode: m.fastMode } : {}),
            ...(m.fastAutoOnSeconds !== undefined ? { fastAutoOnSeconds: m.fastAutoOnSeconds } : {}),
            ...(m.input ? { input: m.input } : {}),
            ...(m.extraSystemPrompt !== undefined ? { extraSystemPrompt: m.extraSystemPrompt } : {}),
            ...(m.bootstrapContextMode ? { bootstrapContextMode: m.bootstrapContextMode } : {}),
            ...(m.lane !== undefined ? { lane: m.lane } : {}),
            ...(m.model !== undefined ? { model: m.model } : {}),
            ...(m.sessionModel !== undefined ? { sessionModel: m.sessionModel } : {}),
            ...(attachments.length ? { attachments } : {}),
          })
        } catch (err) {
          if (folded.length > 0) host.unfold?.(runId)
          throw err
        }
      },
      waitIdle: async (key) => {
        // runs of the session may be chained (a queued followup starts as the previous one ends)
        for (let runs = this.runsOf(key); runs.length; runs = this.runsOf(key)) {
          await Promise.all(runs.map((t) => t.done.catch(() => undefined)))
        }
      },
      settings: (key) => this.settings(key),
      onChange: (key, items) => host.onChange(key, items),
      onDiscard: (key, item) => {
        if (item.runId && !host.tracked.has(item.runId)) host.discarded?.(key, item.runId, item.detail ?? item.status)
      },
      logger: host.logger,
    })
  }

  settings(sessionKey: string, inline?: QueueMode): QueueSettings {
    return resolveQueueSettings(this.host.queueDefaults(), this.host.sessionEntry(sessionKey), inline)
  }

  private runsOf(sessionKey: string) {
    return [...this.host.tracked.values()].filter((t) => t.sessionKey === sessionKey)
  }

  /**
   * chat.send for a session: starts at once when idle, else applies the queue mode. Throws QueueFullError
   * when the cap rejected the message (drop policy `new`), Error when the run could not start.
   */
  async submit(p: ChatSubmit): Promise<ChatSubmitResult> {
    const r: SubmitResult = await this.queues.submit(p.sessionKey, p.message, { mode: p.queueMode, meta: metaOf(p), runId: p.runId })
    switch (r.status) {
      case 'started':
        return { runId: r.runId, status: 'started' }
      case 'steered': {
        const item = this.queues.list(p.sessionKey).find((i) => i.id === r.itemId)
        return { runId: item?.runId ?? p.runId, status: 'steered', queueItemId: r.itemId }
      }
      case 'queued':
        return { runId: p.runId, status: 'queued', queueItemId: r.itemId }
      case 'dropped':
        throw new QueueFullError(`message not queued: ${r.reason}`)
      case 'failed':
        throw new Error(r.error)
    }
  }

  /**
   * A run ended: every message steered into it must appear among its user messages; one that does not
   * (the run finished between the steer check and its end) is queued again as a follow-up.
   */
  runEnded(sessionKey: string, runId: string, userTexts: string[]): void {
    const seen = new Set(userTexts.map((t) => t.trim()))
    const held: string[] = []
    for (const item of this.queues.list(sessionKey)) {
      if (item.status !== 'steered' || item.runId !== runId) continue
      if (seen.has(item.text.trim())) continue
      const own = (this.queues.metaOf(sessionKey, item.id) as Meta | undefined)?.runId
      if (!this.queues.requeueSteered(sessionKey, item.id, own)) continue
      if (own && this.queues.list(sessionKey).some((i) => i.id === item.id && i.held)) held.push(own)
    }
    // queued again while the user's Stop holds the queue: paused like the rest, which the journal must know
    if (held.length > 0) this.host.held?.(sessionKey, held)
  }

  list(sessionKey: string): QueueItem[] {
    return this.queues.list(sessionKey)
  }

  /**
   * The queue item of the message chat.send accepted as `runId` (while the queue still remembers it): its
   * `runId` is then the run that carries it — its own, the batch it was collected into, the run it was steered into.
   */
  itemFor(sessionKey: string, runId: string): QueueItem | undefined {
    return this.queues.findByMeta(sessionKey, (m) => (m as Meta | undefined)?.runId === runId)
  }

  /** The message chat.send accepted as `runId` still waits in a queue (held included): its run has not started. */
  isQueued(runId: string): boolean {
    return this.queues.sessionKeys().some((key) => this.itemFor(key, runId)?.status === 'queued')
  }

  remove(sessionKey: string, id: string): boolean {
    return this.queues.remove(sessionKey, id)
  }

  /** Holds every waiting message (returns their item ids): they stay queued, but do not start on their own. */
  hold(sessionKey: string): string[] {
    return this.queues.hold(sessionKey)
  }

  /**
   * A message paused before the runtime stopped goes back into its queue, held (returns its item id); it runs
   * with what its request asked for (thinking, timeout, …: the journal's `run`).
   */
  restoreHeld(p: ChatSubmit & { enqueuedAt?: number }): string {
    return this.queues.restoreHeld(p.sessionKey, p.message, { meta: metaOf(p), runId: p.runId, enqueuedAt: p.enqueuedAt })
  }

  /** Releases held messages (these ids, else all); returns the ids released. */
  release(sessionKey: string, ids?: string[]): string[] {
    return this.queues.release(sessionKey, ids)
  }

  /** Puts waiting messages in the order of `ids` (see SessionQueues.reorder); returns the waiting ids in order. */
  reorder(sessionKey: string, ids: string[]): string[] {
    return this.queues.reorder(sessionKey, ids)
  }

  /** Removes every waiting message; returns the run ids they would have had. */
  clear(sessionKey: string, reason = 'cleared'): string[] {
    return this.queues.clear(sessionKey, reason).flatMap((i) => (i.runId ? [i.runId] : []))
  }

  /** A provider was renamed: the waiting messages' recorded models follow it (see moveRunModels). */
  renameProvider(from: string, to: string): number {
    let moved = 0
    this.queues.forEachMeta((m) => {
      if (m && typeof m === 'object' && moveRunModels(m as Meta, from, to)) moved++
    })
    return moved
  }

  queuedCount(sessionKey: string): number {
    return this.queues.pendingCount(sessionKey)
  }

  dispose(): void {
    this.queues.dispose()
  }
}
