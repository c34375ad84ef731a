import { stream as openaiStream } from '@earendil-works/pi-ai/api/openai-completions'
import { normalizeContext, type AssistantMessage, type Model } from '@earendil-works/pi-ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer, type ReplyTurn, type Turn } from '../../../../test/fixtures/model-server'
import { mergeDeltaEvents, mergeEvents, sseMergeFetch, wantsSseMerge } from './sse-merge-fetch'

const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: null, ...extra }],
})

describe('mergeEvents', () => {
  it('merges consecutive pure text deltas into one event with the concatenated text', () => {
    const block = ev(chunk({ content: 'He' })) + ev(chunk({ content: 'll' })) + ev(chunk({ content: 'o ✓' }))
    expect(mergeEvents(block)).toBe(ev(chunk({ content: 'Hello ✓' })))
  })

  it('keeps every other event byte for byte and in order, merging only runs of same-shaped text deltas', () => {
    const role = ev(chunk({ role: 'assistant', content: '' }))
    const tool = ev(chunk({ tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'x', arguments: '' } }] }))
    const finish = ev({ ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })
    const usage = ev({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [], usage: { prompt_tokens: 1 } })
    const block =
      role +
      ev(chunk({ content: 'a' })) +
      ev(chunk({ content: 'b' })) +
      ev(chunk({ reasoning_content: 'r1' })) +
      ev(chunk({ reasoning_content: 'r2' })) +
      ev(chunk({ content: 'c' }, { logprobs: { content: [] } })) +
      ev(chunk({ content: 'd' })) +
      tool +
      ev({ ...chunk({ content: 'e' }), id: 'other' }) +
      ev(chunk({ content: 'f' })) +
      ': keep-alive\n\n' +
      ev(chunk({ content: 'g' })) +
      'event: x\ndata: {"choices":[{"delta":{"content":"h"}}]}\n\n' +
      'data: {"choices":[{"delta":{"content":"broken\n\n' +
      finish +
      usage +
      'data: [DONE]\n\n'
    expect(mergeEvents(block)).toBe(
      role +
        ev(chunk({ content: 'ab' })) +
        ev(chunk({ reasoning_content: 'r1r2' })) +
        ev(chunk({ content: 'c' }, { logprobs: { content: [] } })) + // logprobs: not a pure text delta
        ev(chunk({ content: 'd' })) +
        tool +
        ev({ ...chunk({ content: 'e' }), id: 'other' }) + // another id: another stream
        ev(chunk({ content: 'f' })) +
        ': keep-alive\n\n' +
        ev(chunk({ content: 'g' })) +
        'event: x\ndata: {"choices":[{"delta":{"content":"h"}}]}\n\n' +
        'data: {"choices":[{"delta":{"content":"broken\n\n' +
        finish +
        usage +
        'data: [DONE]\n\n',
    )
  })

  it('merges texts with escapes, and events whose text is written in another escaping, to the same text', () => {
    const texts = ['say "hi"\n', '\\path\t', '</script> ✓ 🙂', '\u0000']
    const merged = mergeEvents(texts.map((t) => ev(chunk({ content: t }))).join(''))
    expect(merged).toBe(ev(chunk({ content: texts.join('') })))
    // a provider that escapes non-ASCII (JSON allows it): same text, found through a full parse
    const escaped = (t: string) => `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"${t}"},"finish_reason":null}]}\n\n`
    const out = mergeEvents(escaped('caf\\u00e9 ') + escaped('na\\u00efve') + escaped(' ok'))
    expect(JSON.parse(out.slice(6)).choices[0].delta.content).toBe('café naïve ok')
    expect(out.split('\n\n').filter(Boolean)).toHaveLength(1)
  })

  it('an event that differs from the group only after the text (extra field, finish reason) is not merged', () => {
    const a = ev(chunk({ content: 'a' }))
    const b = ev(chunk({ content: 'b' }))
    const extra = 'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"c","refusal":null},"finish_reason":null}]}\n\n'
    const stop = ev({ ...chunk({ content: 'd' }), choices: [{ index: 0, delta: { content: 'd' }, finish_reason: 'stop' }] })
    const twoTexts = 'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"e"},"finish_reason":null}]}{"x":"y"}\n\n'
    expect(mergeEvents(a + b + extra + stop + twoTexts)).toBe(ev(chunk({ content: 'ab' })) + extra + stop + twoTexts)
  })

  it('an event that is not valid JSON (a raw control character in the text) is passed on as is, never repaired by a merge', () => {
    const a = ev(chunk({ content: 'a' }))
    const broken = a.replace('"content":"a"', '"content":"b\tc"')
    expect(broken).toContain('\t')
    expect(mergeEvents(a + broken + a)).toBe(a + broken + a)
  })

  it('keeps extra blank lines as they are', () => {
    const block = ev(chunk({ content: 'a' })) + '\n' + ev(chunk({ content: 'b' })) + '\n\n\n'
    expect(mergeEvents(block)).toBe(block)
  })
})

