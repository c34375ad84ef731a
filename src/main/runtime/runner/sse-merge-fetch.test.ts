import { stream as openaiStream } from '@earendil-works/pi-ai/api/openai-completions'
import { stream as anthropicStream } from '@earendil-works/pi-ai/api/anthropic-messages'
import { normalizeContext, type AssistantMessage, type Model } from '@earendil-works/pi-ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer, type ReplyTurn, type Turn } from '../../../../test/fixtures/model-server'
import { dialectOf, mergeDeltaEvents, mergeEvents, sseMergeFetch, wantsSseMerge } from './sse-merge-fetch'

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
async function readAll(body: AsyncIterable<Uint8Array>): Promise<{ text: string; reads: number }> {
  const dec = new TextDecoder()
  let text = ''
  let reads = 0
  for await (const c of body) {
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

  it('applies to openai-completions and anthropic-messages, choosing the dialect by the request path', () => {
    expect(wantsSseMerge('openai-completions')).toBe(true)
    expect(wantsSseMerge('anthropic-messages')).toBe(true)
    expect(wantsSseMerge('openai-responses')).toBe(false)
    expect(dialectOf('http://127.0.0.1:1/v1/chat/completions')).toBe('openai')
    expect(dialectOf(new URL('https://x.example/openai/deployments/d/chat/completions?api-version=1'))).toBe('openai')
    expect(dialectOf(new Request('http://127.0.0.1:1/v1/messages?beta=true'))).toBe('anthropic')
    expect(dialectOf('http://127.0.0.1:1/v1/responses')).toBe('none')
  })

  it('dialect none passes the bytes through as they came (pacing still applies)', async () => {
    const events = ev(chunk({ content: 'a' })) + ev(chunk({ content: 'b' }))
    const bytes = new TextEncoder().encode(events)
    let waits = 0
    const out = await readAll(mergeDeltaEvents(bodyOf([bytes.subarray(0, 5), bytes.subarray(5)]), () => void waits++, 'none'))
    expect(out).toEqual({ text: events, reads: 2 })
    expect(waits).toBe(3) // two reads and the end
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

// ------------------------------------------------------------------ Anthropic messages

const aev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
const delta = (index: number, d: Record<string, unknown>) => aev('content_block_delta', { index, delta: d })
const text = (index: number, t: string) => delta(index, { type: 'text_delta', text: t })

describe('mergeEvents (anthropic)', () => {
  it('merges consecutive deltas of one content block and delta type; every other event stays, byte for byte and in order', () => {
    const start = aev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 3, output_tokens: 0 } } })
    const thinkStart = aev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } })
    const sig = delta(0, { type: 'signature_delta', signature: 'sig' })
    const stop0 = aev('content_block_stop', { index: 0 })
    const textStart = aev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } })
    const ping = aev('ping', {})
    const stop1 = aev('content_block_stop', { index: 1 })
    const toolStart = aev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 't1', name: 'read', input: {} } })
    const json = (p: string) => delta(2, { type: 'input_json_delta', partial_json: p })
    const stop2 = aev('content_block_stop', { index: 2 })
    const msgDelta = aev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } })
    const msgStop = aev('message_stop', {})
    const think = (t: string) => delta(0, { type: 'thinking_delta', thinking: t })
    const block =
      start +
      thinkStart +
      think('I ') +
      think('think') +
      sig +
      stop0 +
      textStart +
      text(1, 'He') +
      text(1, 'llo') +
      ping +
      text(1, ' wor') +
      text(1, 'ld') +
      stop1 +
      toolStart +
      json('{"pa') +
      json('th":"a') +
      json('.txt"}') +
      stop2 +
      msgDelta +
      msgStop
    expect(mergeEvents(block, 'anthropic')).toBe(
      start +
        thinkStart +
        think('I think') +
        sig +
        stop0 +
        textStart +
        text(1, 'Hello') +
        ping +
        text(1, ' world') +
        stop1 +
        toolStart +
        json('{"path":"a.txt"}') +
        stop2 +
        msgDelta +
        msgStop,
    )
    // the OpenAI dialect leaves an Anthropic stream alone (and vice versa)
    expect(mergeEvents(block, 'openai')).toBe(block)
    const oa = ev(chunk({ content: 'a' })) + ev(chunk({ content: 'b' }))
    expect(mergeEvents(oa, 'anthropic')).toBe(oa)
  })

  it('never merges across block indexes, delta types, event-line spellings or events with anything extra', () => {
    const other = text(2, 'x')
    const noSpace = 'event:content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"n"}}\n\n'
    const extraTop = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"e"},"x":1}\n\n'
    const extraDelta = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"f","citations":[]}}\n\n'
    const withId = 'event: content_block_delta\nid: 7\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"g"}}\n\n'
    const dataOnly = 'data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"h"}}\n\n'
    const wrongName = 'event: message_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"i"}}\n\n'
    const broken = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"j\tk"}}\n\n'
    const citation = delta(1, { type: 'citations_delta', citation: { cited_text: 'c' } })
    const block =
      text(1, 'a') + other + text(1, 'b') + noSpace + noSpace + extraTop + text(1, 'c') + extraDelta + withId + dataOnly + wrongName + broken + citation + text(1, 'd') + text(1, 'e')
    expect(mergeEvents(block, 'anthropic')).toBe(
      text(1, 'a') +
        other +
        text(1, 'b') +
        noSpace.replace('"text":"n"', '"text":"nn"') + // same spelling: one group
        extraTop +
        text(1, 'c') +
        extraDelta +
        withId +
        dataOnly +
        wrongName +
        broken + // invalid JSON (raw tab): pi-ai repairs it itself; never merged
        citation +
        text(1, 'de'),
    )
  })

  it('merges texts with escapes and multi-byte characters, also when the provider escapes non-ASCII', () => {
    const texts = ['say "hi"\n', '\\path\t', '日本語 ', '🙂', '\u0000', '</x>']
    expect(mergeEvents(texts.map((t) => text(0, t)).join(''), 'anthropic')).toBe(text(0, texts.join('')))
    const escaped = (t: string) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`
    const out = mergeEvents(escaped('caf\\u00e9 ') + escaped('na\\u00efve') + escaped(' \\ud83d\\ude42'), 'anthropic')
    expect(out.split('\n\n').filter(Boolean)).toHaveLength(1)
    expect(JSON.parse(out.split('\n')[1].slice(6)).delta.text).toBe('café naïve 🙂')
  })
})

/** Bytes cut into pieces of the given sizes (cycled), a multi-byte character may straddle two pieces. */
function cut(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length]
    out.push(bytes.subarray(at, at + n))
    at += n
  }
  return out
}

/** Seeded sizes 1..max (deterministic: a failure can be replayed). */
function randomSizes(seed: number, count: number, max: number): number[] {
  let x = seed
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return 1 + (x % max)
  })
}

describe('through the real pi-ai anthropic-messages client and the scripted server', () => {
  let server: ModelServer
  beforeAll(async () => {
    server = await startModelServer({ captureBodies: false })
  })
  afterAll(() => server.close())

  const model = () =>
    ({
      id: 'claude-mock',
      name: 'claude-mock',
      api: 'anthropic-messages',
      provider: 'mock',
      baseUrl: server.anthropicBaseUrl,
      reasoning: true,
      input: ['text'],
      cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 },
      contextWindow: 100_000,
      maxTokens: 1000,
    }) as Model<'anthropic-messages'>

  /** The server's response body, re-delivered to the client in pieces of `sizes` bytes (undefined: one piece). */
  const rechunk =
    (sizes?: number[]): typeof fetch =>
    async (input, init) => {
      const res = await fetch(input, init)
      const bytes = new Uint8Array(await res.arrayBuffer())
      return new Response(bodyOf(sizes ? cut(bytes, sizes) : [bytes]), { status: res.status, headers: res.headers })
    }

  async function run(turn: Turn, fetch: typeof globalThis.fetch) {
    server.script([turn])
    const s = anthropicStream(model(), normalizeContext({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }), { apiKey: 'k', fetch })
    const counts: Record<string, number> = {}
    for await (const e of s) counts[e.type] = (counts[e.type] ?? 0) + 1
    return { message: (await s.result()) as AssistantMessage, counts }
  }
  // the message id is made from the server's clock and the timestamp from the client's: all else must match
  const bytesOf = (m: AssistantMessage) => JSON.stringify({ ...m, timestamp: 0, responseId: undefined })

  const turnOf = (texts: number, fragments: number): ReplyTurn => ({
    reasoning: Array.from({ length: texts / 10 }, (_, i) => `Überlegung ${i} — `),
    textChunks: Array.from({ length: texts }, (_, i) => (i % 7 === 0 ? `"q${i}"\n` : i % 5 === 0 ? '日本語🙂' : `t${i}·`)),
    toolCalls: [{ id: 'toolu_1', name: 'write', args: { path: 'ä/ö.txt', content: 'Grüße 🙂 "quoted" \\ back\nslash '.repeat(20) }, fragments }],
    usage: { input: 12, output: 2300, cacheRead: 4 },
  })
  const turn = turnOf(1500, 60)

  it('builds the byte-identical assistant message (thinking + signature, text, tool call, usage, stop reason) from far fewer events', async () => {
    const plain = await run(turn, rechunk())
    const merged = await run(turn, sseMergeFetch({ base: rechunk() }))
    expect(bytesOf(merged.message)).toBe(bytesOf(plain.message))
    expect(merged.message.stopReason).toBe('toolUse')
    expect(merged.message.usage).toMatchObject({ input: 12, output: 2300, cacheRead: 4 })
    expect(merged.message.content.map((c) => c.type)).toEqual(['thinking', 'text', 'toolCall'])
    expect((merged.message.content[0] as { thinkingSignature?: string }).thinkingSignature).toBe('sig-mock')
    expect(plain.counts.text_delta).toBe(1500)
    expect(plain.counts.toolcall_delta).toBeGreaterThan(50)
    // one read holds the whole reply: one delta per block
    expect(merged.counts).toMatchObject({ text_delta: 1, thinking_delta: 1, toolcall_delta: 1, text_end: 1, thinking_end: 1, toolcall_end: 1, done: 1 })
  })

  it('is byte-identical whatever the read boundaries (1-byte, 7-byte and random reads cut events and UTF-8 characters)', async () => {
    const small = turnOf(300, 30)
    const reference = bytesOf((await run(small, rechunk())).message)
    for (const sizes of [[1], [7], [4096], randomSizes(1, 500, 300), randomSizes(42, 500, 3000)]) {
      const merged = await run(small, sseMergeFetch({ base: rechunk(sizes) }))
      expect(bytesOf(merged.message)).toBe(reference)
      const plain = await run(small, rechunk(sizes))
      expect(bytesOf(plain.message)).toBe(reference)
      if (sizes[0] >= 4096) expect(merged.counts.text_delta).toBeLessThan(plain.counts.text_delta / 10)
    }
  })

  it('through the network as the server writes it: identical message, fewer deltas', async () => {
    const plain = await run(turn, globalThis.fetch)
    const merged = await run(turn, sseMergeFetch())
    expect(bytesOf(merged.message)).toBe(bytesOf(plain.message))
    expect(merged.counts.text_delta).toBeLessThan(plain.counts.text_delta)
  })

  it('errors, aborts and a dropped stream behave as without it', async () => {
    const failed = await run({ status: 500, message: 'boom' }, sseMergeFetch())
    expect(failed.message.stopReason).toBe('error')
    expect(failed.message.errorMessage).toMatch(/boom|500/)
    const inStream = await run({ text: 'abc', streamError: 'overloaded' }, sseMergeFetch())
    expect(inStream.message.stopReason).toBe('error')
    expect(inStream.message.errorMessage).toContain('overloaded')
    const dropped = await run({ textChunks: ['a', 'b', 'c', 'd'], dropAfterChunks: 4 }, sseMergeFetch())
    const droppedPlain = await run({ textChunks: ['a', 'b', 'c', 'd'], dropAfterChunks: 4 }, globalThis.fetch)
    expect(dropped.message.stopReason).toBe('error')
    expect(dropped.message.errorMessage).toBe(droppedPlain.message.errorMessage)
    const ac = new AbortController()
    server.script([{ textChunks: Array.from({ length: 50 }, () => 'x'), delayMs: 5 }])
    const s = anthropicStream(model(), normalizeContext({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }), { apiKey: 'k', fetch: sseMergeFetch(), signal: ac.signal })
    let seen = 0
    for await (const e of s) if (e.type === 'text_delta' && ++seen === 3) ac.abort()
    expect((await s.result()).stopReason).toBe('aborted')
  })
})
