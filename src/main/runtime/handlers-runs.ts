// Run-related handlers: agent, agent.wait, chat.send, chat.abort (chat.history: handlers-history.ts).
import { ApiError, invalid } from '../api/errors'
import type { CallContext, Handlers } from '../api/dispatch'
import type { ParamsOf, ResultOf } from '../../shared/methods'
import {
  canonicalKey,
  checkExpectedSession,
  parseCommand,
  sanitizeChatMessage,
  resolveTarget,
  type RuntimeCore,
} from './handlers-context'
import { checkDelivery } from './delivery'
import { refuseBlank, refuseUnsupportedAgentParams, rejectControlChars } from './agent-request-checks'
import { abortSessionRuns, checkMayAbort, removeQueuedRun, resetSession } from './handlers-sessions'
import { BARE_RESET_PROMPT } from '../../shared/session-title'
import { newSessionId, assertSessionId } from './sessions'
import { KeyedSerializer } from './runner/keyed-serializer'
import { normalizeThinking } from './thinking'
import { newLifecycleRevision, rejectArchivedWork } from './session-lifecycle'
import type { SessionEntry } from './contracts'
import { messageWithAttachments, normalizeAttachments, removeAttachments, saveAttachments, type SavedAttachment } from './attachments'
import { checkRoutingContract, checkSendFence, sendFenceOf } from './chat-send-fence'
import type { RunInput } from './runner/embedded-runner'
import { acceptedRunOf } from './runner/accepted-run'
import { modelCommand } from './model-command'

type RunHandlers = Pick<Handlers, 'agent' | 'agent.wait' | 'chat.send' | 'chat.abort'>

/** Longest agent.wait (24 h); larger timeoutMs values are clamped to it. */
export const MAX_WAIT_MS = 86_400_000

/** Longest run budget a request may ask for (a year); larger values are clamped. */
const MAX_RUN_TIMEOUT_MS = 31_536_000_000

/** The journal field naming a message's saved attachments (absent without any). */
const mediaOf = (saved: SavedAttachment[]) => (saved.length ? { media: saved.map((s) => s.path) } : {})
/** The journal field with what the run was asked for (absent when nothing): a message restored later runs so. */
const runOf = (req: Parameters<typeof acceptedRunOf>[0]) => {
  const run = acceptedRunOf(req)
  return run ? { run } : {}
}

/**
 * The session's chosen model as the message is accepted (null: none): its run uses this one, so a model change
 * (/model, sessions.patch) applies to the messages accepted after it, never to one that waits its turn.
 */
const acceptedModel = (core: RuntimeCore, key: string, agentId: string): string | null => core.store(agentId).get(key)?.modelOverride ?? null

function unavailableWhenShuttingDown(core: RuntimeCore): void {
  if (core.isShuttingDown()) throw new ApiError('UNAVAILABLE', 'Loopdesk is shutting down; not accepting new runs', undefined, true)
}

/** Creates the session entry if needed and stamps it (OpenClaw §2.2 step 10); an archived one takes no work. Returns whether it was new. */
async function persistSessionMeta(
  core: RuntimeCore,
  key: string,
  agentId: string,
  opts: { sessionId?: string; label?: string },
): Promise<{ entry: SessionEntry; created: boolean }> {
  if (opts.sessionId) assertSessionId(opts.sessionId)
  let created = false
  const now = Date.now()
  const entry = await core.store(agentId).update(key, (cur) => {
    created = !cur
    rejectArchivedWork(key, cur)
    // an existing session with nothing new: no write (the run's start update stamps updatedAt)
    if (cur && (opts.label === undefined || opts.label === cur.label)) return undefined
    const next: SessionEntry = cur
      ? { ...cur, updatedAt: now }
      : { sessionId: opts.sessionId ?? newSessionId(), lifecycleRevision: newLifecycleRevision(), createdAt: now, updatedAt: now, status: 'idle' }
    if (opts.label !== undefined) next.label = opts.label
    return next
  })
  return { entry: entry!, created }
}