/** A body delivered in the given byte pieces. */
function bodyOf(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream({
    pull(ctl) {
      if (i < pieces.length) ctl.enqueue(pieces[i++])
      else ctl.close()
    },
  })
}
async function readAll(body: ReadableStream<Uint8Array>): Promise<{ text: string; reads: number }> {
  const dec = new TextDecoder()
  let text = ''
  let reads = 0
  for await (const c of body as unknown as AsyncIterable<Uint8Array>) {
    reads++
    text += dec.decode(c, { stream: true })
  }
  return { text: text + dec.decode(), reads }
}

describe('mergeDeltaEvents', () => {
  it('never holds a complete event for a later read, and cuts neither events nor UTF-8 characters', async () => {
    const events = ['Grüße ', '— ', '日本語 ', '🙂'].map((t) => ev(chunk({ content: t })))
    const bytes = new TextEncoder().encode(events.join(''))
    // split every 7 bytes: events and multi-byte characters straddle reads
    const pieces: Uint8Array[] = []
    for (let i = 0; i < bytes.length; i += 7) pieces.push(bytes.subarray(i, i + 7))
    const { text } = await readAll(mergeDeltaEvents(bodyOf(pieces)))
    const contents = text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.slice(6)).choices[0].delta.content)
    expect(contents.join('')).toBe('Grüße — 日本語 🙂')
    // two reads that each complete events give two merged events, not one: nothing waits for the next read
    const [a, b] = [events.slice(0, 2).join(''), events.slice(2).join('')].map((s) => new TextEncoder().encode(s))
    const split = await readAll(mergeDeltaEvents(bodyOf([a, b])))
    expect(split.reads).toBe(2)
    expect(split.text).toBe(ev(chunk({ content: 'Grüße — ' })) + ev(chunk({ content: '日本語 🙂' })))
  })

  it('awaits beforeProcessing after each read, before the events go on (a scheduler decides when they are processed)', async () => {
    const log: string[] = []
    let release: (() => void) | undefined
    const body = mergeDeltaEvents(bodyOf([new TextEncoder().encode(ev(chunk({ content: 'a' })))]), () => {
      log.push('wait')
      return new Promise<void>((r) => (release = r))
    })
    const reader = body.getReader()
    const first = reader.read().then((r) => log.push(r.done ? 'done' : 'data'))
    await new Promise((r) => setTimeout(r, 5))
    expect(log).toEqual(['wait']) // read done, held until the turn comes
    release!()
    await first
    expect(log).toEqual(['wait', 'data'])
  })

  it('passes a stream with \\r line endings through unchanged', async () => {
    const text = 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\r\n\r\n'.repeat(3) + 'data: [DONE]\r\n\r\n'
    expect((await readAll(mergeDeltaEvents(bodyOf([new TextEncoder().encode(text)])))).text).toBe(text)
  })

  it('passes an unterminated tail through at the end', async () => {
    const text = ev(chunk({ content: 'a' })) + 'data: {"par'
    expect((await readAll(mergeDeltaEvents(bodyOf([new TextEncoder().encode(text)])))).text).toBe(text)
  })

  it('applies to openai-completions only', () => {
    expect(wantsSseMerge('openai-completions')).toBe(true)
    expect(wantsSseMerge('anthropic-messages')).toBe(false)
    expect(wantsSseMerge('openai-responses')).toBe(false)
  })
})

