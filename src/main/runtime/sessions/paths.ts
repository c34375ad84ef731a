// Where session state lives (OpenClaw §9.1): <stateDir>/agents/<agentId>/sessions/{sessions.json,<sessionId>.jsonl}.
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { invalid } from '../../api/errors'
import { isValidAgentId } from '../../../shared/session-key'

// Session ids reach file names and can come from clients (`agent` sessionId param): no separators, no dot-dot.
const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/
const ARCHIVE_REASON_RE = /^[a-z][a-z0-9_-]{0,31}$/

export const newSessionId = (): string => randomUUID()

export const isValidSessionId = (id: string): boolean => SESSION_ID_RE.test(id)

export function assertSessionId(id: string): string {
  if (!isValidSessionId(id)) throw invalid(`invalid sessionId ${JSON.stringify(id)}: use letters, digits, '-' or '_' (max 128)`)
  return id
}

export function assertAgentId(id: string): string {
  if (!isValidAgentId(id)) throw invalid(`invalid agentId ${JSON.stringify(id)}`)
  return id
}

export const sessionsDir = (stateDir: string, agentId: string): string =>
  path.join(stateDir, 'agents', assertAgentId(agentId), 'sessions')

export const sessionStorePath = (stateDir: string, agentId: string): string =>
  path.join(sessionsDir(stateDir, agentId), 'sessions.json')

export const transcriptFile = (dir: string, sessionId: string): string => path.join(dir, `${assertSessionId(sessionId)}.jsonl`)

/** `<id>.jsonl.<reason>.<timestamp>` — sortable, filesystem-safe timestamp. */
/** When an archived transcript's name (`<sessionId>.jsonl.<reason>.<ISO time>`) says it was archived, or undefined. */
export function archivedAt(name: string): number | undefined {
  const m = /\.jsonl\.[a-z][a-z0-9_-]{0,31}\.(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d)-(\d{3})Z$/.exec(name)
  if (!m) return undefined
  const t = Date.parse(`${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`)
  return Number.isFinite(t) ? t : undefined
}

export function archivedTranscriptFile(file: string, reason: string, now = new Date()): string {
  if (!ARCHIVE_REASON_RE.test(reason)) throw invalid(`invalid archive reason ${JSON.stringify(reason)}`)
  return `${file}.${reason}.${now.toISOString().replace(/[:.]/g, '-')}`
}
