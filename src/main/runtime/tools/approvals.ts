// Exec approval broker: a tool asks, the UI / gateway answers through the runtime API
// (exec.approval.resolve). Unanswered requests are denied on timeout or when the run is aborted.
import { randomUUID } from 'node:crypto'
import type { ApprovalDecision, ApprovalReviewer, ExecApprovalRequest, ExecApprovalResolved } from '../../../shared/events'
import { ApiError } from '../../api/errors'
import type { ApprovalBrokerLike } from '../contracts'

export type ApprovalEvent =
  | { event: 'exec.approval.requested'; payload: ExecApprovalRequest }
  | { event: 'exec.approval.resolved'; payload: ExecApprovalResolved }

export interface ApprovalBrokerOptions {
  emit(event: ApprovalEvent): void
  timeoutMs: number
}

export type ApprovalRequestInput = Omit<ExecApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>

export interface ApprovalOutcome {
  decision: ApprovalDecision
  resolvedBy: ExecApprovalResolved['resolvedBy'] | 'allowlist'
}

/** Optional extension of ApprovalBrokerLike: tells a timeout apart from a user's deny. */
export interface DetailedApprovals {
  requestDetailed(req: ApprovalRequestInput, signal?: AbortSignal): Promise<ApprovalOutcome>
}

/** What exec.approval.resolve may add to a decision (OpenClaw v4). */
export interface ResolveOptions {
  /** recorded on the resolved event as stated (Loopdesk has no channels whose custody it could check) */
  reviewer?: ApprovalReviewer
  /** allow-always only: the allowance ends after this many days (else with the session or the process) */
  grantExpiresInDays?: number
}

const DAY_MS = 86_400_000

interface Pending {
  req: ExecApprovalRequest
  finish(decision: ApprovalDecision, by: ExecApprovalResolved['resolvedBy'], opts?: ResolveOptions): ExecApprovalResolved
}

const DECISIONS: readonly ApprovalDecision[] = ['allow-once', 'allow-always', 'deny']

export class ApprovalBroker implements ApprovalBrokerLike, DetailedApprovals {
  private readonly pendingById = new Map<string, Pending>()
  /**
   * sessionKey → command → when the user's allow-always ends (undefined: with the session's reset or the
   * process; memory only: a restart asks again)
   */
  private readonly sessionAllow = new Map<string, Map<string, number | undefined>>()

  constructor(private readonly opts: ApprovalBrokerOptions) {}

  /** True when the user answered allow-always for exactly this command in this session (and its term runs). */
  isAllowedAlways(sessionKey: string, command: string): boolean {
    const allowed = this.sessionAllow.get(sessionKey)
    const cmd = command.trim()
    if (!allowed?.has(cmd)) return false
    const until = allowed.get(cmd)
    if (until !== undefined && until <= Date.now()) {
      allowed.delete(cmd)
      return false
    }
    return true
  }

  /** Forget a session's allow-always list (e.g. on /new or /reset). */
  clearSession(sessionKey: string): void {
    this.sessionAllow.delete(sessionKey)
  }

  async request(req: ApprovalRequestInput, signal?: AbortSignal): Promise<ApprovalDecision> {
    return (await this.requestDetailed(req, signal)).decision
  }

  requestDetailed(req: ApprovalRequestInput, signal?: AbortSignal): Promise<ApprovalOutcome> {
    if (this.isAllowedAlways(req.sessionKey, req.command)) {
      return Promise.resolve({ decision: 'allow-always', resolvedBy: 'allowlist' })
    }
    if (signal?.aborted) return Promise.resolve({ decision: 'deny', resolvedBy: 'abort' })

    const createdAt = Date.now()
    const full: ExecApprovalRequest = {
      id: randomUUID(),
      runId: req.runId,
      sessionKey: req.sessionKey,
      toolCallId: req.toolCallId,
      command: req.command,
      cwd: req.cwd,
      createdAt,
      expiresAt: createdAt + this.opts.timeoutMs,
    }

    return new Promise<ApprovalOutcome>((resolve) => {
      const onAbort = () => entry.finish('deny', 'abort')
      const timer = setTimeout(() => entry.finish('deny', 'timeout'), this.opts.timeoutMs)
      timer.unref?.()
      const entry: Pending = {
        req: full,
        finish: (decision, by, opts = {}) => {
          this.pendingById.delete(full.id)
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          const ts = Date.now()
          // OpenClaw: the grant term applies to allow-always only and is ignored with other decisions
          const grantExpiresAt = decision === 'allow-always' && opts.grantExpiresInDays !== undefined ? ts + Math.floor(opts.grantExpiresInDays) * DAY_MS : undefined
          if (decision === 'allow-always') {
            let allowed = this.sessionAllow.get(full.sessionKey)
            if (!allowed) this.sessionAllow.set(full.sessionKey, (allowed = new Map()))
            allowed.set(full.command.trim(), grantExpiresAt)
          }
          const resolved: ExecApprovalResolved = {
            id: full.id,
            runId: full.runId,
            sessionKey: full.sessionKey,
            decision,
            resolvedBy: by,
            ts,
            ...(opts.reviewer ? { reviewer: { ...opts.reviewer } } : {}),
            ...(grantExpiresAt !== undefined ? { grantExpiresAt } : {}),
          }
          this.safeEmit({ event: 'exec.approval.resolved', payload: resolved })
          resolve({ decision, resolvedBy: by })
          return resolved
        },
      }
      this.pendingById.set(full.id, entry)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.safeEmit({ event: 'exec.approval.requested', payload: full })
    })
  }

  resolve(id: string, decision: ApprovalDecision, opts: ResolveOptions = {}): ExecApprovalResolved {
    if (!DECISIONS.includes(decision)) {
      throw new ApiError('INVALID_REQUEST', `invalid decision "${String(decision)}" (expected ${DECISIONS.join(' | ')})`)
    }
    const entry = this.pendingById.get(id)
    if (!entry) throw new ApiError('APPROVAL_NOT_FOUND', `no pending exec approval with id ${id} (it may have expired or been answered)`)
    return entry.finish(decision, 'user', opts)
  }

  pending(sessionKey?: string): ExecApprovalRequest[] {
    const all = [...this.pendingById.values()].map((p) => p.req)
    return sessionKey ? all.filter((r) => r.sessionKey === sessionKey) : all
  }

  /** Deny every pending request (runtime shutdown). */
  denyAll(): void {
    for (const p of [...this.pendingById.values()]) p.finish('deny', 'abort')
  }

  private safeEmit(ev: ApprovalEvent): void {
    try {
      this.opts.emit(ev)
    } catch {
      // a failing listener must not leave the tool waiting forever or crash the run
    }
  }
}
