// The gateway over the REAL runtime, driven by the scripted model server (no fake host).
import { beforeAll, describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn, type GatewayConnectionClient } from '../../cli/gateway-client'
import { GatewayClient } from '@openclaw/gateway-client'
import { generateNodeDeviceIdentity, publicKeyRawBase64Url, signDevicePayload } from '../../cli/identity'
import type { GatewayHandle } from './server'
import { until as pollUntil } from '../../../test/fixtures/until'

const TOKEN = 'integration-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
let gw: GatewayHandle
const identity = generateNodeDeviceIdentity()

beforeAll(() => {
  gw = env.stack.gw
})

const connect = (caps: string[] = []) => connectGateway({ url: gw.url, token: TOKEN, identity, caps })
function collect(c: GatewayConnectionClient) {
  const events: EventFrameIn[] = []
  c.onEvent((e) => events.push(e))
  return events
}
const forRun = (events: EventFrameIn[], runId: string) => events.filter((e) => (e.payload as { runId?: string })?.runId === runId)
const until = (cond: () => boolean, ms = 10000) => pollUntil(cond, ms)

describe('gateway + real runtime + scripted model', () => {
  it('agent: ack, streamed events, then the final with the model text; agent.wait agrees', async () => {
    env.server.push({ text: 'Hello from the scripted model', chunks: 6 })
    const c = await connect()
    const events = collect(c)
    let ack: any
    const final = await c.request('agent', { message: 'hi', sessionKey: 'agent:main:int1', idempotencyKey: 'int-1' }, {
      expectFinal: true,
      onAccepted: (a) => (ack = a),
    })
    expect(ack).toMatchObject({ runId: 'int-1', status: 'accepted' })
    expect(final).toMatchObject({ runId: 'int-1', status: 'ok', summary: 'completed', result: { payloads: [{ text: 'Hello from the scripted model' }] } })
    // OpenClaw's agentMeta.usage names the sum `total` (NormalizedUsage)
    const usage = final.result.meta.agentMeta.usage
    expect(usage.total).toBeGreaterThan(0)
    expect(usage.total).toBe(usage.input + usage.output + usage.cacheRead + usage.cacheWrite)
    const run = forRun(events, 'int-1')
    const lifecycle = run.filter((e) => e.event === 'agent' && (e.payload as any).stream === 'lifecycle').map((e) => (e.payload as any).data.phase)
    expect(lifecycle).toEqual(['start', 'end'])
    const chatFinal = run.find((e) => e.event === 'chat' && (e.payload as any).state === 'final')
    expect((chatFinal?.payload as any).message.content[0].text).toBe('Hello from the scripted model')
    await expect(c.request('agent.wait', { runId: 'int-1', timeoutMs: 1000 })).resolves.toMatchObject({ runId: 'int-1', status: 'ok' })
    await c.close()
  })

  it('dedupe: the same idempotencyKey does not start a second model request', async () => {
    env.server.push({ text: 'once', chunks: 2 })
    const c = await connect()
    const before = env.server.requests.length
    const params = { message: 'dedupe me', sessionKey: 'agent:main:int2', idempotencyKey: 'int-2' }
    const first = await c.request('agent', params, { expectFinal: true })
    const again = await c.request('agent', params)
    expect(again).toEqual(first)
    expect(env.server.requests.length - before).toBe(1)
    await c.close()
  })

  it('chat deltas: cumulative text, throttled (≥ ~150 ms apart), flushed before the final', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `w${i} `).join('')
    env.server.push({ text, chunks: 40, delayMs: 20 })
    const c = await connect()
    const events = collect(c)
    await c.request('agent', { message: 'stream', sessionKey: 'agent:main:int3', idempotencyKey: 'int-3' }, { expectFinal: true })
    const chat = forRun(events, 'int-3').filter((e) => e.event === 'chat')
    const deltas = chat.filter((e) => (e.payload as any).state === 'delta').map((e) => (e.payload as any).message.content[0].text as string)
    const assistant = forRun(events, 'int-3').filter((e) => e.event === 'agent' && (e.payload as any).stream === 'assistant')
    expect(assistant.length).toBeGreaterThanOrEqual(20)
    // ~800 ms of streaming at ≤ 1 delta / 150 ms (+ the flush) — far fewer deltas than model chunks
    expect(deltas.length).toBeLessThan(assistant.length / 2)
    expect(deltas.length).toBeGreaterThanOrEqual(2)
    for (let i = 1; i < deltas.length; i++) expect(deltas[i].startsWith(deltas[i - 1])).toBe(true)
    // flush-before-final: the last delta already holds the whole text, then the final
    const last = chat[chat.length - 1].payload as any
    expect(last.state).toBe('final')
    expect(last.message.content[0].text.trim()).toBe(text.trim())
    expect(deltas[deltas.length - 1]).toBe(last.message.content[0].text)
    await c.close()
  })

  it('tool events reach the cap holder that started the run (results stripped), not others; chat text is flushed before the tool starts', async () => {
    env.server.push({ text: 'Let me look.', chunks: 2, toolCalls: [{ name: 'ls', args: { path: '.' } }] }, { text: 'Done looking.', chunks: 2 })
    const withCap = await connect(['tool-events'])
    const bystander = await connect(['tool-events'])
    const without = await connect()
    const ew = collect(withCap)
    const eb = collect(bystander)
    const eo = collect(without)
    const final = await withCap.request('agent', { message: 'list files', sessionKey: 'agent:main:int4', idempotencyKey: 'int-4' }, { expectFinal: true })
    expect(final.status).toBe('ok')
    await until(() => forRun(ew, 'int-4').some((e) => e.event === 'chat' && (e.payload as any).state === 'final'))
    const runW = forRun(ew, 'int-4')
    const tools = runW.filter((e) => e.event === 'agent' && (e.payload as any).stream === 'tool')
    expect(tools.map((e) => (e.payload as any).data.phase)).toEqual(expect.arrayContaining(['start', 'result']))
    expect(tools.every((e) => e.seq === undefined)).toBe(true)
    // the runtime's per-run seq is contiguous: the gateway saw no gap to announce
    expect(runW.some((e) => e.event === 'agent' && (e.payload as any).stream === 'error')).toBe(false)
    expect(forRun(eo, 'int-4').some((e) => e.event === 'agent' && (e.payload as any).stream === 'tool')).toBe(false)
    expect(forRun(eb, 'int-4').some((e) => e.event === 'agent' && (e.payload as any).stream === 'tool')).toBe(false)
    // verbose off (the default): the tool's output is not sent, the rest of the result event is
    const result = tools.find((e) => (e.payload as any).data.phase === 'result')!.payload as any
    expect(result.data).toMatchObject({ name: 'ls', isError: false })
    expect(result.data.result).toBeUndefined()
    // Flush order (OpenClaw): the full pre-tool text reaches clients as a chat delta before the tool start.
    const startIdx = runW.findIndex((e) => e.event === 'agent' && (e.payload as any).stream === 'tool' && (e.payload as any).data.phase === 'start')
    const deltasBeforeStart = runW.slice(0, startIdx).filter((e) => e.event === 'chat' && (e.payload as any).state === 'delta')
    expect(deltasBeforeStart.length).toBeGreaterThan(0)
    expect((deltasBeforeStart[deltasBeforeStart.length - 1].payload as any).message.content[0].text).toBe('Let me look.')
    await Promise.all([withCap.close(), bystander.close(), without.close()])
  })

  it('chat.abort stops a run started by agent: aborted chat event with partial text, final reports aborted', async () => {
    env.server.push({ text: 'partial '.repeat(50), chunks: 50, delayMs: 40 })
    const c = await connect()
    const events = collect(c)
    const finalP = c.request('agent', { message: 'long one', sessionKey: 'agent:main:int5', idempotencyKey: 'int-5' }, { expectFinal: true })
    await until(() => forRun(events, 'int-5').some((e) => e.event === 'chat' && (e.payload as any).state === 'delta'))
    const res = await c.request('chat.abort', { sessionKey: 'agent:main:int5', runId: 'int-5' })
    expect(res).toMatchObject({ ok: true, aborted: true, runIds: ['int-5'] })
    const final = await finalP
    expect(final.result.meta.aborted).toBe(true)
    const aborted = forRun(events, 'int-5').find((e) => e.event === 'chat' && (e.payload as any).state === 'aborted')
    expect(aborted).toBeDefined()
    expect(((aborted!.payload as any).message?.content?.[0]?.text ?? '').length).toBeGreaterThan(0)
    await expect(c.request('agent.wait', { runId: 'int-5', timeoutMs: 1000 })).resolves.toMatchObject({ status: 'timeout' })
    await c.close()
  })

  it('sessions.subscribe delivers sessions.changed for runs', async () => {
    env.server.push({ text: 'hi', chunks: 1 })
    const c = await connect()
    await c.request('sessions.subscribe', {})
    const events = collect(c)
    await c.request('agent', { message: 'x', sessionKey: 'agent:main:int6', idempotencyKey: 'int-6' }, { expectFinal: true })
    await until(() => events.some((e) => e.event === 'sessions.changed' && (e.payload as any).sessionKey === 'agent:main:int6'))
    await until(() => events.some((e) => e.event === 'sessions.changed' && (e.payload as any).reason === 'end'))
    const changed = events.filter((e) => e.event === 'sessions.changed').map((e) => e.payload as any)
    // OpenClaw's shape: the row's fields at the top level (next to the nested `session`), a run's lifecycle as `phase`
    const start = changed.find((p) => p.reason === 'start')
    const end = changed.find((p) => p.reason === 'end')
    expect(start).toMatchObject({ sessionKey: 'agent:main:int6', phase: 'start', runId: 'int-6', status: 'running', sessionId: start.session.sessionId, kind: 'direct' })
    expect(end).toMatchObject({ phase: 'end', runId: 'int-6', status: 'done', endedAt: end.session.endedAt, totalTokens: end.session.totalTokens, updatedAt: end.session.updatedAt })
    expect(end.key).toBeUndefined()
    // mutation notices keep `reason` and carry no phase
    const send = changed.find((p) => p.reason === 'send')
    expect(send.phase).toBeUndefined()
    expect(send.sessionId).toBe(send.session.sessionId)
    await c.close()
  })

  it('@openclaw/gateway-client drives a real run: agent (expectFinal) and agent.wait', async () => {
    env.server.push({ text: 'Interop over the real runtime', chunks: 3 })
    let client: GatewayClient | undefined
    try {
      await new Promise<void>((resolve, reject) => {
        client = new GatewayClient({
          url: gw.url,
          token: TOKEN,
          deviceIdentity: identity,
          hostDeps: { signDevicePayload, publicKeyRawBase64UrlFromPem: publicKeyRawBase64Url },
          scopes: ['operator.read', 'operator.write'],
          onHelloOk: () => resolve(),
          onConnectError: reject,
        })
        client.start()
      })
      const final = await client!.request('agent', { message: 'interop', sessionKey: 'agent:main:int7', idempotencyKey: 'int-7' }, { expectFinal: true })
      expect(final).toMatchObject({ runId: 'int-7', status: 'ok', result: { payloads: [{ text: 'Interop over the real runtime' }] } })
      await expect(client!.request('agent.wait', { runId: 'int-7', timeoutMs: 1000 })).resolves.toMatchObject({ status: 'ok' })
    } finally {
      client?.stop()
    }
  })
})
