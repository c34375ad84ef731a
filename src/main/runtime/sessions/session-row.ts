import type { SessionKind, SessionRow } from '../../../shared/methods'
import { parseSessionKey } from '../../../shared/session-key'
import { normalizeQueueMode } from '../../../shared/queue-mode'
import { organisationRowFields } from '../../../shared/session-organisation'
import type { SessionEntry } from '../contracts'

const OPTIONAL_FIELDS = [
  'label',
  'displayName',
  'spawnedBy',
  'spawnDepth',
  'forkSource',
  'activeRunId',
  'startedAt',
  'endedAt',
  'runtimeMs',
  'model',
  'modelProvider',
  'modelOverride',
  'thinkingLevel',
  'verboseLevel',
  'reasoningLevel',
  'queueMode',
  'lastMessagePreview',
  'lastError',
  'fastMode',
  'permissionMode',
  'lifecycleRevision',
  'createdAt',
] as const satisfies ReadonlyArray<keyof SessionEntry & keyof SessionRow>

/**
 * OpenClaw session kind from the key (its classification rules, our key syntax): a `group`/`channel`
 * segment makes a group chat, the bare `global` rest is the global session, an unparsable key is unknown,
 * everything else — every session Loopdesk itself creates — is a direct one.
 */
export function sessionKind(key: string): SessionKind {
  const parsed = parseSessionKey(key)
  if (!parsed) return 'unknown'
  const parts = parsed.rest.split(':')
  if (parts.includes('group') || parts.includes('channel')) return 'group'
  if (parsed.rest === 'global') return 'global'
  return 'direct'
}

/**
 * The wire shape of a session (sessions.list etc.): totals default to 0. Status follows OpenClaw's enum:
 * idle has none, interrupted (the app died mid-run) is `failed` with `interrupted: true`.
 */
export function toSessionRow(key: string, entry: SessionEntry, agentId: string, now = Date.now()): SessionRow {
  const row: SessionRow = {
    key,
    kind: sessionKind(key),
    sessionId: entry.sessionId,
    agentId,
    updatedAt: entry.updatedAt,
    inputTokens: entry.inputTokens ?? 0,
    outputTokens: entry.outputTokens ?? 0,
    totalTokens: entry.totalTokens ?? (entry.inputTokens ?? 0) + (entry.outputTokens ?? 0),
    estimatedCostUsd: entry.estimatedCostUsd ?? 0,
    compactionCount: entry.compactionCount ?? 0,
  }
  const status = entry.status ?? 'idle'
  if (status === 'interrupted') {
    row.status = 'failed'
    row.interrupted = true
  } else if (status !== 'idle') row.status = status
  const out = row as unknown as Record<string, unknown>
  for (const f of OPTIONAL_FIELDS) if (entry[f] !== undefined) out[f] = entry[f]
  if (entry.forkSource) row.forkedFromParent = true
  // a stored alias or April's retired name (steer-backlog) shows as the mode the session runs with; an unknown
  // name is no mode of its own (the config's applies)
  if (entry.queueMode !== undefined) {
    const mode = normalizeQueueMode(entry.queueMode)
    if (mode) out.queueMode = mode
    else delete out.queueMode
  }
  // a completed run after the last read makes the session unread again (the status note may have expired)
  Object.assign(row, organisationRowFields(entry, entry.endedAt, now))
  return row
}
