// Streamed reasoning (agent stream `thinking`, reasoning level `stream`) over a real WebSocket from the real
// runtime: each event carries the block so far, so a long block (R1/QwQ write 20,000+ characters) costs the
// square on the wire. Clients with `loopdesk.assistant-delta` get it compact, as assistant text, and rebuild
// the same text — the CLI's client and the window's WebSocket bridge; an OpenClaw client gets the whole text.
import WebSocket from 'ws'
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import type { Bridge } from '../../shared/bridge'
import type { AgentEvent, AnyEvent } from '../../shared/events'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'thinking-delta-token-0123456789'
const env = useRuntimeGateway(TOKEN)
const identity = generateNodeDeviceIdentity()

// the renderer's bridge, loaded by path (DOM project), typed by what the test uses
interface WsBridge extends Bridge {
  close(): void
}
const bridgeModule = new URL('../../renderer/src/bridge/ws-bridge.ts', import.meta.url).href
const { connectWsBridge } = (await import(/* @vite-ignore */ bridgeModule)) as {
  connectWsBridge(o: { url: string; token?: string; socketFactory?: (url: string) => unknown }): Promise<WsBridge>
}

const socketOf = (c: GatewayConnectionClient) => (c as unknown as { ws: WebSocket }).ws
/** bytes of the agent `thinking` frames a socket received, counted before the client expands them */
function thinkingBytes(ws: WebSocket): () => number {
  let bytes = 0
  ws.on('message', (d: Buffer) => {
    const s = d.toString()
    if (s.includes('"stream":"thinking"')) bytes += d.length
  })
  return () => bytes
}
const thinkingOf = (events: AgentEvent[]) => events.filter((e) => e.stream === 'thinking').map((e) => (e.data as { text?: string }).text)

describe('streamed reasoning over the gateway', () => {
  it('a 28,000-character block costs O(block) bytes for a capped client; the CLI client and the window rebuild the same text', async () => {
    const key = 'agent:main:long-thinking'
    const capped = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const plain = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, assistantDeltas: false })
    const cappedBytes = thinkingBytes(socketOf(capped))
    const plainBytes = thinkingBytes(socketOf(plain))
    const got = { capped: [] as AgentEvent[], plain: [] as AgentEvent[], window: [] as AgentEvent[] }
    const collect = (list: AgentEvent[]) => (e: EventFrameIn) => e.event === 'agent' && (e.payload as AgentEvent).runId === 'lt-1' && list.push(e.payload as AgentEvent)
    capped.onEvent(collect(got.capped))
    plain.onEvent(collect(got.plain))
    const bridge = await connectWsBridge({
      url: env.stack.gw.url,
      token: TOKEN,
      socketFactory: (url) => new WebSocket(url, { headers: { Origin: env.stack.gw.httpUrl } }),
    })
    try {
      bridge.subscribe({ sessionKey: key }, (e: AnyEvent) => e.event === 'agent' && e.payload.runId === 'lt-1' && got.window.push(e.payload))
      await capped.request('sessions.create', { key })
      await capped.request('sessions.patch', { key, reasoningLevel: 'stream' })

      const N = 1000
      const chunks = Array.from({ length: N }, (_, i) => `step ${String(i).padStart(4, '0')} of the reasoning. `)
      const block = chunks.join('')
      expect(block.length).toBeGreaterThan(24_000)
      // a frame every 2 ms: the runtime merges the deltas of one tick into one event
      env.server.script([{ reasoning: chunks, text: 'the answer', delayMs: 2 }])
      await capped.request('chat.send', { sessionKey: key, message: 'think long', idempotencyKey: 'lt-1' })
      await capped.request('agent.wait', { runId: 'lt-1', timeoutMs: 20_000 })
      const ended = (list: AgentEvent[]) => list.some((e) => e.stream === 'lifecycle' && (e.data as { phase?: string }).phase === 'end')
      await until(() => ended(got.capped) && ended(got.plain) && ended(got.window), 10_000)

      const events = thinkingOf(got.plain)
      expect(events.length).toBeGreaterThan(N / 4)
      expect(events.at(-1)).toBe(block)
      // every event rebuilt exactly as the whole text the OpenClaw client got, by the CLI client and the window
      expect(thinkingOf(got.capped)).toEqual(events)
      expect(thinkingOf(got.window)).toEqual(events)
      // the whole texts sum to about events × block / 2; the compact ones to the block plus a small frame each
      expect(plainBytes()).toBeGreaterThan((events.length * block.length) / 3)
      expect(cappedBytes()).toBeLessThan(2 * block.length + 400 * events.length)
    } finally {
      bridge.close()
      await Promise.all([capped.close(), plain.close()])
    }
  }, 60_000)
})