export function runHandlers(core: RuntimeCore): RunHandlers {
  // messages of one session are accepted (acked, enqueued) strictly in the order they arrived
  const acceptOrder = new KeyedSerializer()
  async function acceptAgent(p: ParamsOf<'agent'>, ctx: CallContext): Promise<ResultOf<'agent'>> {
    const cacheKey = `agent:${p.idempotencyKey}`
    const cached = core.dedupe.get(cacheKey) as ResultOf<'agent'> | undefined
    if (cached) {
      ctx.replayed?.()
      return cached
    }
    unavailableWhenShuttingDown(core)
    rejectControlChars(p.message)
    checkDelivery(p)
    refuseUnsupportedAgentParams(p)
    // decoded and checked before anything is written (a bad attachment fails the call, nothing is saved)
    const decoded = normalizeAttachments(p.attachments)
    if (decoded.length === 0) refuseBlank(p.message, 'message must not be empty')
    refuseOtherMethodsKey(core, p.idempotencyKey, 'chat')
    if (core.tracked.has(p.idempotencyKey)) {
      ctx.replayed?.()
      return { runId: p.idempotencyKey, status: 'accepted', acceptedAt: Date.now() }
    }
    const thinking = normalizeThinking(p.thinking)
    const target = resolveTarget(core, p)
    const modelRef = p.model ? (p.model.includes('/') || !p.provider ? p.model : `${p.provider}/${p.model}`) : undefined
    if (modelRef) core.models().resolve(modelRef) // unknown models fail the call, not the run
    // what the run is asked for besides its message (journaled with it too)
    const runOpts = {
      thinking,
      timeoutMs: p.timeout !== undefined ? Math.min(p.timeout * 1000, MAX_RUN_TIMEOUT_MS) : undefined,
      extraSystemPrompt: p.extraSystemPrompt,
      ...(p.bootstrapContextMode === 'lightweight' ? { bootstrapContextMode: 'lightweight' as const } : {}),
      lane: p.lane,
      model: modelRef,
    }
    // the time the client was told (the socket thread's ack), so a retry's cached ack and the journal agree with it
    const acceptedAt = ctx.ackedAt ?? Date.now()
    const accepted: ResultOf<'agent'> = { runId: p.idempotencyKey, status: 'accepted', acceptedAt }
    core.dedupe.set(cacheKey, accepted)

    return core.accepting.track('agent', p.idempotencyKey, target.key, acceptOrder.run(target.key, async () => {
      let message = p.message
      // through agent only /new and /reset act (as OpenClaw); /stop and /model are text here
      const parsed = parseCommand(message)
      const cmd = parsed && (parsed.command === 'new' || parsed.command === 'reset') ? { command: parsed.command, rest: parsed.rest } : undefined
      let saved: SavedAttachment[] = []
      let sessionModel: string | null
      try {
        // checked inside the session's accept order, so no earlier message can rotate it in between
        checkExpectedSession(core, target.key, target.agentId, p.expectedExistingSessionId)
        if (cmd) {
          await persistSessionMeta(core, target.key, target.agentId, { label: p.label })
          await resetSession(core, target.key, target.agentId, cmd.command)
          message = cmd.rest || BARE_RESET_PROMPT
        } else {
          const { created } = await persistSessionMeta(core, target.key, target.agentId, { sessionId: target.sessionId, label: p.label })
          if (created) core.sessionChanged(target.key, 'create')
        }
        // attachments and message on disk before the ack: a crash before the run writes the transcript loses neither
        saved = saveAttachments(core.stateDir, decoded)
        message = messageWithAttachments(message, saved)
        sessionModel = acceptedModel(core, target.key, target.agentId)
        core.accepted(target.agentId).accept({ runId: p.idempotencyKey, sessionKey: target.key, text: message, at: acceptedAt, ...mediaOf(saved), ...runOf({ ...runOpts, sessionModel, attachments: saved }) })
      } catch (err) {
        removeAttachments(saved)
        core.dedupe.delete(cacheKey)
        throw err
      }
      core.sessionChanged(target.key, 'send', p.idempotencyKey)
      // an inbound user message like chat.send's (spec §6), whichever client sent it; a bare /new's stand-in
      // prompt is not one
      if (!(cmd && !cmd.rest)) {
        core.hooks.messageReceived?.({ sessionKey: target.key, agentId: target.agentId, content: message, runId: p.idempotencyKey })
      }
      core.startRun(
        {
          runId: p.idempotencyKey,
          sessionKey: target.key,
          agentId: target.agentId,
          message,
          acceptedAt,
          ...runOpts,
          sessionModel,
          ...(saved.length ? { attachments: saved } : {}),
        },
        'agent',
      )
      return accepted
    }))
  }

  return {
    async agent(p, ctx) {
      // the gateway's socket thread acked it already: a refusal now ends, as a failed run, the run the client was told of
      return ctx.ackedAt === undefined ? acceptAgent(p, ctx) : acceptAgent(p, ctx).catch((err: unknown) => failAckedRun(core, p, err))
    },

    async 'agent.wait'(p, ctx) {
      // any timeoutMs ≥ 0 is accepted (OpenClaw); longer than a day is clamped (timer range, and no
      // client waits that long on one request)
      const res = await core.runs.waitForAgentJob(p.runId, Math.min(p.timeoutMs ?? 30_000, MAX_WAIT_MS), ctx.signal)
      // the wait ran out while the message still waits its turn (OpenClaw v4; the gateway says timeout to v3)
      if (res.status === 'timeout' && res.endedAt === undefined && runIsQueued(core, p.runId)) {
        return { runId: p.runId, status: 'pending', timeoutPhase: 'queue', providerStarted: false }
      }
      return res
    },

    async 'chat.send'(p, ctx) {
      const cacheKey = `chat:${p.idempotencyKey}`
      const cached = core.dedupe.get(cacheKey) as ResultOf<'chat.send'> | undefined
      if (cached) {
        ctx.replayed?.()
        return replayChatSend(core, p.idempotencyKey, cached)
      }
      // a retry while the first call is still being accepted gets the first call's answer (one message, one run)
      const inAccept = core.accepting.inProgress('chat', p.idempotencyKey) as Promise<ResultOf<'chat.send'>> | undefined
      if (inAccept) {
        ctx.replayed?.()
        return inAccept
      }
      refuseOtherMethodsKey(core, p.idempotencyKey, 'agent')
      p = { ...p, message: sanitizeChatMessage(p.message) }
      const thinking = normalizeThinking(p.thinking)
      const timeoutMs = p.timeoutMs === undefined ? undefined : Math.min(p.timeoutMs, MAX_RUN_TIMEOUT_MS)
      const { key, agentId } = canonicalKey(core, p.sessionKey, p.agentId)
      // decoded and checked before anything is written (a bad attachment fails the call, nothing is saved)
      const decoded = normalizeAttachments(p.attachments)
      const input = runInputOf(p)
      const speed = {
        ...(p.fastMode !== undefined ? { fastMode: p.fastMode } : {}),
        ...(p.fastAutoOnSeconds !== undefined ? { fastAutoOnSeconds: p.fastAutoOnSeconds } : {}),
      }
      // preconditions (chat-send-fence.ts): refused before anything is written
      checkRoutingContract(core, p.expectedSessionRoutingContract)
      const fence = sendFenceOf(p)
      const cmd = p.suppressCommandInterpretation ? undefined : parseCommand(p.message)
      if (cmd?.command === 'stop') {
        checkSendFence(core, key, agentId, fence, { command: true })
        // a message sent right before this /stop may still be being accepted: its run exists once that is done
        const accepting = core.accepting.settled(key)
        if (accepting) await accepting
        // abort the active run and clear everything queued behind it (a caller who may stop only its own runs:
        // those, and the queue stays)
        const runIds = abortSessionRuns(core, key, { includeQueued: true, reason: 'stop', mayAbort: ctx.mayAbort })
        const queuedRunIds = ctx.mayAbort ? [] : (core.queueModes?.clear(key, 'stopped') ?? [])
        runIds.push(...queuedRunIds.filter((id) => !runIds.includes(id)))
        const cleared = ctx.mayAbort ? 0 : core.followups.clear(key) + queuedRunIds.length
        let hookMessages: string[] = []
        if (core.hooks.command) {
          try {
            hookMessages = (await core.hooks.command({ command: 'stop', sessionKey: key, agentId, abortedRunIds: runIds })) ?? []
          } catch (err) {
            console.warn('[runtime] command:stop hook failed:', err)
          }
        }
        const result: ResultOf<'chat.send'> = {
          status: 'command',
          ok: true,
          aborted: runIds.length > 0,
          runIds,
          messages: [runIds.length > 0 || cleared > 0 ? 'Stopped.' : 'Nothing to stop.', ...hookMessages],
        }
        core.dedupe.set(cacheKey, result)
        return result
      }
      if (cmd?.command === 'model') {
        checkSendFence(core, key, agentId, fence, { command: true })
        const rest = cmd.rest
        // in the session's accept order: a message sent just before it is accepted (and runs) with the old model
        return acceptOrder.run(key, async () => {
          const { created } = await persistSessionMeta(core, key, agentId, {})
          if (created) core.sessionChanged(key, 'create')
          const running = [...core.tracked.values()].some((t) => t.sessionKey === key)
          const messages = await modelCommand(core, key, agentId, rest, running)
          const result: ResultOf<'chat.send'> = { status: 'command', ok: true, messages, sessionKey: key }
          core.dedupe.set(cacheKey, result)
          return result
        })
      }
      // (not /stop or /model here; the closure below would lose that narrowing)
      const command = cmd ? { command: cmd.command, rest: cmd.rest } : undefined
      return core.accepting.track('chat', p.idempotencyKey, key, acceptOrder.run(key, async () => {
        unavailableWhenShuttingDown(core)
        // first as the session is now (a command below replaces it; nothing is written before this)
        checkSendFence(core, key, agentId, fence, { command: command !== undefined })
        let message = p.message
        if (command) {
          await persistSessionMeta(core, key, agentId, {})
          const out: { messages?: string[] } = {}
          await resetSession(core, key, agentId, command.command, out)
          if (!command.rest) {
            const result: ResultOf<'chat.send'> = {
              status: 'command',
              ok: true,
              messages: ['Started a new session.', ...(out.messages ?? [])],
              sessionKey: key,
            }
            core.dedupe.set(cacheKey, result)
            return result
          }
          message = command.rest
        }
        if (decoded.length === 0) refuseBlank(message, 'message or attachment required')
        const { created } = await persistSessionMeta(core, key, agentId, {})
        if (created) core.sessionChanged(key, 'create')
        // again in the synchronous step that accepts the message (journal, queue, run): no append can slip in
        // between (the session row write above may have yielded to a run of the session)
        if (!command) checkSendFence(core, key, agentId, fence)
        // attachments and message on disk before the ack (the message may wait in a queue): a crash must not lose them
        const saved = saveAttachments(core.stateDir, decoded)
        message = messageWithAttachments(message, saved)
        const sessionModel = acceptedModel(core, key, agentId)
        const journal = core.accepted(agentId)
        try {
          journal.accept({
            runId: p.idempotencyKey,
            sessionKey: key,
            text: message,
            at: Date.now(),
            ...mediaOf(saved),
            ...runOf({ thinking, timeoutMs, ...speed, input, sessionModel, attachments: saved }),
          })
        } catch (err) {
          removeAttachments(saved)
          throw err
        }
        core.sessionChanged(key, 'send', p.idempotencyKey)
        core.hooks.messageReceived?.({ sessionKey: key, agentId, content: message, runId: p.idempotencyKey })
        const attachments = saved.length ? { attachments: saved } : {}

        if (core.queueModes) {
          // queue modes decide: start now (idle), steer into the active run, queue, or interrupt it
          let queued: ResultOf<'chat.send'>
          try {
            queued = await core.queueModes.submit({
              sessionKey: key,
              agentId,
              message,
              runId: p.idempotencyKey,
              thinking,
              timeoutMs,
              queueMode: p.queueMode,
              sessionModel,
              ...speed,
              ...(input ? { input } : {}),
              ...attachments,
            })
          } catch (err) {
            journal.end(p.idempotencyKey) // refused: it will not run
            removeAttachments(saved)
            if ((err as Error)?.name === 'QueueFullError') throw new ApiError('UNAVAILABLE', (err as Error).message, undefined, true)
            throw err
          }
          core.dedupe.set(cacheKey, queued)
          return queued
        }

        const busy = [...core.tracked.values()].some((t) => t.sessionKey === key)
        const acceptedAt = Date.now()
        let itemId: string | undefined
        const run = core.startRun(
          {
            runId: p.idempotencyKey,
            sessionKey: key,
            agentId,
            message,
            acceptedAt,
            thinking,
            timeoutMs,
            sessionModel,
            ...speed,
            ...(input ? { input } : {}),
            ...attachments,
            onStart: () => {
              if (itemId) core.followups.settle(key, itemId, 'started')
            },
          },
          'chat',
        )
        let result: ResultOf<'chat.send'>
        if (busy) {
          // the session is busy: the run waits in the session lane behind the active one (followup)
          const item = core.followups.add(key, message, run.runId, p.queueMode ?? 'followup', () => run.controller.abort('removed'))
          itemId = item.id
          run.done.then((o) => {
            if (itemId) core.followups.settle(key, itemId, o.reason === 'error' ? 'failed' : 'started', o.error)
          })
          result = { runId: run.runId, status: 'queued', queueItemId: item.id }
        } else {
          result = { runId: run.runId, status: 'started' }
        }
        core.dedupe.set(cacheKey, result)
        return result
      }))
    },

    async 'chat.abort'(p, ctx) {
      const { key } = canonicalKey(core, p.sessionKey, p.agentId)
      // the run named (or the session's) may still be being accepted (a send right before this abort): its run
      // exists once the accept is done
      const accepting = core.accepting.settled(key, p.runId)
      if (accepting) await accepting
      if (p.runId) {
        const t = core.tracked.get(p.runId)
        if (t && t.sessionKey !== key) throw invalid('runId does not match sessionKey')
        checkMayAbort(core, key, p.runId, ctx.mayAbort)
        if (!t) {
          // a message queued behind the running reply: it leaves the queue and never runs
          const removed = removeQueuedRun(core, key, p.runId)
          return { ok: true, aborted: removed, runIds: removed ? [p.runId] : [] }
        }
      }
      // without a runId: the session's running reply; messages queued behind it then run (/stop or
      // sessions.abort clearQueued drop them)
      const runIds = abortSessionRuns(core, key, { runId: p.runId, includeQueued: p.runId !== undefined, mayAbort: ctx.mayAbort })
      return { ok: true, aborted: runIds.length > 0, runIds }
    },
  }
}

