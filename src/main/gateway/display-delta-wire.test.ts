// What a v4 chat.history delta and v4 session.message carry for the messages OpenClaw 2026.9's display
// projection hides or rewrites, over a real WebSocket with the real runtime behind the gateway: hidden ones are
// left out of the delta as they are out of the events, a failed turn reads OpenClaw's failure sentence (no raw
// provider error), a delta meeting a failed turn that showed nothing answers reset; v3 keeps the stored messages.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'display-delta-token-0123456789ab'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()
const v4 = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
const v3 = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
const roles = (messages: any[]) => messages.map((p) => [p.message.role, p.messageSeq])

describe('v4 display projection in chat.history deltas', () => {
  it('a hidden message (a NO_REPLY reply) is left out of a v4 delta, as out of its events; wholeMessages and v3 keep it', async () => {
    const four = await v4()
    const three = await v3()
    const key = 'agent:main:delta-hidden'
    await four.request('sessions.create', { key })
    const { deltaCursor } = (await four.request('chat.history', { sessionKey: key })) as any
    const live: any[] = []
    four.onEvent((e) => e.event === 'session.message' && (e.payload as any).sessionKey === key && live.push(e.payload))
    await four.request('sessions.messages.subscribe', { key })

    env.server.push({ toolCalls: [{ name: 'message', args: { text: 'sent elsewhere' } }] }, { text: 'NO_REPLY' })
    await four.request('chat.send', { sessionKey: key, message: 'hello hidden delta', idempotencyKey: 'dh-1' })
    await four.request('agent.wait', { runId: 'dh-1', timeoutMs: 10_000 })
    await until(() => live.length >= 3)
    await new Promise((r) => setTimeout(r, 100))

    const shown = [['user', 1], ['assistant', 2], ['toolResult', 3]]
    expect(roles(live)).toEqual(shown)
    const delta = (await four.request('chat.history', { sessionKey: key, cursor: deltaCursor })) as any
    expect(delta.kind).toBe('delta')
    expect(roles(delta.messages)).toEqual(shown)
    expect(delta.messages.map((p: any) => p.message)).toEqual(live.map((p) => p.message))
    // its cursor still moves past the hidden reply: nothing new after it
    const next = (await four.request('chat.history', { sessionKey: key, cursor: delta.deltaCursor })) as any
    expect(next).toMatchObject({ kind: 'delta', messages: [] })
    // the window's resync and a v3 client get every stored message
    const whole = (await four.request('chat.history', { sessionKey: key, cursor: deltaCursor, wholeMessages: true })) as any
    expect(roles(whole.messages)).toEqual([...shown, ['assistant', 4]])
    const old = (await three.request('chat.history', { sessionKey: key, cursor: deltaCursor })) as any
    expect(roles(old.messages)).toEqual([...shown, ['assistant', 4]])
    expect(old.messages[3].message.content).toEqual([{ type: 'text', text: 'NO_REPLY' }])
    await four.close()
    await three.close()
  })

  it('a failed turn: v4 gets OpenClaw\'s failure sentence live and in pages, no raw error, its delta resets; v3 the stored error', async () => {
    const four = await v4()
    const three = await v3()
    const key = 'agent:main:delta-error'
    await four.request('sessions.create', { key })
    const { deltaCursor } = (await four.request('chat.history', { sessionKey: key })) as any
    const got = { v3: [] as any[], v4: [] as any[] }
    four.onEvent((e) => e.event === 'session.message' && (e.payload as any).sessionKey === key && got.v4.push(e.payload))
    three.onEvent((e) => e.event === 'session.message' && (e.payload as any).sessionKey === key && got.v3.push(e.payload))
    await four.request('sessions.messages.subscribe', { key })
    await three.request('sessions.messages.subscribe', { key })

    env.server.push({ status: 401, message: 'Incorrect API key provided: sk-live-SECRET' }) // not retried
    await four.request('chat.send', { sessionKey: key, message: 'hello error', idempotencyKey: 'de-1' })
    await four.request('agent.wait', { runId: 'de-1', timeoutMs: 10_000 })
    await until(() => got.v3.length >= 2 && got.v4.length >= 2)

    const stored = got.v3[1].message
    expect(stored).toMatchObject({ role: 'assistant', stopReason: 'error', errorMessage: expect.stringContaining('Incorrect API key') })
    const shown = got.v4[1].message
    expect(shown).toMatchObject({ role: 'assistant', stopReason: 'error', __openclaw: { id: stored.__openclaw.id } })
    expect(shown.content).toEqual([{ type: 'text', text: expect.stringMatching(/^⚠️ LLM request failed \(authentication failed, HTTP 401\)\. Re-authenticate the provider and try again\.$/) }])
    expect(JSON.stringify(shown)).not.toMatch(/Incorrect API key|SECRET|errorMessage/)

    // a delta that meets a failed turn of a run that showed nothing starts over, as OpenClaw's does
    expect((await four.request('chat.history', { sessionKey: key, cursor: deltaCursor })) as any).toEqual({ kind: 'reset' })
    // the window's resync and v3 read it as stored
    const whole = (await four.request('chat.history', { sessionKey: key, cursor: deltaCursor, wholeMessages: true })) as any
    expect(whole.messages[1].message).toEqual(stored)
    const old = (await three.request('chat.history', { sessionKey: key, cursor: deltaCursor })) as any
    expect(old.messages[1].message).toEqual(stored)

    // a v4 page's row of it reads the same sentence; the window's pages (wholeMessages) and v3 keep the error
    const page = (await four.request('chat.history', { sessionKey: key })) as any
    expect(page.messages[1]).toMatchObject({ role: 'assistant', stopReason: 'error', content: shown.content })
    expect(JSON.stringify(page.messages[1])).not.toMatch(/Incorrect API key|SECRET|errorMessage/)
    const wholePage = (await four.request('chat.history', { sessionKey: key, wholeMessages: true })) as any
    expect(wholePage.messages[1]).toMatchObject({ stopReason: 'error', errorMessage: stored.errorMessage })
    expect(((await three.request('chat.history', { sessionKey: key })) as any).messages[1]).toMatchObject({ errorMessage: stored.errorMessage })
    await four.close()
    await three.close()
  })

  it('a v4 page is the display copy too (8,000-character cap); wholeMessages, maxChars and v3 are not', async () => {
    const four = await v4()
    const three = await v3()
    const key = 'agent:main:page-display'
    await four.request('sessions.create', { key })
    const long = 'p'.repeat(20_000)
    env.server.push({ text: long })
    await four.request('chat.send', { sessionKey: key, message: 'hello page', idempotencyKey: 'pd-1' })
    await four.request('agent.wait', { runId: 'pd-1', timeoutMs: 10_000 })
    const text = (page: any) => page.messages[1].content.find((b: any) => b.type === 'text').text

    const page = (await four.request('chat.history', { sessionKey: key })) as any
    expect(text(page)).toBe('p'.repeat(8000) + '\n...(truncated)...')
    expect(page.messages[1].__openclaw).toMatchObject({ seq: 2, truncated: true, reason: 'display-cap' })
    expect(text(await four.request('chat.history', { sessionKey: key, wholeMessages: true }))).toBe(long)
    expect(text(await four.request('chat.history', { sessionKey: key, maxChars: 100 }))).toBe('p'.repeat(100))
    expect(text(await three.request('chat.history', { sessionKey: key }))).toBe(long)
    await four.close()
    await three.close()
  })
})
