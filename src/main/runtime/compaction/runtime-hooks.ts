// Compaction as the runner's hook points: `transformContext` (threshold check before every model request),
// `onContextOverflow` (one compaction + retry per run) and `compact` (sessions.compact, run in the session
// lane by the handler). One CompactionController per run, dropped when the run ends.
import type { AgentMessage } from '@earendil-works/pi-agent-core'
import type { ResolvedConfig, TranscriptEntry } from '../contracts'
import type { HookRegistry } from '../hooks/registry'
import type { ModelRegistry } from '../models'
import type { CompactOutcome, CompactRequest, RunHookContext, RuntimeHooks } from '../runner/hooks'
import { rebuildHistory } from '../runner/history'
import { acquireWriteLock, Transcript, type SessionStore } from '../sessions'
import { CompactionController, type CompactionEntry } from './controller'
import type { AnyMessage } from './estimate'
import { isContextOverflowError } from './overflow'
import { createStreamCompleter } from './summarize'

export interface CompactionHooksOptions {
  config(): ResolvedConfig
  models(): Pick<ModelRegistry, 'streamFn' | 'getApiKey' | 'resolve'>
  store(agentId: string): SessionStore
  /** plugin registry for before/after_compaction */
  plugins?: Pick<HookRegistry, 'runObserve'>
  /** before an overflow retry: reset the run's other buffers (block streaming) */
  resetRun?(runId: string): void
  logger?: { warn(msg: string): void; error(msg: string): void }
}

export interface CompactionHooks {
  hooks: Pick<RuntimeHooks, 'transformContext' | 'onContextOverflow' | 'compact'>
  /** forget a finished run's controller */
  runEnded(runId: string): void
  /** controller of a live run (tests, diagnostics) */
  controllerOf(runId: string): CompactionController<AnyMessage> | undefined
}

/** Summary of the newest compaction entry of a transcript (the one in force). */
export function lastCompactionSummary(entries: readonly TranscriptEntry[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type === 'compaction') return e.summary
  }
  return undefined
}

export function createCompactionHooks(o: CompactionHooksOptions): CompactionHooks {
  const controllers = new Map<string, CompactionController<AnyMessage>>()

  const bumpCount = async (agentId: string, sessionKey: string, sessionId: string) => {
    try {
      await o.store(agentId).update(sessionKey, (cur) =>
        cur && cur.sessionId === sessionId ? { ...cur, compactionCount: (cur.compactionCount ?? 0) + 1, updatedAt: Date.now() } : undefined,
      )
    } catch (err) {
      o.logger?.warn(`[compaction] could not update compactionCount of ${sessionKey}: ${(err as Error).message}`)
    }
  }

  const controllerFor = (ctx: RunHookContext): CompactionController<AnyMessage> => {
    let c = controllers.get(ctx.runId)
    if (c) return c
    const settings = o.config().defaults.compaction
    const model = ctx.model.model
    const registry = o.models()
    c = new CompactionController<AnyMessage>({
      contextWindow: model.contextWindow,
      reserveTokens: settings.reserveTokens,
      keepRecentTurns: settings.keepRecentTurns,
      complete: createStreamCompleter(registry.streamFn, model, { getApiKey: (p) => registry.getApiKey(p) }),
      runId: ctx.runId,
      sessionKey: ctx.sessionKey,
      emit: (data) => ctx.emit('compaction', data as unknown as Record<string, unknown>),
      hooks: o.plugins,
      hookContext: { runId: ctx.runId, agentId: ctx.agentId, sessionKey: ctx.sessionKey, sessionId: ctx.sessionId, workspaceDir: ctx.workspaceDir },
      persist: async (entry: CompactionEntry) => {
        await ctx.appendTranscript(entry)
        await bumpCount(ctx.agentId, ctx.sessionKey, ctx.sessionId)
      },
      entryIdOf: (m) => ctx.entryIdOf?.(m as unknown as AgentMessage),
      reset: () => o.resetRun?.(ctx.runId),
      loadPreviousSummary: async () => {
        const t = new Transcript(o.store(ctx.agentId).transcriptPath(ctx.sessionId))
        return lastCompactionSummary((await t.readAll()).entries)
      },
      signal: ctx.signal,
      logger: o.logger,
    })
    controllers.set(ctx.runId, c)
    return c
  }

  const hooks: CompactionHooks['hooks'] = {
    async transformContext(messages, ctx) {
      const c = controllerFor(ctx)
      return (await c.transform(messages as unknown as AnyMessage[])) as unknown as AgentMessage[]
    },

    async onContextOverflow(event, ctx) {
      const tooLarge = controllers.get(ctx.runId)?.tooLarge
      // a conversation too large to send (too-large.ts) gets the same one compaction + retry as a provider's
      // overflow; a message too large by itself gets none (no summary makes it fit)
      if (tooLarge === 'message') return { retry: false }
      if (!tooLarge && !isContextOverflowError(event.errorMessage, ctx.model.provider)) return { retry: false }
      const r = await controllerFor(ctx).handleOverflow(event.messages as unknown as AnyMessage[], event.errorMessage)
      return { retry: r.retry }
    },

    async compact(req: CompactRequest): Promise<CompactOutcome> {
      const cfg = o.config()
      const store = o.store(req.agentId)
      const entry = store.get(req.sessionKey) ?? req.entry
      const transcript = new Transcript(store.transcriptPath(entry.sessionId))
      if (!transcript.exists()) return { compacted: false, reason: 'the session has no history yet' }
      const agentModel = cfg.agents.find((a) => a.id === req.agentId)?.model
      let resolved
      try {
        resolved = o.models().resolve(entry.modelOverride ?? agentModel ?? cfg.defaults.model)
      } catch (err) {
        return { compacted: false, reason: `no model to summarize with: ${(err as Error).message}` }
      }
      const release = await acquireWriteLock(transcript.file)
      try {
        const read = await transcript.readAll()
        const history = rebuildHistory(read.entries)
        const ids = new WeakMap<object, string>()
        for (const e of read.entries) if (e.type === 'message') ids.set(e.message, e.id)
        const registry = o.models()
        const c = new CompactionController<AnyMessage>({
          contextWindow: resolved.model.contextWindow,
          reserveTokens: cfg.defaults.compaction.reserveTokens,
          keepRecentTurns: cfg.defaults.compaction.keepRecentTurns,
          complete: createStreamCompleter(registry.streamFn, resolved.model, { getApiKey: (p) => registry.getApiKey(p) }),
          sessionKey: req.sessionKey,
          hooks: o.plugins,
          hookContext: { agentId: req.agentId, sessionKey: req.sessionKey, sessionId: entry.sessionId },
          persist: async (e) => {
            await transcript.append(e)
            await bumpCount(req.agentId, req.sessionKey, entry.sessionId)
          },
          entryIdOf: (m) => ids.get(m),
          previousSummary: history.compactionSummary,
          logger: o.logger,
        })
        const r = await c.compactNow(history.messages as unknown as AnyMessage[], { instructions: req.instructions })
        return r.compacted
          ? { compacted: true, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter }
          : { compacted: false, reason: r.reason, tokensBefore: r.tokensBefore }
      } finally {
        await release().catch(() => undefined)
      }
    },
  }

  return {
    hooks,
    runEnded: (runId) => void controllers.delete(runId),
    controllerOf: (runId) => controllers.get(runId),
  }
}
