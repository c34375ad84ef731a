// Ollama cuts a prompt longer than its context without a word: a run on an Ollama provider whose response
// counts far fewer prompt tokens than were sent tells the user, naming the fix. Unit rules, then the real pi-ai
// client against the scripted server answering with a small usage.prompt_tokens.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { estimateSent, isOllama, truncationNotice } from './ollama-truncation'

const ollama = { provider: 'ollama', id: 'qwen3:8b', baseUrl: 'http://127.0.0.1:11434/v1', contextWindow: 32768 }

describe('isOllama', () => {
  it('its port, or a provider id or base URL naming it', () => {
    expect(isOllama({ provider: 'local', baseUrl: 'http://192.168.1.5:11434/v1' })).toBe(true)
    expect(isOllama({ provider: 'Ollama-box', baseUrl: 'http://gpu:8080/v1' })).toBe(true)
    expect(isOllama({ provider: 'gpu', baseUrl: 'https://ollama.example.test/v1' })).toBe(true)
    expect(isOllama({ provider: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1' })).toBe(false)
    expect(isOllama({ provider: 'openai', baseUrl: '' })).toBe(false)
  })
})

describe('truncationNotice', () => {
  it('a prompt count far below what was sent: the notice names both counts and the fix', () => {
    const n = truncationNotice(ollama, 9000, 4096)
    expect(n).toMatchObject({ reason: 'context_truncated', provider: 'ollama', model: 'qwen3:8b', promptTokens: 4096, estimatedTokens: 9000, contextWindow: 32768 })
    expect(n?.message).toContain('read only 4096 of the ~9000 tokens')
    expect(n?.message).toContain('OLLAMA_CONTEXT_LENGTH=16384')
    expect(n?.message).toContain('num_ctx')
    expect(n?.message).toContain('context window in Loopdesk')
  })

  it('no notice within the estimate’s error, for a small prompt, without usage, or for another server', () => {
    expect(truncationNotice(ollama, 9000, 6000)).toBeUndefined() // 67%: whitespace-heavy text tokenizes sparser
    expect(truncationNotice(ollama, 2100, 1100)).toBeUndefined() // half, but under 1024 tokens short
    expect(truncationNotice(ollama, 1900, 200)).toBeUndefined() // estimated under 2048: never cut by a default window
    expect(truncationNotice(ollama, 9000, 0)).toBeUndefined() // the server sent no usage
    expect(truncationNotice({ ...ollama, provider: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1' }, 9000, 2048)).toBeUndefined()
  })

  it('estimateSent counts the system prompt and text, not images or earlier reasoning', () => {
    const text = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(4000) }] }
    const withImage = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(4000) }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }
    const reply = { role: 'assistant', content: [{ type: 'text', text: 'z'.repeat(400) }] }
    const thought = { role: 'assistant', content: [{ type: 'thinking', thinking: 't'.repeat(40_000) }, { type: 'text', text: 'z'.repeat(400) }] }
    expect(estimateSent({ systemPrompt: 'y'.repeat(400), messages: [text] })).toBe(1000 + 4 + 100)
    expect(estimateSent({ messages: [withImage] })).toBe(estimateSent({ messages: [text] }))
    expect(estimateSent({ messages: [text, thought] })).toBe(estimateSent({ messages: [text, reply] }))
  })
})

describe('a run on Ollama', () => {
  let server: ModelServer
  let t: TestRuntime | undefined
  beforeAll(async () => {
    server = await startModelServer()
  })
  afterAll(async () => {
    await server.close()
  })
  afterEach(async () => {
    await t?.close()
    t = undefined
    vi.restoreAllMocks()
  })

  const config = (provider: string) =>
    testConfig(server, {
      models: { providers: { [provider]: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'llama', contextWindow: 32768 }] } } },
      agents: { defaults: { model: { primary: `${provider}/llama` } } },
    })
  // what a server that read everything would count: the request's characters / 4
  const fullCount = (req: CapturedRequest) => Math.round(JSON.stringify(req.body.messages).length / 4 + JSON.stringify(req.body.tools ?? []).length / 4)

  async function run(rt: TestRuntime, runId: string, message: string) {
    await rt.call('agent', { message, idempotencyKey: runId })
    expect(await rt.call('agent.wait', { runId, timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
    return t!.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => (e.event === 'agent' ? e.payload : undefined)!)
  }

  it('a prompt read only in part: an error notice naming the fix, before the run ends', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    t = await startTestRuntime(server, { config: config('ollama') })
    server.script([{ text: 'about the end only', usage: { input: 2048, output: 5 } }])
    const events = await run(t, 'o1', 'Please read all of this. ' + 'lorem ipsum dolor sit amet '.repeat(1200))
    const at = events.findIndex((e) => e.stream === 'error')
    expect(events[at]?.data).toMatchObject({ reason: 'context_truncated', provider: 'ollama', model: 'llama', promptTokens: 2048, contextWindow: 32768 })
    // the message's ~8 100 tokens and the system prompt with its tool declarations
    const sent = server.requests.at(-1)!.body
    const systemChars = JSON.stringify(sent.messages.filter((m: { role: string }) => m.role === 'system')).length + JSON.stringify(sent.tools ?? []).length
    expect(Number(events[at]?.data.estimatedTokens)).toBeGreaterThan(8000 + systemChars / 4 / 2)
    expect(String(events[at]?.data.message)).toContain('OLLAMA_CONTEXT_LENGTH')
    expect(at).toBeLessThan(events.findIndex((e) => e.stream === 'lifecycle' && e.data.phase === 'end'))
    expect(warn.mock.calls.some((c) => String(c[0]).includes('Ollama read only 2048'))).toBe(true)
    // stored with the reply (chat.history reads the transcript): the note outlives the run's events
    const rows = (await t.call('chat.history', { sessionKey: 'agent:main:main' })).messages
    const reply = rows.find((m) => m.role === 'assistant' && m.runId === 'o1')
    expect(reply?.contextTruncated).toEqual({ message: events[at]?.data.message, promptTokens: 2048, estimatedTokens: events[at]?.data.estimatedTokens })
    expect(rows.filter((m) => m.contextTruncated)).toHaveLength(1)
  })

  it('no notice when the server counted what was sent, for another server, or for a reply without usage', async () => {
    t = await startTestRuntime(server, { config: config('ollama') })
    const long = 'lorem ipsum dolor sit amet '.repeat(1200)
    server.script((req) => ({ text: 'all read', usage: { input: fullCount(req), output: 5 } }))
    expect((await run(t, 'n1', long)).filter((e) => e.stream === 'error')).toEqual([])
    server.script(() => ({ text: 'no usage', usage: null }))
    expect((await run(t, 'n2', long)).filter((e) => e.stream === 'error').map((e) => e.data)).toEqual([])
    await t.close()
    t = await startTestRuntime(server, { config: config('vllm') })
    server.script(() => ({ text: 'cut?', usage: { input: 2048, output: 5 } }))
    expect((await run(t, 'n3', long)).filter((e) => e.stream === 'error')).toEqual([])
  })
})
