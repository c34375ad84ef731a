// chat.send's preconditions (OpenClaw v4): a send applies only to the session state its client saw. Each one
// refuses the send before anything is written (no transcript line, no journal entry, no run):
//
// - `sessionId`: the session's current incarnation (a reset or delete changes it) → "Session <key> changed
//   before send. Retry." (details.reason `session-changed`, as sessions.patch / sessions.delete fences).
// - `expectedLeafEntryId`: a compare-and-swap on the transcript. The leaf is the id (`__openclaw.id`) of the
//   newest message or compaction entry (run bookkeeping lines are not entries a client sees); null = none yet.
//   Transcripts only grow, so the send holds only when the message will directly follow that leaf: the session
//   must also have nothing in flight that will append first (a run that has not ended, a message waiting in its
//   queue). Checked in the same synchronous step that accepts the message, so no append can slip in between.
//   → "active branch changed; review and retry" (details.reason `active-leaf-changed`, OpenClaw's words). An
//   explicit `queueMode: "steer"` ignores it (OpenClaw: a steer joins the running turn by design).
// - `expectedPermissionMode`: the mode recorded on the session (sessions.patch / sessions.create), null when
//   none is. `expectedToolOverrides`: Loopdesk sessions have no per-session tool overlay, so only an overlay
//   that overrides nothing matches (empty maps, empty deny lists, webSearch not false). Either → "Session
//   settings changed before send. Retry." (details.reason `session-settings-changed`).
// - `expectedSessionRoutingContract`: how a bare "main" resolves, OpenClaw's `<scope>|<mainKey>|<defaultAgent>`;
//   Loopdesk's is `per-sender|main|<config default agent>` (changes when the default agent does) → "session
//   routing changed; review and retry" (details.reason `session-routing-changed`).
import { invalid, type ApiError } from '../api/errors'
import type { ParamsOf, SessionToolOverrides } from '../../shared/methods'
import { MAIN_KEY, SESSION_SCOPE } from '../../shared/session-key'
import type { RuntimeCore } from './handlers-context'
import { sessionChangedError } from './session-lifecycle'
import { readTranscript } from './sessions/transcript-cache'

export const ACTIVE_LEAF_CHANGED_REASON = 'active-leaf-changed'
export const SESSION_SETTINGS_CHANGED_REASON = 'session-settings-changed'
export const SESSION_ROUTING_CHANGED_REASON = 'session-routing-changed'

/** The preconditions one chat.send carries (undefined members: not asked for). */
export interface SendFence {
  sessionId?: string
  /** null = the transcript has no entries yet */
  expectedLeafEntryId?: string | null
  expectedPermissionMode?: string | null
  expectedToolOverrides?: SessionToolOverrides | null
}

/** The fence of a chat.send, or undefined when it carries none the session state decides. */
export function sendFenceOf(p: ParamsOf<'chat.send'>): SendFence | undefined {
  const f: SendFence = {}
  if (p.sessionId !== undefined) f.sessionId = p.sessionId
  // a steer joins whatever turn is running: OpenClaw does not fence it on the leaf
  if (p.expectedLeafEntryId !== undefined && p.queueMode !== 'steer') f.expectedLeafEntryId = p.expectedLeafEntryId
  if (p.expectedPermissionMode !== undefined) f.expectedPermissionMode = p.expectedPermissionMode
  if (p.expectedToolOverrides !== undefined) f.expectedToolOverrides = p.expectedToolOverrides
  return Object.keys(f).length > 0 ? f : undefined
}

/** Loopdesk's session routing contract: every session is per agent, "main" = `agent:<default agent>:main`. */
export function sessionRoutingContract(core: RuntimeCore): string {
  return [SESSION_SCOPE, MAIN_KEY, core.config.current.defaultAgentId].join('|')
}

/** Refuses a send whose client resolved session keys under another routing (config-level, not per session). */
export function checkRoutingContract(core: RuntimeCore, expected: string | undefined): void {
  if (expected === undefined) return
  const current = sessionRoutingContract(core)
  if (expected.trim().toLowerCase() === current) return
  throw invalid('session routing changed; review and retry', {
    reason: SESSION_ROUTING_CHANGED_REASON,
    expectedSessionRoutingContract: expected,
    sessionRoutingContract: current,
  })
}

