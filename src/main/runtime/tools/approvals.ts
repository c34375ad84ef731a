// Exec approval broker: a tool asks, the UI / gateway answers through the runtime API
// (exec.approval.resolve). Unanswered requests are denied on timeout or when the run is aborted.
import { randomUUID } from 'node:crypto'
import type { ApprovalDecision, ExecApprovalRequest, ExecApprovalResolved } from '../../../shared/events'
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

interface Pending {
  req: ExecApprovalRequest
  finish(decision: ApprovalDecision, by: ExecApprovalResolved['resolvedBy']): ExecApprovalResolved
}

const DECISIONS: readonly ApprovalDecision[] = ['allow-once', 'allow-always', 'deny']

export class ApprovalBroker implements ApprovalBrokerLike, DetailedApprovals {
  private readonly pendingById = new Map<string, Pending>()
  /** sessionKey → commands the user allowed "always" (memory only: a restart asks again) */
  private readonly sessionAllow = new Map<string, Set<string>>()

  constructor(private readonly opts: ApprovalBrokerOptions) {}

  /** True when the user answered allow-always for exactly this command in this session. */
  isAllowedAlways(sessionKey: string, command: string): boolean {
    return this.sessionAllow.get(sessionKey)?.has(command.trim()) ?? false
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
        finish: (decision, by) => {
          this.pendingById.delete(full.id)
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          if (decision === 'allow-always') {
            let set = this.sessionAllow.get(full.sessionKey)
            if (!set) this.sessionAllow.set(full.sessionKey, (set = new Set()))
            set.add(full.command.trim())
          }
          const resolved: ExecApprovalResolved = {
            id: full.id,
            runId: full.runId,
            sessionKey: full.sessionKey,
            decision,
            resolvedBy: by,
            ts: Date.now(),
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

  resolve(id: string, decision: ApprovalDecision): ExecApprovalResolved {
    if (!DECISIONS.includes(decision)) {
      throw new ApiError('INVALID_REQUEST', `invalid decision "${String(decision)}" (expected ${DECISIONS.join(' | ')})`)
    }
    const entry = this.pendingById.get(id)
    if (!entry) throw new ApiError('APPROVAL_NOT_FOUND', `no pending exec approval with id ${id} (it may have expired or been answered)`)
    return entry.finish(decision, 'user')
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
