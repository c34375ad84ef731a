// sessions.create as OpenClaw's clients call it: the Control UI's new-session call (emitCommandHooks), forks
// of a conversation (fork, forkFrom), spawn depth, and the combinations refused with a clear error.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'
import { forkEntries, lastReplyPreview } from './sessions/fork'
import type { TranscriptEntry } from './contracts'

const env = useTestRuntimePerTest()

async function run(sessionKey: string, message: string, runId: string) {
  await env.t.call('agent', { message, sessionKey, idempotencyKey: runId })
  return env.t.call('agent.wait', { runId, timeoutMs: 10_000 })
}

const texts = (messages: Array<{ role: string; content?: unknown }>) =>
  messages.map((m) => `${m.role}:${JSON.stringify(m.content).match(/"text":"([^"]*)"/)?.[1] ?? ''}`)

describe('sessions.create as the Control UI sends it', () => {
  it('agentId, label, model, parentSessionKey and emitCommandHooks: created, and command:new fired for it', async () => {
    const commands: string[] = []
    env.t.runtime.hooks.command = (ev) => {
      commands.push(`${ev.command}:${ev.sessionKey}:${ev.sessionId}->${ev.nextSessionId}`)
    }
    env.server.script([{ text: 'parent reply' }])
    await run('agent:main:main', 'hello', 'p1')
    const parentId = (await env.t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')!.sessionId
    const r = await env.t.call('sessions.create', { agentId: 'main', label: 'Side quest', model: 'mock/m1', parentSessionKey: 'agent:main:main', emitCommandHooks: true })
    expect(r.entry).toMatchObject({ label: 'Side quest', spawnedBy: 'agent:main:main' })
    expect(commands).toEqual([`new:${r.key}:${parentId}->${r.sessionId}`])
    // not a fork: the new session starts empty
    expect((await env.t.call('chat.history', { sessionKey: r.key })).messages).toEqual([])
  })
})

describe('sessions.create fork', () => {
  it("starts with a copy of the parent's conversation; the parent is untouched and the next run sends both turns", async () => {
    env.server.script([{ text: 'Paris.' }, { text: 'About 2.1 million.' }, { text: 'Lyon is second.' }])
    await run('agent:main:main', 'Capital of France?', 'f1')
    await run('agent:main:main', 'Population?', 'f2')
    const before = fs.readFileSync(env.t.runtime.core.store('main').transcriptPath((await env.t.call('sessions.list', {})).sessions[0].sessionId), 'utf8')
    const child = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, spawnDepth: 1 })
    expect(child.entry).toMatchObject({ spawnedBy: 'agent:main:main', spawnDepth: 1, lastMessagePreview: 'About 2.1 million.' })
    const hist = await env.t.call('chat.history', { sessionKey: child.key })
    expect(texts(hist.messages)).toEqual(['user:Capital of France?', 'assistant:Paris.', 'user:Population?', 'assistant:About 2.1 million.'])
    await run(child.key, 'And the second city?', 'f3')
    const sent = JSON.stringify(env.server.requests.at(-1)!.body.messages)
    for (const s of ['Capital of France?', 'Paris.', 'Population?', 'About 2.1 million.', 'And the second city?']) expect(sent).toContain(s)
    // the parent's file did not change
    expect(fs.readFileSync(env.t.runtime.core.store('main').transcriptPath((await env.t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')!.sessionId), 'utf8')).toBe(before)
    expect(texts((await env.t.call('chat.history', { sessionKey: 'agent:main:main' })).messages)).toHaveLength(4)
  })

  it('an unnamed fork is named "<title> (fork)", then "(fork 2)" — after a Regenerate too; a name or label given is kept', async () => {
    env.server.script([{ text: 'Paris.' }])
    await run('agent:main:main', 'Capital of France?', 'n1')
    const a = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true })
    const b = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true })
    expect([a.entry.displayName, b.entry.displayName]).toEqual(['Capital of France? (fork)', 'Capital of France? (fork 2)'])
    // sessions.fork (Regenerate, Edit) counts on from the same names
    const entryId = (await env.t.call('chat.history', { sessionKey: 'agent:main:main' })).messages.find((m) => m.role === 'user')!.__openclaw!.id
    const regen = await env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId })
    const rows = (await env.t.call('sessions.list', {})).sessions
    expect(rows.find((r) => r.key === regen.sessionKey)?.displayName).toBe('Capital of France? (fork 3)')
    const named = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, displayName: 'My copy' })
    expect(named.entry.displayName).toBe('My copy')
    const labelled = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, label: 'Labelled' })
    expect(labelled.entry).toMatchObject({ label: 'Labelled' })
    expect(labelled.entry.displayName).toBeUndefined()
    // a child that is not a fork is not named after its parent
    const child = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main' })
    expect(child.entry.displayName).toBeUndefined()
  })

  it('forkFrom last-completed leaves out a failed last turn', async () => {
    env.server.script([{ text: 'Good answer.' }, { status: 500, message: 'boom' }])
    await run('agent:main:main', 'first', 'l1')
    await run('agent:main:main', 'second', 'l2')
    const full = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true })
    const cut = await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, forkFrom: 'last-completed' })
    expect(texts((await env.t.call('chat.history', { sessionKey: cut.key })).messages)).toEqual(['user:first', 'assistant:Good answer.'])
    expect((await env.t.call('chat.history', { sessionKey: full.key })).messages.length).toBeGreaterThan(2)
  })

  it('refuses what it cannot do, before anything is created', async () => {
    const n = (await env.t.call('sessions.list', {})).sessions.length
    await expect(env.t.call('sessions.create', { fork: true })).rejects.toThrow('fork requires parentSessionKey')
    await expect(env.t.call('sessions.create', { spawnDepth: 2 })).rejects.toThrow('spawnDepth requires parentSessionKey')
    env.server.script([{ text: 'x' }])
    await run('agent:main:main', 'hi', 'v1')
    await expect(env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', forkFrom: 'last-completed' })).rejects.toThrow('forkFrom requires fork=true')
    await expect(env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', emitCommandHooks: true, succeedsParent: true })).rejects.toThrow(
      'succeedsParent=true is not supported',
    )
    await expect(env.t.call('sessions.create', { key: 'agent:main:main', parentSessionKey: 'agent:main:main', fork: true })).rejects.toThrow('already exists')
    await expect(env.t.call('sessions.create', { parentSessionKey: 'agent:main:nope', fork: true })).rejects.toThrow('session not found')
    expect((await env.t.call('sessions.list', {})).sessions.length).toBe(n + 1) // only main, from the run
    // succeedsParent=false is what Loopdesk does anyway
    await env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', emitCommandHooks: true, succeedsParent: false })
  })
})

