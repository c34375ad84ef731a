// A server that refuses `stream_options` (an older vLLM, as the scripted server plays it) with the real pi-ai
// client: the run still succeeds, later runs do not send the field at all, and a model entry's `compat` in
// loopdesk.json says so up front.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ErrorTurn, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { refusesUnnamedField, StreamOptionsFallback, withoutStreamOptions } from './stream-options'

let vllm: ModelServer
let plain: ModelServer
beforeAll(async () => {
  vllm = await startModelServer({ refuseStreamOptions: true })
  plain = await startModelServer()
})
afterAll(async () => {
  await vllm.close()
  await plain.close()
})
let t: TestRuntime | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
  vi.restoreAllMocks()
})

async function run(rt: TestRuntime, runId: string, message = 'hi') {
  await rt.call('agent', { message, idempotencyKey: runId })
  return rt.call('agent.wait', { runId, timeoutMs: 15_000 })
}

const lastReply = async (rt: TestRuntime) => {
  const h = (await rt.call('chat.history', { sessionKey: 'agent:main:main' })) as { messages: Array<{ role: string; content: unknown }> }
  return JSON.stringify(h.messages.filter((m) => m.role === 'assistant').at(-1)?.content)
}

describe('a server that refuses stream_options', () => {
  it('the refused request is sent once more without it; the run succeeds without usage; the next run never sends it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    t = await startTestRuntime(vllm)
    vllm.script([{ text: 'first reply' }, { text: 'second reply' }])

    expect((await run(t, 'r1')).status).toBe('ok')
    expect(vllm.requests.map((r) => r.body.stream_options)).toEqual([{ include_usage: true }, undefined])
    // the same request otherwise
    expect({ ...vllm.requests[0].body, stream_options: undefined }).toEqual({ ...vllm.requests[1].body, stream_options: undefined })
    expect(await lastReply(t)).toContain('first reply')
    // no usage came: counted as none, not an error
    const row = (await t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')
    expect(row?.totalTokens ?? 0).toBe(0)

    expect((await run(t, 'r2', 'again')).status).toBe('ok')
    expect(vllm.requests).toHaveLength(3)
    expect('stream_options' in vllm.requests[2].body).toBe(false)
    expect(await lastReply(t)).toContain('second reply')

    const lines = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('stream_options'))
    expect(lines).toEqual([`[models] mock/m1: the server at ${vllm.openaiBaseUrl} refused stream_options (HTTP 400); its requests go without it from now on (usage only if the server sends it)`])
  })

  it('usage the server sends without being asked is still counted', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    t = await startTestRuntime(vllm, { config: testConfig(vllm, { models: { providers: { v2: { baseUrl: vllm.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'm2' }] } } }, agents: { defaults: { model: { primary: 'v2/m2' } } } }) })
    const before = vllm.requests.length
    vllm.script([{ text: 'counted', usage: { input: 7, output: 3 } }])
    expect((await run(t, 'u1')).status).toBe('ok')
    expect(vllm.requests.slice(before).map((r) => 'stream_options' in r.body)).toEqual([true, false])
    const row = (await t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')
    expect(row?.totalTokens).toBe(10)
  })

  it('another 400 is not sent again', async () => {
    t = await startTestRuntime(plain)
    plain.script([{ status: 400, message: "'temperature' is out of range" }])
    const before = plain.requests.length
    const w = await run(t, 'e1')
    expect(w.status).toBe('error')
    // the body looked at is still the SDK's to read: the run's error carries the server's words
    expect(String((w as { error?: string }).error)).toContain("'temperature' is out of range")
    expect(plain.requests.length - before).toBe(1)
    expect(plain.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true })
  })
})

