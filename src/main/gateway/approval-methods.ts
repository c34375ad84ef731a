// OpenClaw's `exec.approval.list` and `exec.approval.get` (scope operator.approvals): how its Control UI and apps
// find the approvals that wait after they (re)connect, and what one asks. Answered from the approvals this
// gateway saw requested and not yet resolved (SessionApprovalFeed); the runtime's own list is per session only.
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import { approvalGetResult, approvalListEntry } from './approval-wire'
import { badParams, paramsOrEmpty } from './device-token-methods'
import { SCOPES } from './protocol'
import type { LocalMethod } from './requests'
import type { SessionApprovalFeed } from './session-approvals'

const ListParams = Compile(Type.Object({}, { additionalProperties: false }))
const GetParams = Compile(Type.Object({ id: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))

export function approvalMethods(feed: SessionApprovalFeed): Record<string, LocalMethod> {
  return {
    'exec.approval.list': {
      scope: SCOPES.approvals,
      handle(_conn, raw) {
        const params = paramsOrEmpty(raw)
        if (!ListParams.Check(params)) return badParams('exec.approval.list', ListParams, params)
        return { ok: true, payload: feed.pending().map(approvalListEntry) }
      },
    },
    'exec.approval.get': {
      scope: SCOPES.approvals,
      handle(_conn, raw) {
        const params = paramsOrEmpty(raw)
        if (!GetParams.Check(params)) return badParams('exec.approval.get', GetParams, params)
        const req = feed.get(params.id)
        // OpenClaw's answer for an id that is not (or no longer) waiting
        if (!req) return { ok: false, error: { code: 'INVALID_REQUEST', message: 'unknown or expired approval id', details: { reason: 'APPROVAL_NOT_FOUND' } } }
        return { ok: true, payload: approvalGetResult(req) }
      },
    },
  }
}
