// Block streaming as a runner hook: when `agents.defaults.blockStreamingDefault` is "on", each run gets a
// BlockStreamer fed with its pi events (through the runner's `agentEvent` hook, which runs before the run
// bridge, so pending text is flushed before a tool's start event). Blocks go out on the run's `block`
// stream with `source: "stream"` (the `message` tool's blocks carry `source: "message"`).
import type { ResolvedConfig, SessionEntry } from '../contracts'
import type { RunHookContext, RuntimeHooks } from '../runner/hooks'
import { BlockStreamer } from './block-streamer'
import type { ReasoningMode } from './reasoning'

export interface BlockStreamingHooksOptions {
  config(): ResolvedConfig
  /** the session entry (reasoningLevel) */
  sessionEntry?(agentId: string, sessionKey: string): SessionEntry | undefined
  logger?: { warn(msg: string): void }
}

export interface BlockStreamingHooks {
  hooks: Pick<RuntimeHooks, 'agentEvent'>
  /** drop a run's pending text (compaction retry) */
  reset(runId: string): void
  runEnded(runId: string): void
}

export function createBlockStreamingHooks(o: BlockStreamingHooksOptions): BlockStreamingHooks {
  // null: block streaming is off for this run (decided once, at its first event)
  const streamers = new Map<string, BlockStreamer | null>()

  const streamerFor = (ctx: RunHookContext): BlockStreamer | null => {
    let s = streamers.get(ctx.runId)
    if (s !== undefined) return s
    const d = o.config().defaults
    if (d.blockStreamingDefault !== 'on') {
      streamers.set(ctx.runId, null)
      return null
    }
    const entry = o.sessionEntry?.(ctx.agentId, ctx.sessionKey)
    const reasoningMode: ReasoningMode = entry?.reasoningLevel ?? d.reasoningDefault
    s = new BlockStreamer({
      breakMode: d.blockStreamingBreak,
      reasoningMode,
      emitBlock: (b) => ctx.emit('block', { ...b, source: 'stream' }),
      onError: (err) => o.logger?.warn(`[block-streaming] run ${ctx.runId}: ${(err as Error)?.message ?? String(err)}`),
    })
    streamers.set(ctx.runId, s)
    return s
  }

  return {
    hooks: {
      agentEvent(event, ctx) {
        const s = streamerFor(ctx)
        if (!s) return
        s.listener(event)
        // nothing may stay behind when the run ends (e.g. an aborted message without message_end)
        if (event.type === 'agent_end') s.flush()
      },
    },
    reset: (runId) => streamers.get(runId)?.reset(),
    runEnded: (runId) => void streamers.delete(runId),
  }
}
