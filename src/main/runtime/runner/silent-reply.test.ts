// NO_REPLY and text the message tool already delivered never reach the user (spec §8–§9): the assistant stream,
// the chat events, chat.history and the payloads agree — over the real pi-ai client and the scripted model server.
import { describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import { useTestRuntime } from '../../../../test/fixtures/use-test-runtime'

const env = useTestRuntime()

const agentEvents = (runId: string) => env.t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const assistantTexts = (runId: string) => agentEvents(runId).filter((e) => e.stream === 'assistant').map((e) => String(e.data.text))
const chatEvents = (runId: string) => env.t.events.filter((e) => e.event === 'chat' && e.payload.runId === runId).map((e) => e.payload as ChatEvent)
const chatText = (ev: ChatEvent | undefined) => ev?.message?.content.map((c) => c.text).join('') ?? ''
const endData = (runId: string) => agentEvents(runId).find((e) => e.stream === 'lifecycle' && e.data.phase === 'end')?.data ?? {}

async function run(runId: string, sessionKey: string) {
  await env.t.call('agent', { message: 'go', idempotencyKey: runId, sessionKey })
  expect(await env.t.call('agent.wait', { runId, timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
  return (await env.t.runtime.agentFinal(runId)).result!.payloads
}

const history = (sessionKey: string, silentReplies?: boolean) =>
  env.t.call('chat.history', { sessionKey, ...(silentReplies ? { silentReplies } : {}) }).then((h) => h.messages)

describe('silent replies', () => {
  it('NO_REPLY streamed a few letters at a time: nothing on the assistant stream, no chat text, a finished silent run', async () => {
    env.server.push({ textChunks: ['N', 'O_', 'REP', 'LY'], delayMs: 15 })
    const payloads = await run('s1', 'agent:main:s1')
    expect(payloads).toEqual([])
    // not even "N" or "NO_" for a moment
    expect(assistantTexts('s1')).toEqual([])
    const chat = chatEvents('s1')
    expect(chat.filter((c) => c.state === 'delta')).toEqual([])
    expect(chat.at(-1)).toMatchObject({ state: 'final' })
    expect(chat.at(-1)!.message).toBeUndefined()
    expect(endData('s1')).toMatchObject({ phase: 'end', silentReply: true })
    expect(endData('s1').emptyReply).toBeUndefined()
    // OpenClaw's history leaves the reply out; the window's asks for it as a silent row without text
    expect((await history('agent:main:s1')).map((m) => m.role)).toEqual(['user'])
    const rows = await history('agent:main:s1', true)
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(rows[1]).toMatchObject({ silent: true, content: [] })
  })

  it('a reply that only starts like the token streams once it is not: "NOT sure" shows, from "NOT" on', async () => {
    env.server.push({ textChunks: ['NO', 'T', ' sure'], delayMs: 15 })
    expect(await run('s2', 'agent:main:s2')).toEqual([{ text: 'NOT sure' }])
    const texts = assistantTexts('s2')
    expect(texts[0]).toBe('NOT')
    expect(texts.at(-1)).toBe('NOT sure')
    expect(chatText(chatEvents('s2').at(-1))).toBe('NOT sure')
    expect(endData('s2').silentReply).toBeUndefined()
  })

  it('the JSON envelope {"action":"NO_REPLY"} streamed in pieces: nothing shows; a JSON reply that is something else does', async () => {
    env.server.push({ textChunks: ['{"act', 'ion": "NO', '_REPLY"}'], delayMs: 15 })
    expect(await run('s1j', 'agent:main:s1j')).toEqual([])
    expect(assistantTexts('s1j')).toEqual([])
    expect(endData('s1j')).toMatchObject({ phase: 'end', silentReply: true })

    env.server.push({ textChunks: ['{"act', 'ion": "run", ', '"n": 1}'], delayMs: 15 })
    expect(await run('s1k', 'agent:main:s1k')).toEqual([{ text: '{"action": "run", "n": 1}' }])
    expect(assistantTexts('s1k').at(-1)).toBe('{"action": "run", "n": 1}')
  })

  it('message tool, then NO_REPLY: the sent text once, never NO_REPLY', async () => {
    env.server.push({ toolCalls: [{ name: 'message', args: { text: 'Progress: all done here.' } }] }, { textChunks: ['NO_', 'REPLY'], delayMs: 15 })
    expect(await run('s3', 'agent:main:s3')).toEqual([])
    expect(assistantTexts('s3')).toEqual([])
    const chat = chatEvents('s3')
    for (const c of chat) expect(chatText(c)).not.toContain('NO_')
    expect(chatText(chat.at(-1))).toBe('Progress: all done here.')
    // the message card shows: not a silent run
    expect(endData('s3').silentReply).toBeUndefined()
  })

  it('message tool, then the same text as the reply: shown once (chat, stream, history), payloads empty', async () => {
    env.server.push(
      { toolCalls: [{ name: 'message', args: { text: 'Here is the answer: 42.' } }] },
      { textChunks: ['Here is ', 'the answer', ': 42.'], delayMs: 15 },
    )
    expect(await run('s4', 'agent:main:s4')).toEqual([])
    expect(assistantTexts('s4')).toEqual([])
    const chat = chatEvents('s4')
    expect(chatText(chat.at(-1))).toBe('Here is the answer: 42.')
    for (const c of chat) expect(chatText(c).match(/answer/g)?.length ?? 0).toBeLessThanOrEqual(1)
    // history: the message tool's call and result, no assistant text repeating it
    const rows = await history('agent:main:s4')
    const texts = rows.filter((m) => m.role === 'assistant').flatMap((m) => (m.content as Array<{ type: string; text?: string }>).filter((c) => c.type === 'text'))
    expect(texts).toEqual([])
    expect(rows.some((m) => m.role === 'toolResult' && m.toolName === 'message')).toBe(true)
  })

  it('message tool, then a different reply: the reply streams and stays', async () => {
    env.server.push({ toolCalls: [{ name: 'message', args: { text: 'Working on it.' } }] }, { textChunks: ['All ', 'finished ', 'now.'], delayMs: 15 })
    expect(await run('s5', 'agent:main:s5')).toEqual([{ text: 'All finished now.' }])
    expect(assistantTexts('s5').at(-1)).toBe('All finished now.')
    expect(chatText(chatEvents('s5').at(-1))).toBe('Working on it.\n\nAll finished now.')
    const rows = await history('agent:main:s5')
    expect(rows.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'All finished now.' }] })
  })

  it('text streamed before a message tool call that sends the same: taken back, so it is shown once (stream, chat, CLI, history)', async () => {
    env.server.push(
      { textChunks: ['Here is ', 'the answer', ': 42.'], toolCalls: [{ name: 'message', args: { text: 'Here is the answer: 42.' } }], delayMs: 15 },
      { textChunks: ['NO_', 'REPLY'], delayMs: 15 },
    )
    expect(await run('s6', 'agent:main:s6')).toEqual([])
    // it streamed at once (no delay for text that may never be sent), then went when the call repeating it came
    const assistant = agentEvents('s6').filter((e) => e.stream === 'assistant').map((e) => e.data as { text: string; replace?: boolean })
    expect(assistant[0].text).toBe('Here is ')
    expect(assistant.at(-1)).toEqual({ text: '', delta: '', replace: true })
    const taken = agentEvents('s6').findIndex((e) => e.stream === 'assistant' && e.data.replace === true)
    const block = agentEvents('s6').findIndex((e) => e.stream === 'block')
    expect(taken).toBeLessThan(block)
    // every chat event (what `loopdesk agent` prints from) has the text at most once
    const chat = chatEvents('s6')
    for (const c of chat) expect(chatText(c).match(/answer/g)?.length ?? 0).toBeLessThanOrEqual(1)
    expect(chatText(chat.at(-1))).toBe('Here is the answer: 42.')
    expect(endData('s6').silentReply).toBeUndefined()
    // history: the call that sent it, not its text a second time
    const rows = await history('agent:main:s6')
    const texts = rows.filter((m) => m.role === 'assistant').flatMap((m) => (m.content as Array<{ type: string; text?: string }>).filter((c) => c.type === 'text'))
    expect(texts).toEqual([])
    expect(rows.some((m) => m.role === 'assistant' && (m.content as Array<{ type: string; name?: string }>).some((c) => c.type === 'toolCall' && c.name === 'message'))).toBe(true)
  })

  it('text before a message tool call that sends something else stays', async () => {
    env.server.push(
      { textChunks: ['Let me ', 'tell you.'], toolCalls: [{ name: 'message', args: { text: 'The answer is 42.' } }], delayMs: 15 },
      { textChunks: ['NO_', 'REPLY'], delayMs: 15 },
    )
    await run('s7', 'agent:main:s7')
    expect(agentEvents('s7').filter((e) => e.stream === 'assistant' && e.data.replace === true)).toEqual([])
    const rows = await history('agent:main:s7')
    expect(rows.find((m) => m.role === 'assistant')).toMatchObject({ content: [{ type: 'text', text: 'Let me tell you.' }, { type: 'toolCall', name: 'message' }] })
  })
})
