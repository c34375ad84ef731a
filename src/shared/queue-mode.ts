// Queue mode names, as OpenClaw 2026.9.6 reads them (src/auto-reply/reply/queue/settings.ts: `normalizeQueueMode`
// for directives and config, `normalizePersistedQueueMode` for stored sessions). April's retired modes map as v4
// reads them: `queue` is steer (v4's default active-run steering) and `steer-backlog` — April's steer that also
// kept a follow-up — is followup. Shared by the runtime (sessions, config, queue settings) and the sessions.patch
// schema.
import type { QueueMode } from './events'

export const QUEUE_MODES: readonly QueueMode[] = ['steer', 'followup', 'collect', 'interrupt']

const ALIASES = {
  steering: 'steer',
  interrupts: 'interrupt',
  abort: 'interrupt',
  'follow-up': 'followup',
  'follow-ups': 'followup',
  followups: 'followup',
  coalesce: 'collect',
  // retired (April) names a stored session or an older config may still hold
  queue: 'steer',
  queued: 'steer',
  'steer-backlog': 'followup',
  'steer+backlog': 'followup',
  steer_backlog: 'followup',
} as const satisfies Record<string, QueueMode>

export type QueueModeName = QueueMode | keyof typeof ALIASES
/** every name taken: the four modes, then their aliases and retired names */
export const QUEUE_MODE_NAMES = [...QUEUE_MODES, ...Object.keys(ALIASES)] as readonly QueueModeName[]

/** the mode a name stands for (case and surrounding space ignored); undefined for anything else */
export function normalizeQueueMode(raw: unknown): QueueMode | undefined {
  if (typeof raw !== 'string') return undefined
  const m = raw.trim().toLowerCase()
  if ((QUEUE_MODES as readonly string[]).includes(m)) return m as QueueMode
  return Object.hasOwn(ALIASES, m) ? ALIASES[m as keyof typeof ALIASES] : undefined
}