describe('a refusal that does not name stream_options', () => {
  // each case on a server of its own: a refusal remembered for one provider+model+URL would carry over
  async function refusedThenServed(refusal: ErrorTurn) {
    const server = await startModelServer()
    try {
      t = await startTestRuntime(server)
      server.script([refusal, { text: 'served' }])
      const w = await run(t, 'x1')
      const sent = server.requests.map((r) => 'stream_options' in r.body)
      const reply = await lastReply(t)
      let next: boolean[] = []
      if (w.status === 'ok') {
        expect((await run(t, 'x2', 'again')).status).toBe('ok')
        next = server.requests.slice(sent.length).map((r) => 'stream_options' in r.body)
      }
      return { w, sent, reply, next }
    } finally {
      await t?.close()
      t = undefined
      await server.close()
    }
  }

  it.each([
    ['pydantic v1, 422', { status: 422, body: { detail: [{ loc: ['body'], msg: 'extra fields not permitted', type: 'value_error.extra' }] } }],
    ['an OpenAI-style error, 400', { status: 400, message: 'Unrecognized request argument supplied' }],
    ['serde, plain text 400', { status: 400, body: 'Failed to deserialize the JSON body into the target type: unknown field at line 1 column 412' }],
  ] as Array<[string, ErrorTurn]>)('%s: sent once more without it, and remembered once that got through', async (_name, refusal) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { w, sent, reply, next } = await refusedThenServed(refusal)
    expect(w.status).toBe('ok')
    expect(sent).toEqual([true, false])
    expect(reply).toContain('served')
    expect(next).toEqual([false])
    expect(warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('an unnamed extra field'))).toHaveLength(1)
  })

  it.each([
    ['an error naming another field of the request', { status: 400, message: 'Unrecognized request argument supplied: max_completion_tokens' }],
    ['pydantic naming where the extra field is', { status: 422, body: { detail: [{ loc: ['body', 'messages', 0, 'role'], msg: 'extra fields not permitted' }] } }],
    ['a 401 in the same words', { status: 401, message: 'unknown field; invalid api key' }],
    ['a 400 about something else', { status: 400, message: 'prompt is too long' }],
  ] as Array<[string, ErrorTurn]>)('%s: not sent again', async (_name, refusal) => {
    const { w, sent } = await refusedThenServed(refusal)
    expect(w.status).toBe('error')
    expect(sent).toEqual([true])
  })
})

describe('compat on a model entry', () => {
  it('supportsUsageInStreaming: false sends no stream_options from the first request on', async () => {
    t = await startTestRuntime(plain)
    const { hash } = await t.call('config.get', {})
    await t.call('config.patch', {
      patch: { models: { providers: { mock: { models: [{ id: 'm1', contextWindow: 32000, compat: { supportsUsageInStreaming: false } }] } } } },
      baseHash: hash,
    })
    const before = plain.requests.length
    expect((await run(t, 'c1')).status).toBe('ok')
    expect(plain.requests.slice(before).map((r) => 'stream_options' in r.body)).toEqual([false])
  })

  it('maxTokensField and supportsReasoningEffort reach the request as pi-ai reads them', async () => {
    const server = await startModelServer()
    try {
      const model = (compat?: Record<string, unknown>) => ({ id: 'r1', reasoning: true, contextWindow: 32000, maxTokens: 1000, ...(compat ? { compat } : {}) })
      const config = (compat?: Record<string, unknown>) =>
        testConfig(server, {
          models: { providers: { strict: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [model(compat)] } } },
          agents: { defaults: { model: { primary: 'strict/r1' }, thinkingDefault: 'medium' } },
        })
      t = await startTestRuntime(server, { config: config() })
      expect((await run(t, 'd1')).status).toBe('ok')
      const plainBody = server.requests.at(-1)!.body
      expect(plainBody.max_completion_tokens).toBeGreaterThan(0)
      expect(plainBody.reasoning_effort).toBe('medium')
      await t.close()
      t = await startTestRuntime(server, { config: config({ maxTokensField: 'max_tokens', supportsReasoningEffort: false }) })
      expect((await run(t, 'd2')).status).toBe('ok')
      const body = server.requests.at(-1)!.body
      expect(body.max_tokens).toBe(plainBody.max_completion_tokens)
      expect('max_completion_tokens' in body).toBe(false)
      expect('reasoning_effort' in body).toBe(false)
    } finally {
      await t?.close()
      t = undefined
      await server.close()
    }
  })

  it('is validated by config.patch: a closed object of booleans', async () => {
    t = await startTestRuntime(plain)
    const patchModel = (m: unknown) => t!.raw('config.patch', { patch: { models: { providers: { mock: { models: [m] } } } } })
    const wrongType = await patchModel({ id: 'm1', compat: { supportsUsageInStreaming: 'no' } })
    expect(wrongType.ok).toBe(false)
    expect(JSON.stringify(wrongType)).toContain('compat.supportsUsageInStreaming')
    const unknown = await patchModel({ id: 'm1', compat: { supportsStreamOptions: false } })
    expect(unknown.ok).toBe(false)
    expect(JSON.stringify(unknown)).toContain('supportsStreamOptions')
    expect((await patchModel({ id: 'm1', compat: { supportsUsageInStreaming: true } })).ok).toBe(true)
    expect((await patchModel({ id: 'm1', compat: { maxTokensField: 'max_length' } })).ok).toBe(false)
    expect((await patchModel({ id: 'm1', compat: { maxTokensField: 'max_tokens', supportsReasoningEffort: false } })).ok).toBe(true)
  })
})