describe('forkEntries', () => {
  const msg = (id: string, role: string, stopReason?: string): TranscriptEntry => ({
    type: 'message',
    id,
    timestamp: 1,
    message: { role, content: [{ type: 'text', text: id }], ...(stopReason ? { stopReason } : {}) },
  })
  const entries: TranscriptEntry[] = [
    { type: 'session', version: 1, id: 's', timestamp: 't', cwd: '/w', sessionKey: 'agent:main:main' },
    { type: 'run', id: 'r1', timestamp: 1, runId: 'a', phase: 'start' },
    msg('u1', 'user'),
    msg('a1', 'assistant', 'toolUse'),
    msg('t1', 'toolResult'),
    msg('a2', 'assistant', 'stop'),
    { type: 'run', id: 'r2', timestamp: 1, runId: 'a', phase: 'end' },
    msg('u2', 'user'),
    msg('a3', 'assistant', 'aborted'),
  ]
  it('keeps messages and compactions, drops the header and run markers; last-completed ends at a final reply', () => {
    expect(forkEntries(entries)!.map((e) => e.id)).toEqual(['u1', 'a1', 't1', 'a2', 'u2', 'a3'])
    expect(forkEntries(entries, 'last-completed')!.map((e) => e.id)).toEqual(['u1', 'a1', 't1', 'a2'])
    expect(forkEntries([msg('u', 'user')], 'last-completed')).toBeUndefined()
    expect(lastReplyPreview(entries)).toBe('a3')
  })
})
