// Exec approvals as an OpenClaw client reads them, over real sockets: `exec.approval.requested` carries OpenClaw's
// {id, request: {command, …}, createdAtMs, expiresAtMs} (its Control UI and apps drop an event without them) next
// to Loopdesk's own fields, and `exec.approval.list` / `exec.approval.get` (scope operator.approvals) answer what
// waits, until it is resolved.
import { afterEach, describe, expect, it } from 'vitest'
import type { EventFrameIn } from '../../cli/gateway-client'
import type { ExecApprovalRequest } from '../../shared/events'
import { until } from '../../../test/fixtures/until'
import { startTestGateway, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const req: ExecApprovalRequest = {
  id: 'ap-1',
  runId: 'run-1',
  sessionKey: 'agent:ops:main',
  toolCallId: 'call-1',
  command: 'rm -rf build',
  cwd: '/w/project',
  createdAt: 1_000,
  expiresAt: 121_000,
}

/** what OpenClaw's Control UI does with the event (its parseExecApprovalRequested): null = not shown */
function openClawParse(payload: any): { id: string; command: string; createdAtMs: number; expiresAtMs: number } | null {
  const id = typeof payload?.id === 'string' ? payload.id.trim() : ''
  const request = payload?.request
  if (!id || !request || typeof request !== 'object') return null
  const command = typeof request.command === 'string' ? request.command.trim() : ''
  const createdAtMs = typeof payload.createdAtMs === 'number' ? payload.createdAtMs : 0
  const expiresAtMs = typeof payload.expiresAtMs === 'number' ? payload.expiresAtMs : 0
  if (!command || !createdAtMs || !expiresAtMs) return null
  return { id, command, createdAtMs, expiresAtMs }
}

describe('exec approvals on the wire', () => {
  it('the requested event carries OpenClaw’s request and times, and keeps Loopdesk’s fields', async () => {
    t = await startTestGateway()
    const c = await t.connect({ scopes: ['operator.approvals'] })
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    t.host.emit({ event: 'exec.approval.requested', payload: req })
    await until(() => events.some((e) => e.event === 'exec.approval.requested'))
    const payload = events.find((e) => e.event === 'exec.approval.requested')!.payload as any
    expect(openClawParse(payload)).toEqual({ id: 'ap-1', command: 'rm -rf build', createdAtMs: 1_000, expiresAtMs: 121_000 })
    expect(payload.request).toEqual({
      command: 'rm -rf build',
      cwd: '/w/project',
      host: 'gateway',
      security: null,
      ask: null,
      agentId: 'ops',
      resolvedPath: null,
      sessionKey: 'agent:ops:main',
      runId: 'run-1',
      toolCallId: 'call-1',
    })
    // the window's WebSocket bridge reads these
    expect(payload).toMatchObject(req)
    await c.close()
  })

  it('exec.approval.list and exec.approval.get answer what waits; an answered one is gone', async () => {
    t = await startTestGateway()
    const c = await t.connect({ scopes: ['operator.approvals'] })
    expect(c.hello.features.methods).toEqual(expect.arrayContaining(['exec.approval.list', 'exec.approval.get']))
    await expect(c.request('exec.approval.list')).resolves.toEqual([])

    t.host.emit({ event: 'exec.approval.requested', payload: req })
    t.host.emit({ event: 'exec.approval.requested', payload: { ...req, id: 'ap-2', command: 'make deploy', sessionKey: 'agent:main:x' } })
    await until(async () => ((await c.request('exec.approval.list')) as unknown[]).length === 2)
    const list = (await c.request('exec.approval.list')) as any[]
    expect(list.map((e) => e.id)).toEqual(['ap-1', 'ap-2'])
    expect(list[0]).toEqual({ id: 'ap-1', request: expect.objectContaining({ command: 'rm -rf build', agentId: 'ops' }), createdAtMs: 1_000, expiresAtMs: 121_000 })
    expect(list.every((e) => openClawParse(e) !== null)).toBe(true)

    await expect(c.request('exec.approval.get', { id: 'ap-2' })).resolves.toEqual({
      id: 'ap-2',
      commandText: 'make deploy',
      commandPreview: null,
      allowedDecisions: ['allow-once', 'allow-always', 'deny'],
      host: 'gateway',
      nodeId: null,
      agentId: 'main',
      expiresAtMs: 121_000,
    })

    t.host.emit({ event: 'exec.approval.resolved', payload: { id: 'ap-2', runId: 'run-1', sessionKey: 'agent:main:x', decision: 'deny', resolvedBy: 'user', ts: 5_000 } })
    await until(async () => ((await c.request('exec.approval.list')) as unknown[]).length === 1)
    await expect(c.request('exec.approval.get', { id: 'ap-2' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'unknown or expired approval id',
      details: { reason: 'APPROVAL_NOT_FOUND' },
    })
    // closed params, as OpenClaw's schemas
    await expect(c.request('exec.approval.get', {})).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('invalid exec.approval.get params') })
    await expect(c.request('exec.approval.list', { all: true })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await c.close()
  })

  it('needs operator.approvals (the entries carry commands)', async () => {
    t = await startTestGateway()
    const reader = await t.connect({ scopes: ['operator.read', 'operator.write'] })
    await expect(reader.request('exec.approval.list')).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'missing scope: operator.approvals' })
    await expect(reader.request('exec.approval.get', { id: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await reader.close()
  })
})
