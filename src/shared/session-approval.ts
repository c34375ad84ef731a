// OpenClaw v4's reviewer-safe approval snapshots, built from Loopdesk's exec approval events. A client that
// subscribes to a session's transcript with `includeApprovals: true` gets the session's pending approvals in
// the result (`approvalReplay`, SessionApprovalReplay) and each transition as a `session.approval` event
// (SessionApprovalEvent). Reviewer-safe means what OpenClaw's ExecApprovalPresentation allows: the command
// text, never the working directory or environment.
import type { ApprovalDecision, ExecApprovalRequest, ExecApprovalResolved } from './events'
import { parseSessionKey } from './session-key'

export interface ExecApprovalPresentation {
  kind: 'exec'
  commandText: string
  agentId?: string
  allowedDecisions: ApprovalDecision[]
}

interface SnapshotBase {
  id: string
  /** deep link of the approval (OpenClaw's Control UI path shape) */
  urlPath: string
  createdAtMs: number
  expiresAtMs: number
  presentation: ExecApprovalPresentation
}

export type PendingApprovalSnapshot = SnapshotBase & { status: 'pending' }

/** OpenClaw's resolver attribution: `channel` when a client resolved for a channel sender (`reviewer`). */
export interface ApprovalResolver {
  kind: 'device' | 'channel' | 'runtime' | 'system'
  id?: string
}

export type TerminalApprovalSnapshot = SnapshotBase & { resolvedAtMs: number; resolver?: ApprovalResolver } & (
    | { status: 'allowed'; decision: 'allow-once' | 'allow-always'; reason: 'user' }
    | { status: 'denied'; decision: 'deny'; reason: 'user' }
    | { status: 'expired'; reason: 'timeout' }
    | { status: 'cancelled'; reason: 'run-aborted' }
  )

export type SessionApprovalEvent =
  | { sessionKey: string; updatedAtMs: number; phase: 'pending'; approval: PendingApprovalSnapshot }
  | { sessionKey: string; updatedAtMs: number; phase: 'terminal'; approval: TerminalApprovalSnapshot }

export interface SessionApprovalReplay {
  sessionKey: string
  updatedAtMs: number
  approvals: PendingApprovalSnapshot[]
  truncated: boolean
}

/** every exec approval offers all three (deny is always there, as OpenClaw requires) */
const DECISIONS: ApprovalDecision[] = ['allow-once', 'allow-always', 'deny']

function base(req: ExecApprovalRequest): SnapshotBase {
  const agentId = parseSessionKey(req.sessionKey)?.agentId
  return {
    id: req.id,
    urlPath: `/approvals/${encodeURIComponent(req.id)}`,
    createdAtMs: req.createdAt,
    expiresAtMs: req.expiresAt,
    presentation: {
      kind: 'exec',
      commandText: req.command.trim() || '(empty command)',
      ...(agentId ? { agentId } : {}),
      allowedDecisions: [...DECISIONS],
    },
  }
}

export function pendingApprovalSnapshot(req: ExecApprovalRequest): PendingApprovalSnapshot {
  return { ...base(req), status: 'pending' }
}

/** The terminal state of `req` after `res` (a user decision, the timeout, or the run's abort). */
export function terminalApprovalSnapshot(req: ExecApprovalRequest, res: ExecApprovalResolved): TerminalApprovalSnapshot {
  const done = {
    ...base(req),
    resolvedAtMs: res.ts,
    ...(res.reviewer ? { resolver: { kind: 'channel' as const, id: `${res.reviewer.channel}:${res.reviewer.accountId}:${res.reviewer.senderId}` } } : {}),
  }
  if (res.resolvedBy === 'timeout') return { ...done, status: 'expired', reason: 'timeout' }
  if (res.resolvedBy === 'abort') return { ...done, status: 'cancelled', reason: 'run-aborted' }
  return res.decision === 'deny'
    ? { ...done, status: 'denied', decision: 'deny', reason: 'user' }
    : { ...done, status: 'allowed', decision: res.decision, reason: 'user' }
}
