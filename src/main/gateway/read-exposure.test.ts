// What a client below admin learns of where the user's files are, method by method, against OpenClaw: a read-scoped
// client gets the store paths, recent session keys, config path and workspace that OpenClaw sends it too (health,
// hello's snapshot.health, sessions.list, config.get, agents.list — kept for compatibility, listed in
// ARCHITECTURE.md as known exposure); a client without operator.read (OpenClaw refuses it `health`) gets health's
// counts only, in `health` and in hello's snapshot. Real WebSocket clients against the real runtime.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import type { Results } from '../../shared/methods'

const TOKEN = 'read-exposure-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const KEY = 'agent:main:read-exposure'

const connect = (scopes?: string[], identity = generateNodeDeviceIdentity() as ReturnType<typeof generateNodeDeviceIdentity> | null) =>
  connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, ...(scopes ? { scopes } : {}) })

describe('paths and recent sessions by scope', () => {
  it('a read-scoped client gets what OpenClaw sends it; one without read gets health without paths or keys', async () => {
    const admin = await connect()
    await admin.request('sessions.create', { key: KEY })
    const full = (await admin.request('health', {})) as Results['health']
    const dir = env.stack.rt.stateDir
    expect(full.sessions.path.startsWith(dir)).toBe(true)
    expect(full.sessions.recent.map((r) => r.key)).toContain(KEY)

    // read: OpenClaw's fields as they are (its health collector, sessions.list, config.get and agents.list send them)
    const reader = await connect(['operator.read'])
    const h = (await reader.request('health', {})) as Results['health']
    expect(h.sessions.path).toBe(full.sessions.path)
    expect(h.sessions.recent.map((r) => r.key)).toContain(KEY)
    expect(h.agents[0]!.sessions.path).toBe(full.agents[0]!.sessions.path)
    expect((reader.hello.snapshot.health as Results['health']).sessions.path).toBe(full.sessions.path)
    expect(((await reader.request('sessions.list', {})) as { path: string }).path.startsWith(dir)).toBe(true)
    expect(((await reader.request('config.get', {})) as { path: string }).path.startsWith(dir)).toBe(true)
    expect(((await reader.request('agents.list', {})) as { agents: Array<{ workspace: string }> }).agents[0]!.workspace.startsWith(dir)).toBe(true)
    // what OpenClaw keeps to admin stays there (hello's stateDir/configPath; status: status-redaction.test.ts)
    expect(reader.hello.snapshot.stateDir).toBeUndefined()

    // below read: a paired approvals-only device, and a device-less token client (scopes cleared)
    for (const below of [await connect(['operator.approvals']), await connect(undefined, null)]) {
      const scopes = (below.hello.auth as { scopes: string[] }).scopes
      expect(scopes).not.toContain('operator.read')
      for (const health of [(await below.request('health', {})) as Results['health'], below.hello.snapshot.health as Results['health']]) {
        expect(JSON.stringify(health), JSON.stringify(scopes)).not.toContain(dir)
        expect(JSON.stringify(health)).not.toContain(KEY)
        expect(health.sessions).toMatchObject({ path: '[redacted]', recent: [], count: full.sessions.count })
        expect(health.agents.every((a) => a.sessions.path === '[redacted]' && a.sessions.recent.length === 0)).toBe(true)
        expect(health).toMatchObject({ ok: true, defaultAgentId: full.defaultAgentId })
      }
      await below.close()
    }
    await Promise.all([admin.close(), reader.close()])
  })
})