describe('through the real pi-ai openai-completions client and the scripted server', () => {
  let server: ModelServer
  beforeAll(async () => {
    server = await startModelServer({ captureBodies: false })
  })
  afterAll(() => server.close())

  const model = () =>
    ({
      id: 'm',
      name: 'm',
      api: 'openai-completions',
      provider: 'mock',
      baseUrl: server.openaiBaseUrl,
      reasoning: true,
      input: ['text'],
      cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 100_000,
      maxTokens: 1000,
    }) as Model<'openai-completions'>

  async function run(turn: Turn, fetch?: typeof globalThis.fetch, signal?: AbortSignal) {
    server.script([turn])
    const s = openaiStream(model(), normalizeContext({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }), { apiKey: 'k', fetch, signal })
    let textDeltas = 0
    let thinkingDeltas = 0
    for await (const e of s) {
      if (e.type === 'text_delta') textDeltas++
      if (e.type === 'thinking_delta') thinkingDeltas++
    }
    return { message: (await s.result()) as AssistantMessage, textDeltas, thinkingDeltas }
  }
  const comparable = (m: AssistantMessage) => ({ ...m, timestamp: 0, responseId: undefined })

  it('builds the identical assistant message (text, reasoning, tool call, usage, stop reason) from fewer events', async () => {
    const turn: ReplyTurn = {
      reasoning: Array.from({ length: 300 }, (_, i) => `r${i} `),
      textChunks: Array.from({ length: 2000 }, (_, i) => `t${i}·`),
      toolCalls: [{ id: 'call_1', name: 'read', args: { path: 'a.txt' }, fragments: 5 }],
      usage: { input: 12, output: 2300 },
    }
    const plain = await run(turn)
    const merged = await run(turn, sseMergeFetch())
    expect(comparable(merged.message)).toEqual(comparable(plain.message))
    expect(merged.message.stopReason).toBe('toolUse')
    expect(plain.textDeltas).toBe(2000)
    expect(merged.textDeltas).toBeGreaterThan(0)
    expect(merged.textDeltas).toBeLessThan(200)
    expect(merged.thinkingDeltas).toBeLessThan(plain.thinkingDeltas)
  })

  it('keeps status, headers (minus content-length) and url of the response', async () => {
    server.script([{ text: 'hi' }])
    const res = await sseMergeFetch()(`${server.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    expect(res.url).toBe(`${server.openaiBaseUrl}/chat/completions`)
    expect(await res.text()).toContain('data: [DONE]')
  })

  it('errors and aborts behave as without it', async () => {
    const bad = await run({ text: 'abc', malformedAfterChunks: 1 }, sseMergeFetch())
    expect(bad.message.stopReason).toBe('error')
    const failed = await run({ status: 500, message: 'boom' }, sseMergeFetch())
    expect(failed.message.stopReason).toBe('error')
    expect(failed.message.errorMessage).toMatch(/boom|500/)
    const ac = new AbortController()
    server.script([{ textChunks: Array.from({ length: 50 }, () => 'x'), delayMs: 5 }])
    const s = openaiStream(model(), normalizeContext({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }), { apiKey: 'k', fetch: sseMergeFetch(), signal: ac.signal })
    let seen = 0
    for await (const e of s) if (e.type === 'text_delta' && ++seen === 3) ac.abort()
    expect((await s.result()).stopReason).toBe('aborted')
  })
})
