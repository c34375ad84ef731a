// Over the wire (gateway + real runtime + scripted model): a run that called the message tool and then repeated
// its text, or answered NO_REPLY, sends neither on the `agent` assistant stream nor in `chat` events — what a
// client shows agrees with the `agent` call's payloads. Also with the compact assistant-delta capability.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { ASSISTANT_DELTA_CAP } from '../../shared/assistant-delta'

const TOKEN = 'silent-wire-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()

async function runOver(caps: string[], sessionKey: string, id: string) {
  const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, caps })
  const events: EventFrameIn[] = []
  c.onEvent((e) => events.push(e))
  const final = await c.request('agent', { message: 'go', sessionKey, idempotencyKey: id }, { expectFinal: true })
  await c.close()
  const run = events.filter((e) => (e.payload as { runId?: string })?.runId === id).map((e) => ({ event: e.event, p: e.payload as any }))
  return { final: final as any, run }
}

describe('silent and repeated replies on the wire', () => {
  for (const caps of [[], [ASSISTANT_DELTA_CAP]]) {
    it(`message tool + repeat, then NO_REPLY alone (caps: ${caps.join(',') || 'none'})`, async () => {
      const tag = caps.length ? 'c' : 'p'
      env.server.push({ toolCalls: [{ name: 'message', args: { text: 'Here is the answer: 42.' } }] }, { textChunks: ['Here is ', 'the answer: 42.'], delayMs: 10 })
      const a = await runOver(caps, `agent:main:wire-${tag}1`, `wire-${tag}1`)
      expect(a.final.result.payloads).toEqual([])
      expect(a.run.filter((e) => e.event === 'agent' && e.p.stream === 'assistant')).toEqual([])
      const finalA = a.run.find((e) => e.event === 'chat' && e.p.state === 'final')!.p
      expect(finalA.message.content.map((c: { text: string }) => c.text).join('')).toBe('Here is the answer: 42.')

      env.server.push({ textChunks: ['NO', '_RE', 'PLY'], delayMs: 10 })
      const b = await runOver(caps, `agent:main:wire-${tag}2`, `wire-${tag}2`)
      expect(b.final.result.payloads).toEqual([])
      expect(b.run.filter((e) => e.event === 'agent' && e.p.stream === 'assistant')).toEqual([])
      expect(b.run.filter((e) => e.event === 'chat' && e.p.message)).toEqual([])
      const end = b.run.find((e) => e.event === 'agent' && e.p.stream === 'lifecycle' && e.p.data.phase === 'end')!.p
      expect(end.data.silentReply).toBe(true)
    })
  }
})
