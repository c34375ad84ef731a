// Session permission modes: a read-only session's runs offer the model only the tools that read (what the
// real pi-ai client sends to the model server is checked), say so in the system prompt, and cannot write even
// when the model calls a write tool anyway; guarded (or no mode) offers everything again. The modes Loopdesk
// does not run are refused with a reason; create, fork, reset and chat.send's precondition follow the mode.
import fs from 'node:fs'
import path from 'node:path'
import Type from 'typebox'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { READ_ONLY_PROMPT } from './tools'

let server: ModelServer
let t: TestRuntime
const KEY = 'agent:main:perm'

const toolNames = (r: CapturedRequest): string[] => ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((x) => x.function.name).sort()
const systemText = (r: CapturedRequest): string => JSON.stringify((r.body.messages as Array<{ role: string }>).filter((m) => m.role === 'system' || m.role === 'developer'))

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  // a plugin tool, as extensions add them
  const pluginTool = {
    name: 'deploy',
    label: 'Deploy',
    description: 'Deploys the project',
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: 'text' as const, text: 'deployed' }], details: {} }),
  }
  t = await startTestRuntime(server, { runtime: { hooks: { extraTools: () => [pluginTool] } } })
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})
beforeEach(() => server.script([]))

async function run(message: string, id: string, key = KEY) {
  await t.call('agent', { message, idempotencyKey: id, sessionKey: key })
  return t.call('agent.wait', { runId: id, timeoutMs: 10_000 })
}

describe('permissionMode', () => {
  it('read-only: the model is offered only the tools that read, and told so; null offers everything again', async () => {
    await run('hello', 'pm-0')
    const everything = toolNames(server.requests.at(-1)!)
    expect(everything).toEqual(expect.arrayContaining(['deploy', 'edit', 'exec', 'read', 'write']))
    expect(systemText(server.requests.at(-1)!)).not.toContain('This session is read-only')

    const patched = await t.call('sessions.patch', { key: KEY, permissionMode: 'read-only' })
    expect(patched.entry.permissionMode).toBe('read-only')
    expect((await t.call('sessions.list', {})).sessions.find((s) => s.key === KEY)?.permissionMode).toBe('read-only')
    await run('look around', 'pm-1')
    const req = server.requests.at(-1)!
    expect(toolNames(req)).toEqual(['glob', 'grep', 'ls', 'message', 'read', 'web_fetch'])
    expect(systemText(req)).toContain(JSON.stringify(READ_ONLY_PROMPT).slice(1, 60))

    const cleared = await t.call('sessions.patch', { key: KEY, permissionMode: null })
    expect(cleared.entry.permissionMode).toBeUndefined()
    await run('now change it', 'pm-2')
    expect(toolNames(server.requests.at(-1)!)).toEqual(everything)
  })

  it('read-only: a write the model calls anyway is not run, and the file is not created', async () => {
    const key = 'agent:main:perm-write'
    await t.call('sessions.create', { key, permissionMode: 'read-only' })
    server.script([{ toolCalls: [{ name: 'write', args: { path: 'made.txt', content: 'x' } }] }, { text: 'could not' }])
    const r = await run('write a file', 'pm-w', key)
    expect(r.status).toBe('ok')
    expect(fs.existsSync(path.join(t.workspace, 'made.txt'))).toBe(false)
    // the model, the transcript and the tool card all read that the session is read-only, not "Tool write not found"
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages.at(-1))
    expect(sent).toContain('\\"write\\" is not available: this session is read-only')
    expect(sent).not.toContain('not found')
    const history = await t.call('chat.history', { sessionKey: key })
    const stored = history.messages.find((m) => (m as { role?: string }).role === 'toolResult')
    expect(JSON.stringify(stored)).toContain('is not available: this session is read-only')
    const card = t.events.find((e) => e.event === 'agent' && e.payload.runId === 'pm-w' && e.payload.stream === 'tool' && e.payload.data.phase === 'result')
    expect(card?.event === 'agent' && card.payload.data).toMatchObject({ name: 'write', isError: true, result: { content: [{ text: expect.stringContaining('read-only') }] } })
  })

  it('guarded: a tool that does not exist is answered with the tools there are', async () => {
    const key = 'agent:main:perm-unknown'
    server.script([{ toolCalls: [{ name: 'teleport', args: {} }] }, { text: 'ok then' }])
    expect((await run('go', 'pm-u', key)).status).toBe('ok')
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages.at(-1))
    expect(sent).toContain('There is no tool named \\"teleport\\" in this session. Tools available: ')
    expect(sent).toMatch(/Tools available: [^"]*\bexec\b[^"]*\bdeploy\b/)
  })

  it('refuses workspace and full with a reason, and changes nothing', async () => {
    const before = (await t.call('sessions.patch', { key: KEY, permissionMode: 'read-only' })).entry
    for (const [mode, why] of [
      ['workspace', /asks an automatic reviewer to approve commands; Loopdesk has none — use "guarded"/],
      ['full', /"full" is not offered: Loopdesk keeps file tools inside the workspace/],
    ] as const) {
      const r = await t.raw('sessions.patch', { key: KEY, permissionMode: mode })
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(why) })
      const c = await t.raw('sessions.create', { key: `agent:main:new-${mode}`, permissionMode: mode })
      expect(c.ok).toBe(false)
    }
    expect((await t.call('sessions.list', {})).sessions.find((s) => s.key === KEY)).toMatchObject({ permissionMode: 'read-only', updatedAt: before.updatedAt })
    expect((await t.call('sessions.list', {})).sessions.some((s) => s.key.startsWith('agent:main:new-'))).toBe(false)
  })

  it('a fork keeps its parent’s mode unless it sets one; a reset keeps it; chat.send’s precondition reads it', async () => {
    await t.call('sessions.patch', { key: KEY, permissionMode: 'read-only' })
    const fork = await t.call('sessions.create', { parentSessionKey: KEY, fork: true })
    expect(fork.entry.permissionMode).toBe('read-only')
    const guarded = await t.call('sessions.create', { parentSessionKey: KEY, fork: true, permissionMode: 'guarded' })
    expect(guarded.entry.permissionMode).toBe('guarded')
    expect((await t.call('sessions.reset', { key: KEY })).entry.permissionMode).toBe('read-only')

    const send = (expectedPermissionMode: 'read-only' | 'guarded' | null, id: string) =>
      t.raw('chat.send', { sessionKey: KEY, message: 'hi', idempotencyKey: id, expectedPermissionMode })
    const refused = await send(null, 'pm-s1')
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.error.details).toMatchObject({ reason: 'session-settings-changed', expectedPermissionMode: null, permissionMode: 'read-only' })
    expect((await send('read-only', 'pm-s2')).ok).toBe(true)
    await t.call('agent.wait', { runId: 'pm-s2', timeoutMs: 10_000 })
  })
})
