// Replies a stop cut off, as chat.history shows them, over the gateway of a REAL runtime: OpenClaw's
// `openclawAbort: {aborted, origin, runId}` next to Loopdesk's `aborted: true`; `origin` says how it was stopped.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'abort-history-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()


async function startRun(c: GatewayConnectionClient, events: EventFrameIn[], key: string, runId: string, waitForText: boolean) {
  await c.request('chat.send', { sessionKey: key, message: 'go on', idempotencyKey: runId })
  const started = (e: EventFrameIn) => (e.payload as { runId?: string }).runId === runId
  if (waitForText) await until(() => events.some((e) => started(e) && e.event === 'chat' && (e.payload as { state?: string }).state === 'delta'), 5000)
  else await until(() => events.some((e) => started(e) && e.event === 'agent' && (e.payload as { stream?: string }).stream === 'lifecycle'), 5000)
}

async function lastAssistant(c: GatewayConnectionClient, key: string, runId: string) {
  await expect(c.request('agent.wait', { runId, timeoutMs: 5000 })).resolves.toBeDefined()
  const h = (await c.request('chat.history', { sessionKey: key })) as { messages: any[] }
  return h.messages.filter((m) => m.role === 'assistant' && m.runId === runId).at(-1)
}

describe('aborted replies in chat.history', () => {
  it('chat.abort after some text: the partial row carries openclawAbort {aborted, origin: "rpc", runId}', async () => {
    env.server.push({ text: 'partial '.repeat(60), chunks: 60, delayMs: 30 })
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    await startRun(c, events, 'agent:main:ab1', 'ab-1', true)
    await c.request('chat.abort', { sessionKey: 'agent:main:ab1', runId: 'ab-1' })
    const row = await lastAssistant(c, 'agent:main:ab1', 'ab-1')
    expect(row.content[0].text.length).toBeGreaterThan(0)
    expect(row).toMatchObject({ stopReason: 'aborted', aborted: true, openclawAbort: { aborted: true, origin: 'rpc', runId: 'ab-1' } })
    await c.close()
  })

  it('/stop before any text: the empty row stays (the window shows the run stopped) with origin "stop-command"', async () => {
    env.server.push({ text: 'never shown', chunks: 2, headerDelayMs: 3000 })
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    await startRun(c, events, 'agent:main:ab2', 'ab-2', false)
    await expect(c.request('chat.send', { sessionKey: 'agent:main:ab2', message: '/stop', idempotencyKey: 'ab-2-stop' })).resolves.toMatchObject({ aborted: true })
    const row = await lastAssistant(c, 'agent:main:ab2', 'ab-2')
    expect(row).toMatchObject({ content: [], stopReason: 'aborted', aborted: true, openclawAbort: { aborted: true, origin: 'stop-command', runId: 'ab-2' } })
    await c.close()
  })
})
