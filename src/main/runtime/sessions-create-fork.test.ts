// sessions.create as OpenClaw's clients call it: the Control UI's new-session call (emitCommandHooks), forks
// of a conversation (fork, forkFrom), spawn depth, and the combinations refused with a clear error.
import fs from 'node:fs'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { forkEntries, lastReplyPreview } from './sessions/fork'
import type { TranscriptEntry } from './contracts'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let t: TestRuntime
beforeEach(async () => {
  server.script([])
  t = await startTestRuntime(server)
})
afterEach(() => t.close())

async function run(sessionKey: string, message: string, runId: string) {
  await t.call('agent', { message, sessionKey, idempotencyKey: runId })
  return t.call('agent.wait', { runId, timeoutMs: 10_000 })
}

const texts = (messages: Array<{ role: string; content?: unknown }>) =>
  messages.map((m) => `${m.role}:${JSON.stringify(m.content).match(/"text":"([^"]*)"/)?.[1] ?? ''}`)

describe('sessions.create as the Control UI sends it', () => {
  it('agentId, label, model, parentSessionKey and emitCommandHooks: created, and command:new fired for it', async () => {
    const commands: string[] = []
    t.runtime.hooks.command = (ev) => {
      commands.push(`${ev.command}:${ev.sessionKey}:${ev.sessionId}->${ev.nextSessionId}`)
    }
    server.script([{ text: 'parent reply' }])
    await run('agent:main:main', 'hello', 'p1')
    const parentId = (await t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')!.sessionId
    const r = await t.call('sessions.create', { agentId: 'main', label: 'Side quest', model: 'mock/m1', parentSessionKey: 'agent:main:main', emitCommandHooks: true })
    expect(r.entry).toMatchObject({ label: 'Side quest', spawnedBy: 'agent:main:main' })
    expect(commands).toEqual([`new:${r.key}:${parentId}->${r.sessionId}`])
    // not a fork: the new session starts empty
    expect((await t.call('chat.history', { sessionKey: r.key })).messages).toEqual([])
  })
})

describe('sessions.create fork', () => {
  it("starts with a copy of the parent's conversation; the parent is untouched and the next run sends both turns", async () => {
    server.script([{ text: 'Paris.' }, { text: 'About 2.1 million.' }, { text: 'Lyon is second.' }])
    await run('agent:main:main', 'Capital of France?', 'f1')
    await run('agent:main:main', 'Population?', 'f2')
    const before = fs.readFileSync(t.runtime.core.store('main').transcriptPath((await t.call('sessions.list', {})).sessions[0].sessionId), 'utf8')
    const child = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, spawnDepth: 1 })
    expect(child.entry).toMatchObject({ spawnedBy: 'agent:main:main', spawnDepth: 1, lastMessagePreview: 'About 2.1 million.' })
    const hist = await t.call('chat.history', { sessionKey: child.key })
    expect(texts(hist.messages)).toEqual(['user:Capital of France?', 'assistant:Paris.', 'user:Population?', 'assistant:About 2.1 million.'])
    await run(child.key, 'And the second city?', 'f3')
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages)
    for (const s of ['Capital of France?', 'Paris.', 'Population?', 'About 2.1 million.', 'And the second city?']) expect(sent).toContain(s)
    // the parent's file did not change
    expect(fs.readFileSync(t.runtime.core.store('main').transcriptPath((await t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')!.sessionId), 'utf8')).toBe(before)
    expect(texts((await t.call('chat.history', { sessionKey: 'agent:main:main' })).messages)).toHaveLength(4)
  })

  it('an unnamed fork is named "<title> (fork)", then "(fork 2)" — after a Regenerate too; a name or label given is kept', async () => {
    server.script([{ text: 'Paris.' }])
    await run('agent:main:main', 'Capital of France?', 'n1')
    const a = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true })
    const b = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true })
    expect([a.entry.displayName, b.entry.displayName]).toEqual(['Capital of France? (fork)', 'Capital of France? (fork 2)'])
    // sessions.fork (Regenerate, Edit) counts on from the same names
    const entryId = (await t.call('chat.history', { sessionKey: 'agent:main:main' })).messages.find((m) => m.role === 'user')!.__openclaw!.id
    const regen = await t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId })
    const rows = (await t.call('sessions.list', {})).sessions
    expect(rows.find((r) => r.key === regen.sessionKey)?.displayName).toBe('Capital of France? (fork 3)')
    const named = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, displayName: 'My copy' })
    expect(named.entry.displayName).toBe('My copy')
    const labelled = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, label: 'Labelled' })
    expect(labelled.entry).toMatchObject({ label: 'Labelled' })
    expect(labelled.entry.displayName).toBeUndefined()
    // a child that is not a fork is not named after its parent
    const child = await t.call('sessions.create', { parentSessionKey: 'agent:main:main' })
    expect(child.entry.displayName).toBeUndefined()
  })

  it('forkFrom last-completed leaves out a failed last turn', async () => {
    server.script([{ text: 'Good answer.' }, { status: 500, message: 'boom' }])
    await run('agent:main:main', 'first', 'l1')
    await run('agent:main:main', 'second', 'l2')
    const full = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true })
    const cut = await t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true, forkFrom: 'last-completed' })
    expect(texts((await t.call('chat.history', { sessionKey: cut.key })).messages)).toEqual(['user:first', 'assistant:Good answer.'])
    expect((await t.call('chat.history', { sessionKey: full.key })).messages.length).toBeGreaterThan(2)
  })

  it('refuses what it cannot do, before anything is created', async () => {
    const n = (await t.call('sessions.list', {})).sessions.length
    await expect(t.call('sessions.create', { fork: true })).rejects.toThrow('fork requires parentSessionKey')
    await expect(t.call('sessions.create', { spawnDepth: 2 })).rejects.toThrow('spawnDepth requires parentSessionKey')
    server.script([{ text: 'x' }])
    await run('agent:main:main', 'hi', 'v1')
    await expect(t.call('sessions.create', { parentSessionKey: 'agent:main:main', forkFrom: 'last-completed' })).rejects.toThrow('forkFrom requires fork=true')
    await expect(t.call('sessions.create', { parentSessionKey: 'agent:main:main', emitCommandHooks: true, succeedsParent: true })).rejects.toThrow(
      'succeedsParent=true is not supported',
    )
    await expect(t.call('sessions.create', { key: 'agent:main:main', parentSessionKey: 'agent:main:main', fork: true })).rejects.toThrow('already exists')
    await expect(t.call('sessions.create', { parentSessionKey: 'agent:main:nope', fork: true })).rejects.toThrow('session not found')
    expect((await t.call('sessions.list', {})).sessions.length).toBe(n + 1) // only main, from the run
    // succeedsParent=false is what Loopdesk does anyway
    await t.call('sessions.create', { parentSessionKey: 'agent:main:main', emitCommandHooks: true, succeedsParent: false })
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