/** A run accepted but not started: queued behind its session's active run (queue modes or the lane). */
function runIsQueued(core: RuntimeCore, runId: string): boolean {
  if (core.queueModes?.isQueued?.(runId)) return true
  return core.tracked.has(runId) && core.runner.activeRun(runId) === undefined && !core.runs.isActive(runId)
}

/**
 * What chat.send says about its message besides the text (OpenClaw v4): the provenance (admin only, checked by
 * the gateway) and goal-start intent recorded on the user message, the source receipt told to the model.
 * toolBindings has nothing to bind to (Loopdesk has no browser-copilot tools) and is not carried.
 */
function runInputOf(p: ParamsOf<'chat.send'>): RunInput | undefined {
  // OpenClaw: a receipt with NUL is refused; other control characters (but tab/newline) go, then it is trimmed
  if (p.systemProvenanceReceipt?.includes('\u0000')) throw invalid('systemProvenanceReceipt must not contain null bytes')
  const receipt = p.systemProvenanceReceipt?.replace(/[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').trim()
  const input: RunInput = {
    ...(p.systemInputProvenance ? { provenance: p.systemInputProvenance } : {}),
    ...(p.intent ? { intent: p.intent } : {}),
    ...(receipt ? { receipt } : {}),
  }
  return Object.keys(input).length > 0 ? input : undefined
}

/**
 * `agent` and `chat.send` dedupe their keys apart (OpenClaw's `agent:` / `chat:` spaces), but a key is also its
 * run's id: one the other method used — its run going on, being accepted, or still remembered — would make a
 * second run with the same id (an `agent` call got the other session's run and reply; its own message never ran).
 * Refused, so the caller sends the message with a key of its own.
 */
function refuseOtherMethodsKey(core: RuntimeCore, key: string, other: 'agent' | 'chat') {
  const inUse = core.tracked.get(key)?.source === other || core.accepting.inProgress(other, key) !== undefined || core.dedupe.get(`${other}:${key}`) !== undefined
  if (!inUse) return
  const method = other === 'chat' ? 'chat.send' : 'agent'
  throw invalid(`idempotencyKey ${JSON.stringify(key)} is already the id of a run that ${method} started; send this message with a new key`, {
    code: 'IDEMPOTENCY_KEY_IN_USE',
  })
}

/**
 * A chat.send retried with a key already seen (OpenClaw dedupe): the command reply again; while its run is
 * queued or running, `in_flight`; once it has ended, how it ended (ok or error), never a second run.
 */
function replayChatSend(core: RuntimeCore, runId: string, cached: ResultOf<'chat.send'>): ResultOf<'chat.send'> {
  if (cached.status === 'command' || cached.status === 'ok' || cached.status === 'error') return cached
  if (core.tracked.has(runId)) return cached.status === 'started' ? { runId, status: 'in_flight' } : cached
  const ended = core.runs.snapshot(runId)
  if (!ended) return cached // ended longer ago than the run cache keeps; what was accepted is still true
  return { runId, status: ended.status === 'error' ? 'error' : 'ok' }
}

/**
 * An `agent` request the client was told was accepted (the gateway's socket thread acks before the runtime takes
 * it) and the runtime then could not take — the session write failed on a full disk, the session was archived in
 * the instant between: it ends as a failed run does, a lifecycle error (so event followers see the end, chat an
 * error) and an error final (agent.wait answers it); the gateway's second `res` carries the same error.
 */
function failAckedRun(core: RuntimeCore, p: ParamsOf<'agent'>, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err)
  const endedAt = Date.now()
  let sessionKey: string | undefined
  try {
    sessionKey = resolveTarget(core, p).key
  } catch {
    // a target that does not resolve: the event goes without a session
  }
  core.recordFinal({ runId: p.idempotencyKey, status: 'error', summary: message })
  core.bus.emit({
    runId: p.idempotencyKey,
    ...(sessionKey !== undefined ? { sessionKey } : {}),
    stream: 'lifecycle',
    data: { phase: 'error', error: message, endedAt, errorKind: 'unknown', executionSettled: true },
  })
  throw err
}
