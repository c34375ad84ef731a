// The allow-always allowance and its OpenClaw v4 grant term (exec.approval.resolve grantExpiresInDays).
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ExecApprovalResolved } from '../../../shared/events'
import { ApprovalBroker } from './approvals'

afterEach(() => vi.useRealTimers())

function broker() {
  const resolved: ExecApprovalResolved[] = []
  const ids: string[] = []
  const b = new ApprovalBroker({
    timeoutMs: 60_000,
    emit: (e) => (e.event === 'exec.approval.requested' ? ids.push(e.payload.id) : resolved.push(e.payload)),
  })
  const ask = (command: string) => b.request({ runId: 'r', sessionKey: 'agent:main:main', toolCallId: 't', command, cwd: '/w' })
  return { b, resolved, ids, ask }
}

describe('allow-always with a grant term', () => {
  it('lets the command run unasked until the term ends, then asks again', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const { b, resolved, ids, ask } = broker()
    const first = ask('make deploy')
    b.resolve(ids[0], 'allow-always', { grantExpiresInDays: 2, reviewer: { channel: 'slack', accountId: 'a', senderId: 'u' } })
    await expect(first).resolves.toBe('allow-always')
    expect(resolved[0]).toMatchObject({ grantExpiresAt: 1_000_000 + 2 * 86_400_000, reviewer: { channel: 'slack', accountId: 'a', senderId: 'u' } })
    vi.setSystemTime(1_000_000 + 2 * 86_400_000 - 1)
    await expect(ask('make deploy')).resolves.toBe('allow-always')
    expect(ids).toHaveLength(1)
    vi.setSystemTime(1_000_000 + 2 * 86_400_000)
    const again = ask('make deploy')
    expect(ids).toHaveLength(2) // asked again
    b.resolve(ids[1], 'deny')
    await expect(again).resolves.toBe('deny')
  })

  it('without a term the allowance lasts until the session is reset; with allow-once or deny a term is ignored', async () => {
    vi.useFakeTimers({ now: 5_000 })
    const { b, resolved, ids, ask } = broker()
    const p1 = ask('ls')
    b.resolve(ids[0], 'allow-always')
    await p1
    vi.setSystemTime(5_000 + 3650 * 86_400_000)
    expect(b.isAllowedAlways('agent:main:main', 'ls')).toBe(true)
    b.clearSession('agent:main:main')
    expect(b.isAllowedAlways('agent:main:main', 'ls')).toBe(false)
    const p2 = ask('pwd')
    b.resolve(ids[1], 'allow-once', { grantExpiresInDays: 30 })
    await p2
    expect(resolved[1].grantExpiresAt).toBeUndefined()
    expect(b.isAllowedAlways('agent:main:main', 'pwd')).toBe(false)
  })
})
