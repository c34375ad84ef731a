// `session.approval` events (OpenClaw v4) for connections that subscribed to a session's transcript with
// `includeApprovals: true`: each exec approval of the session as it is requested (phase pending) and as it
// ends (phase terminal: allowed, denied, expired, cancelled). A terminal snapshot repeats the request's
// details, so the requests this gateway saw are remembered until they end — which also answers OpenClaw's
// exec.approval.list / exec.approval.get (approval-methods.ts).
import type { ExecApprovalRequest, ExecApprovalResolved } from '../../shared/events'
import { pendingApprovalSnapshot, terminalApprovalSnapshot, type SessionApprovalEvent } from '../../shared/session-approval'

/** requests remembered at most (each leaves at its resolution; timeouts resolve every one eventually) */
const MAX_OPEN = 10_000

export class SessionApprovalFeed {
  private readonly open = new Map<string, ExecApprovalRequest>()

  requested(req: ExecApprovalRequest): SessionApprovalEvent {
    if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value!)
    this.open.set(req.id, req)
    return { sessionKey: req.sessionKey, updatedAtMs: req.createdAt, phase: 'pending', approval: pendingApprovalSnapshot(req) }
  }

  /** the requests still waiting for an answer, oldest first (exec.approval.list) */
  pending(): ExecApprovalRequest[] {
    return [...this.open.values()]
  }

  /** a request still waiting for an answer (exec.approval.get) */
  get(id: string): ExecApprovalRequest | undefined {
    return this.open.get(id)
  }

  /** The terminal event, or undefined for a request this gateway never saw (it started later). */
  resolved(res: ExecApprovalResolved): SessionApprovalEvent | undefined {
    const req = this.open.get(res.id)
    if (!req) return undefined
    this.open.delete(res.id)
    return { sessionKey: res.sessionKey, updatedAtMs: res.ts, phase: 'terminal', approval: terminalApprovalSnapshot(req, res) }
  }
}
