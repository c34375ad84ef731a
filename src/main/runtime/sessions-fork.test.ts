// sessions.fork (OpenClaw's fork at a user message): the window's Regenerate and Edit. A new session holds the
// conversation before that message and the result hands back its text; the original transcript is never touched.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'

const env = useTestRuntimePerTest()

async function run(sessionKey: string, message: string, runId: string) {
  await env.t.call('agent', { message, sessionKey, idempotencyKey: runId })
  return env.t.call('agent.wait', { runId, timeoutMs: 10_000 })
}

const texts = (messages: Array<{ role: string; content?: unknown }>) =>
  messages.map((m) => `${m.role}:${JSON.stringify(m.content).match(/"text":"([^"]*)"/)?.[1] ?? ''}`)

const userIds = async (key: string) =>
  (await env.t.call('chat.history', { sessionKey: key })).messages.filter((m) => m.role === 'user').map((m) => m.__openclaw!.id)

describe('sessions.fork', () => {
  it('starts a session with the conversation before that user message and returns its text; a resend there regenerates', async () => {
    env.server.script([{ text: 'Paris.' }, { text: 'About 2.1 million.' }, { text: 'Roughly 2,100,000.' }])
    await run('agent:main:main', 'Capital of France?', 'r1')
    await run('agent:main:main', 'Population?', 'r2')
    const file = env.t.runtime.core.store('main').transcriptPath((await env.t.call('sessions.list', {})).sessions[0].sessionId)
    const before = fs.readFileSync(file, 'utf8')
    const [, second] = await userIds('agent:main:main')
    const fork = await env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: second })
    expect(fork.editorText).toBe('Population?')
    expect(fork.sessionKey).not.toBe('agent:main:main')
    expect(texts((await env.t.call('chat.history', { sessionKey: fork.sessionKey })).messages)).toEqual(['user:Capital of France?', 'assistant:Paris.'])
    const row = (await env.t.call('sessions.list', {})).sessions.find((s) => s.key === fork.sessionKey)!
    const parentId = (await env.t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')!.sessionId
    expect(row).toMatchObject({
      spawnedBy: 'agent:main:main',
      displayName: 'Capital of France? (fork)',
      forkedFromParent: true,
      forkSource: { sessionKey: 'agent:main:main', sessionId: parentId, entryId: second },
    })
    // sending the text again there: the model sees the first turn and the question, not the old answer
    await run(fork.sessionKey, fork.editorText!, 'r3')
    const sent = JSON.stringify(env.server.requests.at(-1)!.body.messages)
    expect(sent).toContain('Paris.')
    expect(sent).not.toContain('About 2.1 million.')
    expect(texts((await env.t.call('chat.history', { sessionKey: fork.sessionKey })).messages).slice(2)).toEqual(['user:Population?', 'assistant:Roughly 2,100,000.'])
    // the original is byte for byte what it was
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
  })

  it('regenerating twice: the second fork is "(fork 2)", not a second "(fork)"; a fork of the fork keeps its own name', async () => {
    env.server.script([{ text: 'Paris.' }])
    await run('agent:main:main', 'Capital of France?', 'n1')
    const [first] = await userIds('agent:main:main')
    const names = async () => (await env.t.call('sessions.list', {})).sessions.map((s) => s.displayName).filter(Boolean)
    const a = await env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: first })
    const b = await env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: first })
    const c = await env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: first })
    const rows = (await env.t.call('sessions.list', {})).sessions
    const nameOf = (key: string) => rows.find((r) => r.key === key)?.displayName
    expect([nameOf(a.sessionKey), nameOf(b.sessionKey), nameOf(c.sessionKey)]).toEqual([
      'Capital of France? (fork)',
      'Capital of France? (fork 2)',
      'Capital of France? (fork 3)',
    ])
    expect(new Set(await names()).size).toBe((await names()).length)
  })

  it('at the first message: an empty session, and its text', async () => {
    env.server.script([{ text: 'Hi.' }])
    await run('agent:main:main', 'hello there', 'e1')
    const [first] = await userIds('agent:main:main')
    const fork = await env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: first })
    expect(fork.editorText).toBe('hello there')
    expect((await env.t.call('chat.history', { sessionKey: fork.sessionKey })).messages).toEqual([])
    // a reset clears the conversation the fork came from: the row no longer says it is one
    const reset = await env.t.call('sessions.reset', { key: fork.sessionKey })
    expect(reset.entry.forkSource).toBeUndefined()
    expect(reset.entry.forkedFromParent).toBeUndefined()
  })

  it('refuses an id that is not a user message of the session, and an unknown session, creating nothing', async () => {
    env.server.script([{ text: 'Reply.' }])
    await run('agent:main:main', 'question', 'x1')
    const reply = (await env.t.call('chat.history', { sessionKey: 'agent:main:main' })).messages.find((m) => m.role === 'assistant')!.__openclaw!.id
    const n = (await env.t.call('sessions.list', {})).sessions.length
    await expect(env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: reply })).rejects.toThrow('no user message')
    await expect(env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId: 'nope' })).rejects.toThrow('no user message')
    await expect(env.t.call('sessions.fork', { sessionKey: 'agent:main:ghost', entryId: 'nope' })).rejects.toThrow('session not found')
    expect((await env.t.call('sessions.list', {})).sessions.length).toBe(n)
  })
})
