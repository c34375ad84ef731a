// A session whose past run streamed a long reply, opened after a restart: the answer of
// `loopdesk.events.recent` (read back from the event log) grows with the reply, not with its square, and a
// cap holder rebuilds the same events the runtime has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { connectGateway, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import type { AgentEvent } from '../../shared/events'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { startGateway, type GatewayHandle } from './server'

const TOKEN = 'recent-size-token-0123456789'
const KEY = 'agent:main:long'
const REPLY = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, '0')} ${'x'.repeat(88)}\n`).join('')

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server.close()
})

async function start(stateDir: string): Promise<{ rt: TestRuntime; gw: GatewayHandle }> {
  const rt = await startTestRuntime(server, { stateDir })
  const gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir, staticDir: null })
  return { rt, gw }
}

/** The answer and the bytes of its response frame as they came over the socket. */
async function recentOverWire(c: GatewayConnectionClient) {
  let bytes = 0
  const ws = (c as unknown as { ws: WebSocket }).ws
  const onFrame = (data: Buffer) => {
    if (data.includes('"type":"res"')) bytes = Math.max(bytes, data.length)
  }
  ws.on('message', onFrame)
  try {
    const answer = (await c.request('loopdesk.events.recent', { sessionKey: KEY, limit: 5000 })) as { events: AgentEvent[] }
    return { events: answer.events, bytes }
  } finally {
    ws.off('message', onFrame)
  }
}

/** Everything about an event but the text itself, whose length and end stand for it (comparing would flatten every rope). */
const shape = (e: AgentEvent) => {
  const { text, ...rest } = e.data as { text?: unknown }
  return { runId: e.runId, seq: e.seq, stream: e.stream, data: rest, textLength: typeof text === 'string' ? text.length : undefined }
}

describe('loopdesk.events.recent for a long streamed reply', () => {
  it('is O(reply) bytes after a restart (from the log) as before it (from the ring), and rebuilds the same events', async () => {
    const stateDir = tempDir('ld-recent-size-')
    let { rt, gw } = await start(stateDir)
    const identity = generateNodeDeviceIdentity()
    // 400 network reads of 500 characters: ~400 assistant events, each whole text up to 200,000 characters
    server.push({ text: REPLY, chunks: 400, delayMs: 2 })
    const { runId } = await rt.call('agent', { message: 'long one', idempotencyKey: 'long-1', sessionKey: KEY })
    await rt.call('agent.wait', { runId, timeoutMs: 60_000 })
    let c = await connectGateway({ url: gw.url, token: TOKEN, identity })
    const fromRing = await recentOverWire(c)
    await c.close()
    expect(fromRing.bytes).toBeLessThan(3 * REPLY.length)
    await gw.close()
    await rt.close()

    ;({ rt, gw } = await start(stateDir))
    try {
      c = await connectGateway({ url: gw.url, token: TOKEN, identity })
      const fromLog = await recentOverWire(c)
      await c.close()
      const assistant = fromLog.events.filter((e) => e.stream === 'assistant')
      expect(assistant.length).toBeGreaterThan(100) // streamed, not one event: the square would show
      expect(fromLog.bytes).toBeLessThan(3 * REPLY.length)
      // what the cap holder rebuilt is what the runtime holds (the standard events a plain client gets)
      const standard = (await rt.call('loopdesk.events.recent', { sessionKey: KEY, limit: 5000 })).events
      expect(fromLog.events.map(shape)).toEqual(standard.map(shape))
      expect(assistant.at(-1)!.data.text).toBe(REPLY)
      expect(fromLog.events.map((e) => e.seq)).toEqual(fromLog.events.map((_, i) => i + 1)) // the whole run
      // the ring kept the newest events of that run (its size bound); the log gives the same ones
      const tail = fromLog.events.slice(-fromRing.events.length)
      expect(tail.map(shape)).toEqual(fromRing.events.map(shape))
      expect(tail.at(-1)).toEqual(fromRing.events.at(-1))
    } finally {
      await gw.close()
      await rt.close()
    }
  }, 120_000)
})
