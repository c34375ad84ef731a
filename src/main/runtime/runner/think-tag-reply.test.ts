// A model that writes its reasoning inline as <think>…</think> (llama.cpp, LM Studio, Ollama, vLLM without a
// reasoning parser): over the real pi-ai client and the scripted model server, the reasoning never reaches the
// reply — assistant stream, chat events, payloads, chat.history, the model's next request — and goes the
// reasoning way per level, as native reasoning does.
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import { useTestRuntime } from '../../../../test/fixtures/use-test-runtime'
import { forgetTemplateOpenedModels } from '../streaming/think-tag-text'

const env = useTestRuntime()
afterEach(() => forgetTemplateOpenedModels())

const agentEvents = (runId: string) => env.t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const streamOf = (runId: string, stream: string) => agentEvents(runId).filter((e) => e.stream === stream)
const assistantTexts = (runId: string) => streamOf(runId, 'assistant').map((e) => String(e.data.text))
const chatEvents = (runId: string) => env.t.events.filter((e) => e.event === 'chat' && e.payload.runId === runId).map((e) => e.payload as ChatEvent)
const chatText = (ev: ChatEvent | undefined) => ev?.message?.content.map((c) => c.text).join('') ?? ''
/** the event order without lifecycle, a run of assistant deltas as one */
const order = (runId: string) =>
  agentEvents(runId)
    .filter((e, i, all) => e.stream !== 'lifecycle' && !(e.stream === 'assistant' && all[i - 1]?.stream === 'assistant'))
    .map((e) => (e.stream === 'reasoning' ? `reasoning:${(e.data as { phase: string }).phase}` : e.stream))

