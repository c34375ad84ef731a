// A run is serialized per session and capped globally (OpenClaw §6.1): enqueue in the session lane
// (one run at a time), and only inside it in the global lane. The session slot is held while waiting
// for a global slot, so a second run of the same session can never overtake the first.
import type { ResolvedConfig } from '../contracts'
import type { CommandQueue } from './command-queue'

export const GLOBAL_LANE = 'main'
export const DEFAULT_MAX_CONCURRENT = 4

/** Lane name of a session (`session:<key>`); keys that already carry the prefix are kept. */
export const sessionLane = (key: string): string => (key.startsWith('session:') ? key : `session:${key}`)

export interface LaneWait {
  /** time spent queued behind other runs of the same session */
  sessionWaitMs: number
  /** time spent waiting for a global slot once the session slot was held */
  globalWaitMs: number
  /** runs queued ahead in the session lane / global lane when this one was enqueued */
  sessionQueuedAhead: number
  globalQueuedAhead: number
}

/** Why a run did not start at once: its session's lane is busy, or every global slot is taken. */
export type LaneQueued =
  | { lane: 'session'; ahead: number }
  | { lane: 'global'; running: number; limit: number; ahead: number }

export interface RunInLanesOptions {
  /** diagnostics once the task starts (same object the task receives) */
  onWait?: (wait: LaneWait) => void
  /** the run has to wait (called when it is queued, once per lane it waits in; never when it starts at once) */
  onQueued?: (queued: LaneQueued) => void
  warnAfterMs?: number
  /** aborting while queued (in either lane) rejects with AbortError and frees the place */
  signal?: AbortSignal
  /**
   * Aborted while it waited in the session lane: the place there is kept and this runs in it (after the
   * session's earlier run, before its later ones; `CommandQueue` `inPlaceOfAborted`). The rejection is still at once.
   */
  inPlaceOfAborted?: () => unknown
}

export function runInLanes<T>(
  queue: CommandQueue,
  sessionKey: string,
  globalLane: string = GLOBAL_LANE,
  task: (wait: LaneWait) => Promise<T>,
  opts: RunInLanesOptions = {},
): Promise<T> {
  const wait: LaneWait = { sessionWaitMs: 0, globalWaitMs: 0, sessionQueuedAhead: 0, globalQueuedAhead: 0 }
  // a free lane starts its task synchronously: not started right after enqueue means it waits
  let sessionStarted = false
  const queued = (q: LaneQueued) => {
    try {
      opts.onQueued?.(q)
    } catch {
      // a notice: never breaks the run
    }
  }
  const lane = sessionLane(sessionKey)
  const run = queue.enqueue(
    lane,
    () => {
      sessionStarted = true
      let globalStarted = false
      const p = queue.enqueue(
        globalLane,
        () => {
          globalStarted = true
          if (opts.onWait) opts.onWait(wait)
          return task(wait)
        },
        {
          warnAfterMs: opts.warnAfterMs,
          signal: opts.signal,
          onWait: (ms, ahead) => {
            wait.globalWaitMs = ms
            wait.globalQueuedAhead = ahead
          },
        },
      )
      if (!globalStarted) {
        queued({ lane: 'global', running: queue.active(globalLane), limit: queue.concurrency(globalLane), ahead: Math.max(0, queue.size(globalLane) - 1) })
      }
      return p
    },
    {
      warnAfterMs: opts.warnAfterMs,
      signal: opts.signal,
      inPlaceOfAborted: opts.inPlaceOfAborted,
      onWait: (ms, ahead) => {
        wait.sessionWaitMs = ms
        wait.sessionQueuedAhead = ahead
      },
    },
  )
  if (!sessionStarted && !opts.signal?.aborted && opts.onQueued) queued({ lane: 'session', ahead: Math.max(0, queue.size(lane) - 1) })
  return run
}

/** Applies the configured global concurrency (`agents.defaults.maxConcurrent`, default 4). */
export function applyLaneConcurrency(queue: CommandQueue, config?: Pick<ResolvedConfig, 'defaults'>, globalLane = GLOBAL_LANE): void {
  queue.setConcurrency(globalLane, config?.defaults.maxConcurrent ?? DEFAULT_MAX_CONCURRENT)
}
