// Queue settings resolution: inline (chat.send queueMode) → session entry → config → built-in defaults.
import type { QueueMode } from '../../../shared/events'
import { normalizeQueueMode } from '../../../shared/queue-mode'

export type DropPolicy = 'old' | 'new' | 'summarize'

export interface QueueSettings {
  mode: QueueMode
  /** quiet window after the last queued message before a `collect` batch runs */
  debounceMs: number
  /** max messages waiting per session */
  cap: number
  drop: DropPolicy
}

export const DEFAULT_QUEUE_SETTINGS: QueueSettings = { mode: 'steer', debounceMs: 500, cap: 20, drop: 'summarize' }

export interface SessionQueueOverrides {
  /** as stored (an alias or a retired name is read as its mode) */
  queueMode?: string
  queueDebounceMs?: number
  queueCap?: number
  queueDrop?: DropPolicy
}

const DROPS: readonly DropPolicy[] = ['old', 'new', 'summarize']

/** OpenClaw's aliases and April's retired names (queue → steer, steer-backlog → followup, …): shared/queue-mode.ts */
export { normalizeQueueMode }

function posInt(v: unknown, min: number): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= min ? Math.floor(v) : undefined
}

export function resolveQueueSettings(
  config: Partial<QueueSettings> | undefined,
  session?: SessionQueueOverrides,
  inlineMode?: QueueMode,
): QueueSettings {
  const d = DEFAULT_QUEUE_SETTINGS
  return {
    mode: normalizeQueueMode(inlineMode) ?? normalizeQueueMode(session?.queueMode) ?? normalizeQueueMode(config?.mode) ?? d.mode,
    debounceMs: posInt(session?.queueDebounceMs, 0) ?? posInt(config?.debounceMs, 0) ?? d.debounceMs,
    cap: posInt(session?.queueCap, 1) ?? posInt(config?.cap, 1) ?? d.cap,
    drop:
      (DROPS as readonly unknown[]).includes(session?.queueDrop)
        ? (session!.queueDrop as DropPolicy)
        : (DROPS as readonly unknown[]).includes(config?.drop)
          ? (config!.drop as DropPolicy)
          : d.drop,
  }
}