/** True when a tool overlay overrides nothing (OpenClaw's normalization: it would be stored as no overlay). */
export function overridesNothing(o: SessionToolOverrides | null): boolean {
  if (o === null) return true
  const empty = (m: Record<string, unknown> | undefined) => m === undefined || Object.keys(m).length === 0
  const noDenials = o.mcpToolsDeny === undefined || Object.values(o.mcpToolsDeny).every((names) => names.length === 0)
  return empty(o.mcpServers) && empty(o.skills) && noDenials && o.webSearch !== false
}

/**
 * The id of the transcript's newest message or compaction entry (what clients see as `__openclaw.id`), or
 * null when it has none (no session, or nothing written yet). Synchronous: callers rely on it not yielding.
 */
export function activeLeafEntryId(core: RuntimeCore, key: string, agentId: string): string | null {
  const store = core.store(agentId)
  const entry = store.get(key)
  if (!entry) return null
  const { entries } = readTranscript(store.transcriptPath(entry.sessionId))
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type === 'message' || e.type === 'compaction') return e.id
  }
  return null
}

/**
 * Whether something will append to the session's transcript before a message accepted now: a run that has not
 * ended (queued in its lanes or running; one whose lifecycle ended writes no more entries) or a message waiting
 * in the session's queue.
 */
export function sessionHasPendingWork(core: RuntimeCore, key: string): boolean {
  for (const t of core.tracked.values()) {
    if (t.sessionKey === key && !core.runs.snapshot(t.runId) && !core.runs.hasPendingError(t.runId)) return true
  }
  if (core.queueModes?.list(key).some((i) => i.status === 'queued')) return true
  return core.followups.list(key).some((i) => i.status === 'queued')
}

/**
 * Throws the precondition that does not hold, in OpenClaw's order (settings, then the leaf — which also fails on
 * another sessionId, as OpenClaw's does — then the sessionId alone). Synchronous, reads no stale copy: call it
 * in the same step that accepts the message. `command`: a `/stop`, `/new` or `/reset`, which acts on the session
 * as the client saw it but appends no message to it, so work in flight does not void the leaf.
 */
export function checkSendFence(core: RuntimeCore, key: string, agentId: string, f: SendFence | undefined, opts: { command?: boolean } = {}): void {
  if (!f) return
  const entry = core.store(agentId).get(key)
  const permissionMode = entry?.permissionMode ?? null
  if (f.expectedPermissionMode !== undefined && f.expectedPermissionMode !== permissionMode) {
    throw settingsChanged({ expectedPermissionMode: f.expectedPermissionMode, permissionMode })
  }
  if (f.expectedToolOverrides !== undefined && !overridesNothing(f.expectedToolOverrides)) {
    throw settingsChanged({ expectedToolOverrides: f.expectedToolOverrides, toolOverrides: null })
  }
  const sessionMatches = f.sessionId === undefined || f.sessionId === entry?.sessionId
  if (f.expectedLeafEntryId !== undefined) {
    const leaf = activeLeafEntryId(core, key, agentId)
    const busy = !opts.command && sessionHasPendingWork(core, key)
    if (!sessionMatches || leaf !== f.expectedLeafEntryId || busy) {
      throw invalid('active branch changed; review and retry', {
        reason: ACTIVE_LEAF_CHANGED_REASON,
        expectedLeafEntryId: f.expectedLeafEntryId,
        activeLeafEntryId: sessionMatches ? leaf : null,
        ...(busy && sessionMatches && leaf === f.expectedLeafEntryId ? { pendingWork: true } : {}),
      })
    }
  }
  if (!sessionMatches) {
    throw sessionChangedError(key, 'send', { expectedSessionId: f.sessionId, currentSessionId: entry?.sessionId ?? null })
  }
}

function settingsChanged(details: Record<string, unknown>): ApiError {
  return invalid('Session settings changed before send. Retry.', { reason: SESSION_SETTINGS_CHANGED_REASON, ...details })
}
