// A model of a reasoning family (qwen3, QwQ, DeepSeek-R1…) served with a chat template that opens <think> itself
// writes its reasoning with no opening tag, then </think>, then the answer. Its first message is held while that is
// undecided (streaming/think-tag-text.ts), so the reasoning never shows as reply text — not even to be taken back,
// which `loopdesk agent` (it prints chat deltas as they come) cannot do.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { forgetTemplateOpenedModels, HOLD_CHARS, reasoningFamily } from '../streaming/think-tag-text'

let server: ModelServer
let t: TestRuntime
beforeAll(async () => {
  server = await startModelServer()
  const local = ['qwen3:8b', 'qwen3:4b', 'qwen3:1.7b', 'deepseek-r1:7b', 'llama3.2'].map((id) => ({ id, contextWindow: 32000, maxTokens: 1024 }))
  t = await startTestRuntime(server, {
    config: testConfig(server, { models: { providers: { local: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: local } } } }),
  })
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})
afterEach(() => forgetTemplateOpenedModels())

const agentEvents = (runId: string) => t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const assistantData = (runId: string) => agentEvents(runId).filter((e) => e.stream === 'assistant').map((e) => e.data as { text: string; replace?: boolean })
const chatTexts = (runId: string) =>
  t.events.filter((e) => e.event === 'chat' && e.payload.runId === runId).map((e) => (e.payload as ChatEvent).message?.content.map((c) => c.text).join('') ?? '')

async function run(runId: string, model: string, sessionKey = `agent:main:${runId}`) {
  await t.call('agent', { message: 'go', idempotencyKey: runId, sessionKey, model })
  expect(await t.call('agent.wait', { runId, timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
  return (await t.runtime.agentFinal(runId)).result!.payloads
}

describe('template-opened reasoning of a reasoning-family model', () => {
  it('its first message: the reasoning never streams as reply (nothing to take back), and it is remembered', async () => {
    server.push({ textChunks: ['The user wants', ' a number.\n</th', 'ink>\n\n42'], delayMs: 15 })
    expect(await run('th1', 'local/qwen3:8b')).toEqual([{ text: '42' }])
    expect(assistantData('th1')).toEqual([{ text: '42', delta: '42' }])
    for (const text of chatTexts('th1')) expect(text).not.toContain('The user')
    expect(chatTexts('th1').at(-1)).toBe('42')
    const reasoning = agentEvents('th1').filter((e) => e.stream === 'reasoning').map((e) => e.data)
    expect(reasoning).toEqual([{ phase: 'start' }, { phase: 'end' }])
    const row = (await t.call('chat.history', { sessionKey: 'agent:main:th1' })).messages.filter((m) => m.role === 'assistant').at(-1)
    expect(row!.content).toEqual([
      { type: 'thinking', thinking: 'The user wants a number.' },
      { type: 'text', text: '42' },
    ])
    // the next message starts inside the block at once (the remembered path)
    server.push({ textChunks: ['Again.', '</think>', '\n\n43'], delayMs: 15 })
    expect(await run('th2', 'local/qwen3:8b', 'agent:main:th1')).toEqual([{ text: '43' }])
    expect(assistantData('th2')).toEqual([{ text: '43', delta: '43' }])
  })

  it('a first message that is plainly the reply is shown when it ends, and the model streams at once from then on', async () => {
    server.push({ textChunks: ['just ', 'an answer'], delayMs: 15 })
    expect(await run('th3', 'local/qwen3:4b')).toEqual([{ text: 'just an answer' }])
    expect(assistantData('th3').map((d) => d.text)).toEqual(['just an answer'])
    server.push({ textChunks: ['plain ', 'again'], delayMs: 15 })
    await run('th4', 'local/qwen3:4b', 'agent:main:th3')
    expect(assistantData('th4').map((d) => d.text)).toEqual(['plain ', 'plain again'])
  })

  it('the hold is bounded: past HOLD_CHARS with no tag the text is the reply and streams on', async () => {
    const long = 'word '.repeat(Math.ceil(HOLD_CHARS / 5))
    server.push({ textChunks: [long, 'and ', 'the end'], delayMs: 15 })
    await run('th5', 'local/deepseek-r1:7b')
    const texts = assistantData('th5').map((d) => d.text)
    expect(texts[0]).toBe(long)
    expect(texts.at(-1)).toBe(`${long}and the end`)
    expect(texts.length).toBeGreaterThan(1)
  })

  it('a first message that only calls a tool tells nothing: the next one is still held, and its text before a call is released then', async () => {
    server.push({ toolCalls: [{ name: 'read', args: { path: 'notes.txt' } }] }, { textChunks: ['Reading', '</think>', '\n\ndone'], delayMs: 15 })
    await run('th8', 'local/qwen3:8b')
    expect(assistantData('th8').map((d) => d.text)).toEqual(['done'])
    forgetTemplateOpenedModels()
    server.push({ textChunks: ['Let me ', 'look.'], toolCalls: [{ name: 'read', args: { path: 'x.txt' } }], delayMs: 15 }, { text: 'ok' })
    await run('th9', 'local/qwen3:8b')
    const texts = assistantData('th9').map((d) => d.text)
    expect(texts[0]).toBe('Let me look.')
  })

  it('native reasoning (the server splits it) ends the hold: the reply streams at once', async () => {
    server.push({ reasoning: ['plan ', 'it'], textChunks: ['the ', 'reply'], delayMs: 15 })
    expect(await run('th6', 'local/qwen3:1.7b')).toEqual([{ text: 'the reply' }])
    expect(assistantData('th6').map((d) => d.text)).toEqual(['the ', 'the reply'])
  })

  it('a model outside those families is never held (what it streams before a stray </think> is taken back)', async () => {
    server.push({ textChunks: ['hello ', 'there'], delayMs: 15 })
    await run('th7', 'local/llama3.2')
    expect(assistantData('th7').map((d) => d.text)).toEqual(['hello ', 'hello there'])
  })

  it('names the families that template-open their reasoning, not their non-thinking builds', () => {
    for (const id of ['qwen3:8b', 'Qwen3-30B-A3B', 'qwq:32b', 'deepseek-r1:14b', 'DeepSeek-R1-Distill-Qwen-7B', 'phi4-reasoning', 'openthinker:7b', 'qwen3-4b-thinking-2507']) {
      expect(reasoningFamily(id), id).toBe(true)
    }
    for (const id of ['llama3.2', 'qwen3-coder:30b', 'Qwen3-4B-Instruct-2507', 'qwen2.5:7b', 'gpt-4o', 'mistral-r1x', 'r10-model']) {
      expect(reasoningFamily(id), id).toBe(false)
    }
  })
})