async function run(runId: string, sessionKey: string) {
  await env.t.call('agent', { message: 'go', idempotencyKey: runId, sessionKey })
  expect(await env.t.call('agent.wait', { runId, timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
  return (await env.t.runtime.agentFinal(runId)).result!.payloads
}
const lastAssistantRow = async (sessionKey: string) => (await env.t.call('chat.history', { sessionKey })).messages.filter((m) => m.role === 'assistant').at(-1)

// the tags cut across SSE chunks, as a server streams them token by token
const R1 = ['<thi', 'nk>\nThe user ', 'wants 42.\n</th', 'ink>\n\nThe answer', ' is 42.']

describe('<think> tags in the model text', () => {
  it('level off: the reply streams without the tags or the reasoning; the window still hears "thinking"', async () => {
    env.server.push({ textChunks: R1, delayMs: 15 })
    const payloads = await run('tt1', 'agent:main:tt1')
    expect(payloads).toEqual([{ text: 'The answer is 42.' }])
    for (const text of assistantTexts('tt1')) expect(text).not.toMatch(/think|The user/)
    expect(assistantTexts('tt1').at(-1)).toBe('The answer is 42.')
    expect(order('tt1')).toEqual(['reasoning:start', 'reasoning:end', 'assistant'])
    expect(JSON.stringify(agentEvents('tt1'))).not.toContain('wants 42')
    const chat = chatEvents('tt1')
    for (const c of chat) expect(chatText(c)).not.toMatch(/think|The user/)
    expect(chat.at(-1)).toMatchObject({ state: 'final' })
    expect(chatText(chat.at(-1))).toBe('The answer is 42.')
    // the transcript keeps the reasoning as a thinking block, as for native reasoning
    expect((await lastAssistantRow('agent:main:tt1'))!.content).toEqual([
      { type: 'thinking', thinking: 'The user wants 42.' },
      { type: 'text', text: 'The answer is 42.' },
    ])
    // the model gets its own turn back as the reply alone
    env.server.push({ text: 'ok' })
    await run('tt1b', 'agent:main:tt1')
    const sent = env.server.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>
    const mine = sent.filter((m) => m.role === 'assistant')
    expect(mine).toHaveLength(1)
    expect(mine[0].content).toBe('The answer is 42.')
    expect(JSON.stringify(sent)).not.toContain('wants 42')
  })

  it('level stream: the reasoning streams on `thinking`; level on: it is the finished block and a reasoning payload', async () => {
    env.server.push({ text: 'hi' })
    await run('tt2-init', 'agent:main:tt2')
    await env.t.call('sessions.patch', { key: 'agent:main:tt2', reasoningLevel: 'stream' })
    env.server.push({ textChunks: R1, delayMs: 15 })
    expect(await run('tt2', 'agent:main:tt2')).toEqual([{ text: 'The answer is 42.' }])
    const thinking = streamOf('tt2', 'thinking').map((e) => e.data as { text: string; delta: string })
    expect(thinking.map((d) => d.delta).join('')).toBe('\nThe user wants 42.\n')
    const o = order('tt2')
    expect(o[0]).toBe('reasoning:start')
    expect(o.slice(-2)).toEqual(['reasoning:end', 'assistant'])
    expect(new Set(o.slice(1, -2))).toEqual(new Set(['thinking']))

    await env.t.call('sessions.patch', { key: 'agent:main:tt2', reasoningLevel: 'on' })
    env.server.push({ textChunks: R1, delayMs: 15 })
    expect(await run('tt3', 'agent:main:tt2')).toEqual([{ text: 'The user wants 42.', isReasoning: true }, { text: 'The answer is 42.' }])
    expect(streamOf('tt3', 'reasoning').map((e) => e.data)).toEqual([{ phase: 'start' }, { phase: 'end', text: 'The user wants 42.' }])
    expect(streamOf('tt3', 'thinking')).toEqual([])
  })

  it('the same over the Anthropic client (a compatible server that writes tags into its text)', async () => {
    env.server.push({ text: 'hi' })
    await run('tta0', 'agent:main:tta')
    await env.t.call('sessions.patch', { key: 'agent:main:tta', model: 'mockant/c1' })
    env.server.push({ textChunks: R1, delayMs: 15 })
    expect(await run('tta1', 'agent:main:tta')).toEqual([{ text: 'The answer is 42.' }])
    for (const text of assistantTexts('tta1')) expect(text).not.toMatch(/think|The user/)
    expect(order('tta1')).toEqual(['reasoning:start', 'reasoning:end', 'assistant'])
    expect(env.server.requests.at(-1)!.path).toMatch(/\/messages$/)
  })

  it('a block still open when the message ends is reasoning, not reply', async () => {
    env.server.push({ textChunks: ['<think>I will ans', 'wer later'], delayMs: 15 })
    expect(await run('tt4', 'agent:main:tt4')).toEqual([])
    expect(assistantTexts('tt4')).toEqual([])
    expect(streamOf('tt4', 'reasoning').map((e) => e.data)).toEqual([{ phase: 'start' }, { phase: 'end' }])
    expect((await lastAssistantRow('agent:main:tt4'))!.content).toEqual([{ type: 'thinking', thinking: 'I will answer later' }])
  })

  it('a closing tag with no opener (the template opened it): the text before it becomes reasoning, and the model is known from then on', async () => {
    env.server.push({ textChunks: ['The user wants', ' a number.\n</th', 'ink>\n\n42'], delayMs: 15 })
    expect(await run('tt5', 'agent:main:tt5')).toEqual([{ text: '42' }])
    // what streamed before the tag is taken back (before its reasoning events), not kept as a paragraph of the reply
    const seen = agentEvents('tt5')
      .filter((e) => e.stream === 'assistant' || e.stream === 'reasoning')
      .map((e) => (e.stream === 'reasoning' ? `reasoning:${(e.data as { phase: string }).phase}` : e.data))
    const back = seen.findIndex((d) => typeof d === 'object' && (d as { replace?: boolean }).replace)
    expect(back).toBeGreaterThan(0)
    expect(seen.slice(back)).toEqual([{ text: '', delta: '', replace: true }, 'reasoning:start', 'reasoning:end', { text: '42', delta: '42' }])
    const chat = chatEvents('tt5')
    expect(chatText(chat.at(-1))).toBe('42')
    expect(chat.at(-1)).toMatchObject({ state: 'final' })
    expect((await lastAssistantRow('agent:main:tt5'))!.content).toEqual([
      { type: 'thinking', thinking: 'The user wants a number.' },
      { type: 'text', text: '42' },
    ])
    // its next message streams as reasoning from the start
    env.server.push({ textChunks: ['Again a ', 'number.</think>', '\n\n43'], delayMs: 15 })
    expect(await run('tt6', 'agent:main:tt5')).toEqual([{ text: '43' }])
    expect(assistantTexts('tt6')).toEqual(['43'])
    expect(order('tt6')).toEqual(['reasoning:start', 'reasoning:end', 'assistant'])
    for (const c of chatEvents('tt6')) expect(chatText(c)).not.toContain('Again')
    // a message of it with no tag at all was the reply after all: shown when it ends (held, never taken back),
    // and the model is forgotten
    env.server.push({ textChunks: ['just ', 'an answer'], delayMs: 15 })
    expect(await run('tt7', 'agent:main:tt5')).toEqual([{ text: 'just an answer' }])
    expect(assistantTexts('tt7')).toEqual(['just an answer'])
    expect(streamOf('tt7', 'reasoning').map((e) => e.data)).toEqual([{ phase: 'start' }, { phase: 'end' }])
    expect((await lastAssistantRow('agent:main:tt5'))!.content).toEqual([{ type: 'text', text: 'just an answer' }])
    env.server.push({ textChunks: ['plain ', 'again'], delayMs: 15 })
    await run('tt7b', 'agent:main:tt5')
    expect(assistantTexts('tt7b')).toEqual(['plain ', 'plain again'])
    expect(streamOf('tt7b', 'reasoning')).toEqual([])
  })

  it('a model known to open its messages inside a block that sends native reasoning: one block, the text is the reply', async () => {
    env.server.push({ textChunks: ['plan</think>', 'ok'], delayMs: 15 })
    await run('tt10', 'agent:main:tt10')
    await env.t.call('sessions.patch', { key: 'agent:main:tt10', reasoningLevel: 'on' })
    env.server.push({ reasoning: ['native ', 'plan'], textChunks: ['the ', 'reply'], delayMs: 15 })
    expect(await run('tt11', 'agent:main:tt10')).toEqual([{ text: 'native plan', isReasoning: true }, { text: 'the reply' }])
    expect(streamOf('tt11', 'reasoning').map((e) => e.data)).toEqual([{ phase: 'start' }, { phase: 'end', text: 'native plan' }])
    expect(assistantTexts('tt11').at(-1)).toBe('the reply')
  })

  it('tags the model writes about, inside code, stay in the reply; NO_REPLY after a block stays silent', async () => {
    const about = 'Wrap it like `<think>`:\n```\n<think>\nplan\n</think>\n```'
    env.server.push({ textChunks: [about.slice(0, 14), about.slice(14, 30), about.slice(30)], delayMs: 15 })
    expect(await run('tt8', 'agent:main:tt8')).toEqual([{ text: about }])
    expect(assistantTexts('tt8').at(-1)).toBe(about)
    expect(streamOf('tt8', 'reasoning')).toEqual([])

    env.server.push({ textChunks: ['<think>nothing to ', 'add</think>\nNO_', 'REPLY'], delayMs: 15 })
    expect(await run('tt9', 'agent:main:tt9')).toEqual([])
    expect(assistantTexts('tt9')).toEqual([])
    const end = streamOf('tt9', 'lifecycle').find((e) => e.data.phase === 'end')!.data
    expect(end).toMatchObject({ silentReply: true })
  })
})
