// agent.wait's v4 reply facts over a real WebSocket, the real runtime behind the gateway: an ended run's
// `stopReason` and OpenClaw 2026.9's `terminalReply` (silent / empty / visible text cut at 4,096 characters),
// also on the lifecycle end event; v3 (April) results keep their old shape.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { terminalReplyOf } from '../runtime/events/terminal-reply'

const TOKEN = 'wait-terminal-reply-token-012345'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()
const v4 = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
const v3 = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })

describe('terminalReplyOf', () => {
  it('silent, empty, or the trimmed text cut to 4,096 characters', () => {
    expect(terminalReplyOf({ silent: true, text: 'x' })).toEqual({ disposition: 'silent' })
    expect(terminalReplyOf({ text: '  \n' })).toEqual({ disposition: 'empty' })
    expect(terminalReplyOf({})).toEqual({ disposition: 'empty' })
    expect(terminalReplyOf({ text: ' hi \n' })).toEqual({ disposition: 'visible', text: 'hi' })
    expect(terminalReplyOf({ text: 'y'.repeat(4096) })).toEqual({ disposition: 'visible', text: 'y'.repeat(4096) })
    expect(terminalReplyOf({ text: 'y'.repeat(4097) })).toEqual({ disposition: 'visible', text: `${'y'.repeat(4095)}…` })
    // a surrogate pair at the cut is not split
    const emoji = `${'y'.repeat(4094)}😀${'z'.repeat(10)}`
    expect(terminalReplyOf({ text: emoji })).toEqual({ disposition: 'visible', text: `${'y'.repeat(4094)}…` })
  })
})

describe('agent.wait terminalReply', () => {
  it('v4: the reply text, silence, a cut long reply, and stopReason; the lifecycle end carries it; v3 gets the April shape', async () => {
    const four = await v4()
    const three = await v3()
    const ends: EventFrameIn[] = []
    four.onEvent((e) => e.event === 'agent' && (e.payload as any).stream === 'lifecycle' && (e.payload as any).data.phase === 'end' && ends.push(e))
    const run = async (id: string, key: string) => {
      await four.request('chat.send', { sessionKey: key, message: `hello ${id}`, idempotencyKey: id })
      return (await four.request('agent.wait', { runId: id, timeoutMs: 10_000 })) as any
    }

    env.server.push({ text: 'Here is the answer.' })
    const visible = await run('tr-visible', 'agent:main:tr-1')
    expect(visible).toMatchObject({ runId: 'tr-visible', status: 'ok', stopReason: 'stop', terminalReply: { disposition: 'visible', text: 'Here is the answer.' } })
    expect(ends.find((e) => (e.payload as any).runId === 'tr-visible')?.payload).toMatchObject({ data: { terminalReply: { disposition: 'visible', text: 'Here is the answer.' } } })

    env.server.push({ text: 'NO_REPLY' })
    expect((await run('tr-silent', 'agent:main:tr-2')).terminalReply).toEqual({ disposition: 'silent' })

    env.server.push({ text: 'w'.repeat(5000) })
    expect((await run('tr-long', 'agent:main:tr-3')).terminalReply).toEqual({ disposition: 'visible', text: `${'w'.repeat(4095)}…` })

    // v3 (April): runId, status, startedAt, endedAt only
    const old = (await three.request('agent.wait', { runId: 'tr-visible', timeoutMs: 1000 })) as any
    expect(Object.keys(old).sort()).toEqual(['endedAt', 'runId', 'startedAt', 'status'])
    await four.close()
    await three.close()
  })
})
