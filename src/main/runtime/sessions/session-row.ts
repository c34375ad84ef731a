import type { SessionRow } from '../../../shared/methods'
import type { SessionEntry } from '../contracts'

const OPTIONAL_FIELDS = [
  'label',
  'activeRunId',
  'startedAt',
  'endedAt',
  'runtimeMs',
  'model',
  'modelProvider',
  'thinkingLevel',
  'verboseLevel',
  'reasoningLevel',
  'queueMode',
  'lastMessagePreview',
  'lastError',
] as const satisfies ReadonlyArray<keyof SessionEntry & keyof SessionRow>

/** The wire shape of a session (sessions.list etc.): totals default to 0, status to idle. */
export function toSessionRow(key: string, entry: SessionEntry, agentId: string): SessionRow {
  const row: SessionRow = {
    key,
    sessionId: entry.sessionId,
    agentId,
    updatedAt: entry.updatedAt,
    status: entry.status ?? 'idle',
    inputTokens: entry.inputTokens ?? 0,
    outputTokens: entry.outputTokens ?? 0,
    totalTokens: entry.totalTokens ?? (entry.inputTokens ?? 0) + (entry.outputTokens ?? 0),
    estimatedCostUsd: entry.estimatedCostUsd ?? 0,
    compactionCount: entry.compactionCount ?? 0,
  }
  const out = row as unknown as Record<string, unknown>
  for (const f of OPTIONAL_FIELDS) if (entry[f] !== undefined) out[f] = entry[f]
  return row
}