describe('StreamOptionsFallback.fetch', () => {
  const model = { api: 'openai-completions', provider: 'azure', id: 'gpt', baseUrl: 'https://x.test/v1' }
  const body = JSON.stringify({ model: 'gpt', stream: true, stream_options: { include_usage: true } })

  it('a 422 in other words (Azure, LiteLLM) is also sent again without the field; other APIs are left alone', async () => {
    const sent: string[] = []
    const base = (async (_input: unknown, init?: RequestInit) => {
      sent.push(String(init?.body))
      return String(init?.body).includes('stream_options')
        ? new Response(JSON.stringify({ error: { message: 'Unrecognized request argument supplied: stream_options' } }), { status: 422 })
        : new Response('data: [DONE]\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } })
    }) as typeof fetch
    const logged: string[] = []
    const fallback = new StreamOptionsFallback((l) => logged.push(l))
    const res = await fallback.fetch(base, model)!('https://x.test/v1/chat/completions', { method: 'POST', body })
    expect(res.status).toBe(200)
    expect(sent.map((b) => b.includes('stream_options'))).toEqual([true, false])
    expect(fallback.refuses(model)).toBe(true)
    expect(fallback.refuses({ ...model, baseUrl: 'https://other.test/v1' })).toBe(false)
    expect((fallback.modelFor(model) as { compat?: unknown }).compat).toEqual({ supportsUsageInStreaming: false })
    expect(logged).toHaveLength(1)
    expect(fallback.fetch(base, { ...model, api: 'openai-responses' })).toBe(base)
  })
})

describe('refusesUnnamedField', () => {
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true }, max_tokens: 5 })

  it('an extra/unknown field in the error, no other field of the request named', () => {
    expect(refusesUnnamedField('{"error":{"message":"extra fields not permitted","type":"invalid_request_error","param":null}}', body)).toBe(true)
    expect(refusesUnnamedField('Unrecognized request argument supplied', body)).toBe(true)
    expect(refusesUnnamedField('{"error":"unknown field"}', body)).toBe(true)
    // the envelope's keys are not the server's words
    expect(refusesUnnamedField('{"type":"extra_forbidden","msg":"Extra inputs are not permitted"}', body)).toBe(true)
    // a key that is also an English word (`content`, `model`) in prose does not count as naming it
    expect(refusesUnnamedField('unknown field in the content of the model request', body)).toBe(true)
  })

  it('not when another field is named, the words are about something else, or the request is not JSON', () => {
    expect(refusesUnnamedField('unknown field `max_tokens`', body)).toBe(false)
    expect(refusesUnnamedField("unknown field 'content'", body)).toBe(false)
    expect(refusesUnnamedField('Unrecognized request argument supplied: model', body)).toBe(false)
    expect(refusesUnnamedField('{"detail":[{"loc":["body","messages",0,"name"],"msg":"extra fields not permitted"}]}', body)).toBe(false)
    expect(refusesUnnamedField('model not found', body)).toBe(false)
    expect(refusesUnnamedField('access not permitted', body)).toBe(false)
    expect(refusesUnnamedField('unknown field', 'not json')).toBe(false)
  })
})

describe('StreamOptionsFallback.fetch, a refusal not naming the field', () => {
  const model = { api: 'openai-completions', provider: 'strict', id: 'm', baseUrl: 'https://y.test/v1' }
  const body = JSON.stringify({ model: 'm', stream: true, stream_options: { include_usage: true } })

  it('refused again without it: that answer goes to the SDK, and nothing is remembered (the guess was wrong)', async () => {
    const sent: string[] = []
    const base = (async (_input: unknown, init?: RequestInit) => {
      sent.push(String(init?.body))
      return new Response(JSON.stringify({ error: { message: 'extra fields not permitted' } }), { status: 400 })
    }) as typeof fetch
    const logged: string[] = []
    const fallback = new StreamOptionsFallback((l) => logged.push(l))
    const res = await fallback.fetch(base, model)!('https://y.test/v1/chat/completions', { method: 'POST', body })
    expect(res.status).toBe(400)
    expect(sent.map((b) => b.includes('stream_options'))).toEqual([true, false])
    expect(fallback.refuses(model)).toBe(false)
    expect(logged).toEqual([])
  })
})

describe('withoutStreamOptions', () => {
  it('drops the field and keeps the rest; anything else is not its body', () => {
    expect(JSON.parse(withoutStreamOptions('{"model":"m","stream":true,"stream_options":{"include_usage":true}}')!)).toEqual({ model: 'm', stream: true })
    expect(withoutStreamOptions('{"model":"m"}')).toBeUndefined()
    expect(withoutStreamOptions('not json "stream_options"')).toBeUndefined()
  })
})
