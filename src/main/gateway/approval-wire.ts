// Exec approvals as OpenClaw clients read them. OpenClaw's `exec.approval.requested` is `{id, request: {command,
// cwd, host, security, ask, agentId, resolvedPath, sessionKey, …}, createdAtMs, expiresAtMs}`, and its clients (the
// Control UI's and the apps' approval prompts) drop an event without `request.command` or the two times — so a
// Loopdesk approval never showed there. The gateway adds those fields next to Loopdesk's own (which the window's
// WebSocket bridge reads); `exec.approval.list` / `exec.approval.get` answer from the same record.
import type { ExecApprovalRequest } from '../../shared/events'
import { parseSessionKey } from '../../shared/session-key'

/** OpenClaw's ExecApprovalRequestPayload for a Loopdesk approval */
export interface OpenClawApprovalRequest {
  command: string
  cwd: string | null
  /** where the command runs: Loopdesk runs it on the gateway's machine, as OpenClaw's host "gateway" */
  host: 'gateway'
  security: null
  ask: null
  agentId: string | null
  resolvedPath: null
  sessionKey: string
  runId: string
  toolCallId: string
}

export type ApprovalRequestedWire = ExecApprovalRequest & {
  request: OpenClawApprovalRequest
  createdAtMs: number
  expiresAtMs: number
}

export function approvalRequestedWire(req: ExecApprovalRequest): ApprovalRequestedWire {
  return {
    ...req,
    request: {
      command: req.command,
      cwd: req.cwd || null,
      host: 'gateway',
      security: null,
      ask: null,
      agentId: parseSessionKey(req.sessionKey)?.agentId ?? null,
      resolvedPath: null,
      sessionKey: req.sessionKey,
      runId: req.runId,
      toolCallId: req.toolCallId,
    },
    createdAtMs: req.createdAt,
    expiresAtMs: req.expiresAt,
  }
}

/** OpenClaw's `exec.approval.list` entry */
export function approvalListEntry(req: ExecApprovalRequest) {
  const w = approvalRequestedWire(req)
  return { id: w.id, request: w.request, createdAtMs: w.createdAtMs, expiresAtMs: w.expiresAtMs }
}

/** OpenClaw's `exec.approval.get` result: what a reviewer sees before deciding */
export function approvalGetResult(req: ExecApprovalRequest) {
  return {
    id: req.id,
    commandText: req.command,
    commandPreview: null,
    allowedDecisions: ['allow-once', 'allow-always', 'deny'] as const,
    host: 'gateway' as const,
    nodeId: null,
    agentId: parseSessionKey(req.sessionKey)?.agentId ?? null,
    expiresAtMs: req.expiresAt,
  }
}
