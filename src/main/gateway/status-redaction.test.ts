// `status` over the gateway: an admin connection gets the state dir, the stores' paths and the recent sessions;
// a read-only one gets OpenClaw's non-sensitive summary (paths "[redacted]", none listed, no recent rows).
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import type { Results } from '../../shared/methods'

const TOKEN = 'status-redaction-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

describe('status by scope', () => {
  it('leaves paths and recent sessions out for a connection without operator.admin', async () => {
    const admin = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    await admin.request('agent', { sessionKey: 'agent:main:status-scope', message: 'hi', idempotencyKey: 'sr-1' })
    await admin.request('agent.wait', { runId: 'sr-1', timeoutMs: 10_000 })
    const full = (await admin.request('status', {})) as Results['status']
    expect(full.stateDir).toMatch(/^\//)
    expect(full.sessions.paths.length).toBeGreaterThan(0)
    expect(full.sessions.recent.map((r) => r.key)).toContain('agent:main:status-scope')

    const reader = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes: ['operator.read'] })
    const part = (await reader.request('status', {})) as Results['status']
    const text = JSON.stringify(part)
    expect(text).not.toContain(full.stateDir)
    expect(part.stateDir).toBe('[redacted]')
    expect(part.sessions.paths).toEqual([])
    expect(part.sessions.recent).toEqual([])
    expect(part.sessions.byAgent.every((a) => a.path === '[redacted]' && a.recent.length === 0)).toBe(true)
    // what is not sensitive stays: counts, health, the gateway's address
    expect(part.sessions.count).toBe(full.sessions.count)
    expect(part.activeRuns).toBe(0)
    expect(part.gateway?.port).toBe(full.gateway?.port)
    await reader.close()
    await admin.close()
  })
})
