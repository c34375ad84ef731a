// spawnedBy on v4 chat and agent events of a child session, over a real WebSocket with the real runtime
// behind the gateway: only for the session kinds OpenClaw reports a parent for (dashboard, subagent, ACP
// keys) and only on v4 — v3's April schemas are closed.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { until } from '../../../test/fixtures/until'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { mayHaveSpawner } from './spawned-by-wire'

const TOKEN = 'spawned-by-wire-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()

describe('mayHaveSpawner', () => {
  it('dashboard, subagent and ACP sessions; not a plain one', () => {
    expect(mayHaveSpawner('agent:main:dashboard:1f2e')).toBe(true)
    expect(mayHaveSpawner('agent:ops:subagent:abc')).toBe(true)
    expect(mayHaveSpawner('agent:main:acp:x')).toBe(true)
    expect(mayHaveSpawner('subagent:abc')).toBe(true)
    expect(mayHaveSpawner('agent:main:child')).toBe(false)
    expect(mayHaveSpawner('agent:main:main')).toBe(false)
  })
})

describe('spawnedBy on the wire', () => {
  it("v4 chat and agent events of a dashboard child name its parent; a plain child's and v3's do not", async () => {
    const four = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const three = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
    const got = { v3: [] as EventFrameIn[], v4: [] as EventFrameIn[] }
    four.onEvent((e) => (e.event === 'chat' || e.event === 'agent') && got.v4.push(e))
    three.onEvent((e) => (e.event === 'chat' || e.event === 'agent') && got.v3.push(e))
    await four.request('sessions.create', { key: 'agent:main:sb-parent' })
    await four.request('sessions.create', { key: 'agent:main:dashboard:sb-child', parentSessionKey: 'agent:main:sb-parent' })
    await four.request('sessions.create', { key: 'agent:main:sb-plain', parentSessionKey: 'agent:main:sb-parent' })
    for (const [key, id] of [['agent:main:dashboard:sb-child', 'sb-1'], ['agent:main:sb-plain', 'sb-2']]) {
      await four.request('chat.send', { sessionKey: key, message: 'hello child', idempotencyKey: id })
      await four.request('agent.wait', { runId: id, timeoutMs: 10_000 })
    }
    const of = (events: EventFrameIn[], runId: string) => events.map((e) => e.payload as any).filter((p) => p.runId === runId)
    await until(() => of(got.v4, 'sb-2').some((p) => p.state === 'final') && of(got.v3, 'sb-2').some((p) => p.state === 'final'))

    const child = of(got.v4, 'sb-1')
    expect(child.some((p) => p.state === 'final')).toBe(true)
    expect(child.some((p) => p.stream === 'lifecycle')).toBe(true)
    for (const p of child) expect(p).toMatchObject({ spawnedBy: 'agent:main:sb-parent', agentId: 'main' })
    for (const p of of(got.v4, 'sb-2')) expect(p).not.toHaveProperty('spawnedBy')
    for (const p of [...of(got.v3, 'sb-1'), ...of(got.v3, 'sb-2')]) expect(p).not.toHaveProperty('spawnedBy')
    await four.close()
    await three.close()
  })
})
