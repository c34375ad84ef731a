// Every snapshot shape the session approval feed (session-approvals.ts over shared/session-approval.ts)
// produces fits @openclaw/gateway-protocol's definitions.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import { describe, expect, it } from 'vitest'
import type { ExecApprovalRequest, ExecApprovalResolved } from '../../shared/events'
import { pendingApprovalSnapshot, terminalApprovalSnapshot } from '../../shared/session-approval'
import { SessionApprovalFeed } from './session-approvals'

const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(JSON.parse(fs.readFileSync(schemaFile, 'utf8')), 'openclaw')
function conforms(def: string, v: unknown): void {
  const check = ajv.getSchema(`openclaw#/definitions/${def}`)!
  expect(check(v) ? [] : check.errors, def).toEqual([])
}

const req: ExecApprovalRequest = {
  id: '0b7c6f7e-58b1-4a53-9b52-0d3f4e1b2c3d',
  runId: 'r1',
  sessionKey: 'agent:main:main',
  toolCallId: 't1',
  command: 'rm -rf build',
  cwd: '/home/me/secret-project',
  createdAt: 1000,
  expiresAt: 121_000,
}
const res = (o: Partial<ExecApprovalResolved>): ExecApprovalResolved => ({ id: req.id, runId: 'r1', sessionKey: req.sessionKey, decision: 'deny', resolvedBy: 'user', ts: 5000, ...o })

describe('session approval snapshots', () => {
  it('pending: the command, never the cwd; all three decisions; a deep-link path', () => {
    const p = pendingApprovalSnapshot(req)
    conforms('PendingApprovalSnapshot', p)
    expect(p).toEqual({
      id: req.id,
      urlPath: `/approvals/${req.id}`,
      createdAtMs: 1000,
      expiresAtMs: 121_000,
      presentation: { kind: 'exec', commandText: 'rm -rf build', agentId: 'main', allowedDecisions: ['allow-once', 'allow-always', 'deny'] },
      status: 'pending',
    })
    conforms('SessionApprovalEvent', { sessionKey: req.sessionKey, updatedAtMs: 1000, phase: 'pending', approval: p })
  })

  it.each([
    [res({ decision: 'allow-once' }), { status: 'allowed', decision: 'allow-once', reason: 'user' }],
    [res({ decision: 'allow-always', reviewer: { channel: 'c', accountId: 'a', senderId: 's' } }), { status: 'allowed', decision: 'allow-always', resolver: { kind: 'channel', id: 'c:a:s' } }],
    [res({ decision: 'deny' }), { status: 'denied', decision: 'deny', reason: 'user' }],
    [res({ resolvedBy: 'timeout' }), { status: 'expired', reason: 'timeout' }],
    [res({ resolvedBy: 'abort' }), { status: 'cancelled', reason: 'run-aborted' }],
  ])('terminal %#: %j', (r, expected) => {
    const t = terminalApprovalSnapshot(req, r)
    expect(t).toMatchObject({ ...expected, resolvedAtMs: 5000 })
    conforms('TerminalApprovalSnapshot', t)
    conforms('SessionApprovalEvent', { sessionKey: req.sessionKey, updatedAtMs: 5000, phase: 'terminal', approval: t })
  })
})

describe('SessionApprovalFeed', () => {
  it('pairs each resolution with its request; one it never saw gives no event', () => {
    const feed = new SessionApprovalFeed()
    expect(feed.resolved(res({}))).toBeUndefined()
    expect(feed.requested(req)).toMatchObject({ sessionKey: req.sessionKey, updatedAtMs: 1000, phase: 'pending' })
    expect(feed.resolved(res({ decision: 'allow-once' }))).toMatchObject({ phase: 'terminal', updatedAtMs: 5000, approval: { status: 'allowed' } })
    expect(feed.resolved(res({}))).toBeUndefined() // once only
  })
})
