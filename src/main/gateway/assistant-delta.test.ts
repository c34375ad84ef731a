import { afterEach, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import type { EventFrameIn, GatewayConnectionClient } from '../../cli/gateway-client'
import { expandAssistantPayload } from '../../shared/assistant-delta'
import type { AgentEvent } from '../../shared/events'
import { RawClient, startTestGateway, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const socketOf = (c: GatewayConnectionClient) => (c as unknown as { ws: WebSocket }).ws
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function emitAssistant(tg: TestGateway, runId: string, seq: number, text: string, delta: string) {
  tg.host.emit({ event: 'agent', payload: { runId, seq, stream: 'assistant', ts: seq, data: { text, delta }, sessionKey: 'agent:main:main' } })
}

describe('compact assistant events (loopdesk.assistant-delta)', () => {
  it('capped clients get deltas without the cumulative text; others get the standard payload; both see the same text', async () => {
    t = await startTestGateway()
    const capped = await t.connect() // the Node client asks for the cap by default
    const plain = await t.connect({ assistantDeltas: false })
    const rawCapped = new RawClient(socketOf(capped))
    const rawPlain = new RawClient(socketOf(plain))
    const expandedCapped: EventFrameIn[] = []
    capped.onEvent((e) => expandedCapped.push(e))

    let text = ''
    const parts = ['Hel', 'lo', ', ', 'wor', 'ld']
    parts.forEach((d, i) => {
      text += d
      emitAssistant(t!, 'r1', i + 1, text, d)
    })
    // a second assistant message in the same run restarts the text: full payload again
    emitAssistant(t, 'r1', 6, 'Next', 'Next')
    emitAssistant(t, 'r1', 7, 'Next step', ' step')
    t.host.emit({ event: 'agent', payload: { runId: 'r1', seq: 8, stream: 'lifecycle', ts: 8, data: { phase: 'end', endedAt: 8 }, sessionKey: 'agent:main:main' } })
    await rawCapped.next((f) => f.event === 'agent' && f.payload.seq === 8)
    await rawPlain.next((f) => f.event === 'agent' && f.payload.seq === 8)

    const capFrames = rawCapped.frames.filter((f) => f.event === 'agent' && f.payload.stream === 'assistant')
    expect(capFrames.map((f) => typeof f.payload.data.text === 'string')).toEqual([true, false, false, false, false, true, false])
    expect(capFrames[1].payload.data).toEqual({ delta: 'lo', textLength: 5 })
    const plainFrames = rawPlain.frames.filter((f) => f.event === 'agent' && f.payload.stream === 'assistant')
    expect(plainFrames.every((f) => typeof f.payload.data.text === 'string')).toBe(true)
    // same frame seq for both forms
    expect(capFrames.map((f) => f.seq)).toEqual(plainFrames.map((f) => f.seq))
    // the client rebuilt exactly the standard payloads
    const rebuilt = expandedCapped.filter((e) => e.event === 'agent' && (e.payload as AgentEvent).stream === 'assistant').map((e) => (e.payload as AgentEvent).data)
    expect(rebuilt).toEqual(plainFrames.map((f) => f.payload.data))
    await Promise.all([capped.close(), plain.close()])
  })

  it('thinking events go compact too, tracked apart from the reply of the same run', async () => {
    t = await startTestGateway()
    const capped = await t.connect()
    const plain = await t.connect({ assistantDeltas: false })
    const rawCapped = new RawClient(socketOf(capped))
    const rebuilt: AgentEvent[] = []
    const standard: AgentEvent[] = []
    capped.onEvent((e) => e.event === 'agent' && rebuilt.push(e.payload as AgentEvent))
    plain.onEvent((e) => e.event === 'agent' && standard.push(e.payload as AgentEvent))
    const emit = (seq: number, stream: 'assistant' | 'thinking', text: string, delta: string) =>
      t!.host.emit({ event: 'agent', payload: { runId: 'rt', seq, stream, ts: seq, data: { text, delta }, sessionKey: 'agent:main:main' } })
    emit(1, 'thinking', 'Let', 'Let')
    emit(2, 'thinking', 'Let me', ' me')
    emit(3, 'assistant', 'Ok', 'Ok')
    emit(4, 'thinking', 'Let me see', ' see')
    emit(5, 'assistant', 'Ok then', ' then')
    // a new reasoning block restarts its text: whole again
    emit(6, 'thinking', 'Now', 'Now')
    emit(7, 'thinking', 'Now this', ' this')
    t.host.emit({ event: 'agent', payload: { runId: 'rt', seq: 8, stream: 'lifecycle', ts: 8, data: { phase: 'end', endedAt: 8 }, sessionKey: 'agent:main:main' } })
    await rawCapped.next((f) => f.event === 'agent' && f.payload.seq === 8)
    await sleep(20)
    const frames = rawCapped.frames.filter((f) => f.event === 'agent' && f.payload.seq < 8)
    expect(frames.map((f) => typeof f.payload.data.text === 'string')).toEqual([true, false, true, false, false, true, false])
    expect(frames[3].payload.data).toEqual({ delta: ' see', textLength: 10 })
    expect(rebuilt.map((e) => e.data)).toEqual(standard.map((e) => e.data))
    await Promise.all([capped.close(), plain.close()])
  })

  it('a client joining mid-run gets the full text first', async () => {
    t = await startTestGateway()
    const early = await t.connect()
    emitAssistant(t, 'r2', 1, 'abc', 'abc')
    emitAssistant(t, 'r2', 2, 'abcdef', 'def')
    await sleep(20)
    const late = await t.connect()
    const raw = new RawClient(socketOf(late))
    emitAssistant(t, 'r2', 3, 'abcdefghi', 'ghi')
    emitAssistant(t, 'r2', 4, 'abcdefghijk', 'jk')
    await raw.next((f) => f.event === 'agent' && f.payload.seq === 4)
    const frames = raw.frames.filter((f) => f.event === 'agent')
    expect(frames[0].payload.data).toEqual({ text: 'abcdefghi', delta: 'ghi' })
    expect(frames[1].payload.data).toEqual({ delta: 'jk', textLength: 11 })
    await Promise.all([early.close(), late.close()])
  })

  it('a 20,000-delta reply costs O(n) bytes for a capped client', async () => {
    t = await startTestGateway()
    const capped = await t.connect()
    let cappedBytes = 0
    socketOf(capped).on('message', (d: Buffer) => (cappedBytes += d.length))
    let last = ''
    let got = 0
    capped.onEvent((e) => {
      if (e.event === 'agent') {
        got++
        last = ((e.payload as AgentEvent).data as { text: string }).text
      }
    })
    let text = ''
    const N = 20_000
    for (let i = 1; i <= N; i++) {
      text += 'tok '
      emitAssistant(t, 'r3', i, text, 'tok ')
      if (i % 500 === 0) await sleep(0)
    }
    const start = Date.now()
    while (got < N && Date.now() - start < 20_000) await sleep(10)
    expect(last).toBe(text)
    // ~150 bytes per event instead of ~40 KB on average (the standard payload totals ~800 MB here)
    expect(cappedBytes).toBeLessThan(250 * N)
    expect(capped.closed).toBe(false)
    await capped.close()
  }, 60_000)

  it('expandAssistantPayload leaves standard payloads alone and forgets runs at their end', () => {
    const texts = new Map<string, string>()
    const a: AgentEvent = { runId: 'x', seq: 1, stream: 'assistant', ts: 1, data: { text: 'hi', delta: 'hi' } }
    expect(expandAssistantPayload(texts, a)).toBe(a)
    expect(texts.get('x')).toBe('hi')
    expandAssistantPayload(texts, { runId: 'x', seq: 2, stream: 'lifecycle', ts: 2, data: { phase: 'end' } })
    expect(texts.has('x')).toBe(false)
  })
})
