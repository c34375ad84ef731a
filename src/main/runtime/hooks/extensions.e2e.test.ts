// Plugin and internal hooks end to end: a real runtime (dispatch → runner → real pi client → scripted model
// server), plugins and hook scripts loaded from real folders in the state dir and the workspace.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import { startModelServer, type CapturedRequest, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { startGateway } from '../../gateway'
import { Transcript } from '../sessions'
import type { Extensions } from './extensions'
import type { HookLogger } from './types'
import { until as pollUntil } from '../../../../test/fixtures/until'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let stateDir: string
let t: TestRuntime
let ext: Extensions
const logs: string[] = []
const logger: HookLogger = { info: (m) => logs.push(`info ${m}`), warn: (m) => logs.push(`warn ${m}`), error: (m) => logs.push(`error ${m}`) }

function write(rel: string, text: string) {
  const file = path.join(stateDir, rel)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

beforeEach(async () => {
  logs.length = 0
  server.script([])
  server.requests.length = 0
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-ext-'))
  // plugins: one good, one of each broken kind
  write(
    'plugins/policy/index.mjs',
    `export function register(api) {
      api.register('before_tool_call', (ev) => ev.toolName === 'read' && ev.params.path === 'secret.txt'
        ? { block: true, blockReason: 'reading secret.txt is disabled by policy' } : undefined, { priority: 10 })
      api.register('before_agent_start', () => ({ prependContext: '[policy] be brief' }))
    }`,
  )
  write('plugins/broken-syntax/index.mjs', 'export function register(api) { nope(')
  write('plugins/broken-throws/index.mjs', `export function register(api) { api.register('agent_end', () => {}); throw new Error('bad plugin') }`)
  write('plugins/broken-noexport/index.mjs', 'export const x = 1')
  // internal hooks: state dir + workspace
  write(
    'hooks/greeter/handler.mjs',
    `export const events = ['command:new']
     export default function (ev) { ev.messages.push('Fresh start! (from a hook)') }`,
  )
  write(
    'workspace/hooks/rules/handler.mjs',
    `export const events = ['agent:bootstrap']
     export default function (ev) { ev.context.bootstrapFiles.push({ name: 'RULES.md', content: 'Always answer in French.' }) }`,
  )
  t = await startTestRuntime(server, {
    stateDir,
    config: testConfig(server, { hooks: { internal: { workspace: true } } }),
    runtime: { extensions: { logger } },
  })
  ext = t.runtime.extensions!
})
afterEach(async () => {
  await t.close()
  fs.rmSync(stateDir, { recursive: true, force: true })
})

const K = 'agent:main:main'
const until = (cond: () => boolean, ms = 8000) => pollUntil(cond, ms)
const agentEvents = (runId: string) => t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const lifecycleEnd = (runId: string) => agentEvents(runId).find((e) => e.stream === 'lifecycle' && (e.data as { phase: string }).phase === 'end')?.data
const ended = (runId: string) => agentEvents(runId).some((e) => e.stream === 'lifecycle' && (e.data as { phase: string }).phase !== 'start')
const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((x: { text?: string }) => x.text ?? '').join('') : '')
const systemOf = (r: CapturedRequest) => text((r.body.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === 'system' || m.role === 'developer')?.content)
const toolMessages = (r: CapturedRequest) => (r.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'tool').map((m) => text(m.content))
const usersOf = (r: CapturedRequest) => (r.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user').map((m) => text(m.content))

async function run(message: string, id: string) {
  await t.call('agent', { message, idempotencyKey: id, sessionKey: K })
  await t.call('agent.wait', { runId: id, timeoutMs: 15_000 })
  return t.runtime.agentFinal(id)
}

describe('plugins loaded from <stateDir>/plugins', () => {
  it('reports broken plugins and keeps going; a plugin block reaches the model as a tool error', async () => {
    expect(ext.plugins.loaded).toEqual(['policy'])
    expect(ext.plugins.failed.map((f) => f.id).sort()).toEqual(['broken-noexport', 'broken-syntax', 'broken-throws'])
    expect(ext.registry.count('agent_end')).toBe(0) // the throwing plugin's hook was removed
    fs.mkdirSync(t.workspace, { recursive: true })
    fs.writeFileSync(path.join(t.workspace, 'secret.txt'), 'the password')
    server.script([{ toolCalls: [{ id: 'c1', name: 'read', args: { path: 'secret.txt' } }] }, { text: 'I cannot read it.' }])
    const final = await run('show me secret.txt', 'p1')
    expect(final.status).toBe('ok')
    expect(toolMessages(server.requests[1])).toEqual([expect.stringContaining('reading secret.txt is disabled by policy')])
    expect(toolMessages(server.requests[1])[0]).not.toContain('the password')
    const result = agentEvents('p1').find((e) => e.stream === 'tool' && (e.data as { phase: string }).phase === 'result')
    expect(result?.data).toMatchObject({ name: 'read', isError: true })
    // prependContext from before_agent_start
    expect(usersOf(server.requests[0])).toEqual(['[policy] be brief\n\nshow me secret.txt'])
  })

  it('fail closed: a throwing before_tool_call handler blocks the call with its error', async () => {
    ext.registry.register('before_tool_call', () => {
      throw new Error('policy engine offline')
    }, { pluginId: 'guard', priority: 100 })
    fs.mkdirSync(t.workspace, { recursive: true })
    fs.writeFileSync(path.join(t.workspace, 'a.txt'), 'AAA')
    server.script([{ toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a.txt' } }] }, { text: 'blocked' }])
    await run('read a.txt', 'p2')
    const tool = toolMessages(server.requests[1])[0]
    expect(tool).toContain('policy engine offline')
    expect(tool).toContain('guard')
    expect(tool).not.toContain('AAA')
  })

  it('before_agent_start systemPrompt wins by priority; params rewrite; tool_result_persist (sync only); observe hooks', async () => {
    const seen: Record<string, unknown[]> = { agent_end: [], after_tool_call: [], message_received: [] }
    ext.registry.register('before_agent_start', () => ({ systemPrompt: 'LOW PRIORITY PROMPT' }), { priority: 1 })
    ext.registry.register('before_agent_start', () => ({ systemPrompt: 'You are a test assistant.' }), { priority: 50 })
    ext.registry.register('before_tool_call', (ev) => (ev.toolName === 'read' ? { params: { path: 'b.txt' } } : undefined))
    ext.registry.register('tool_result_persist', (ev) => ({
      message: { ...ev.message, content: [{ type: 'text', text: `[redacted ${String(ev.toolName)} output]` }] },
    }))
    ext.registry.register('tool_result_persist', (async () => ({ message: { role: 'toolResult', content: 'ASYNC' } })) as never, { pluginId: 'slowpoke' })
    ext.registry.register('agent_end', (ev) => void seen.agent_end.push(ev))
    ext.registry.register('after_tool_call', (ev) => void seen.after_tool_call.push(ev))
    ext.registry.register('message_received', (ev, ctx) => void seen.message_received.push({ ev, ctx }))
    fs.mkdirSync(t.workspace, { recursive: true })
    fs.writeFileSync(path.join(t.workspace, 'a.txt'), 'AAA')
    fs.writeFileSync(path.join(t.workspace, 'b.txt'), 'BBB')
    server.script([{ toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a.txt' } }] }, { text: 'done' }])
    await t.call('chat.send', { sessionKey: K, message: 'read a.txt', idempotencyKey: 'p3' })
    await until(() => ended('p3'))
    await ext.idle()
    expect(systemOf(server.requests[0])).toBe('You are a test assistant.')
    // the model saw the rewritten call's real output; the transcript holds the persisted (redacted) one
    expect(toolMessages(server.requests[1])[0]).toContain('BBB')
    const entry = t.runtime.core.store('main').get(K)!
    const { entries } = await new Transcript(t.runtime.core.store('main').transcriptPath(entry.sessionId)).readAll()
    const persisted = entries.filter((e) => e.type === 'message' && e.message.role === 'toolResult')
    expect(persisted).toHaveLength(1)
    expect(JSON.stringify(persisted[0])).toContain('[redacted read output]')
    expect(JSON.stringify(persisted[0])).not.toContain('ASYNC')
    expect(logs.some((l) => l.startsWith('warn') && l.includes('slowpoke') && l.includes('Promise'))).toBe(true)
    expect(seen.agent_end).toEqual([expect.objectContaining({ success: true, durationMs: expect.any(Number) })])
    expect(seen.after_tool_call).toEqual([expect.objectContaining({ toolName: 'read', params: { path: 'b.txt' }, toolCallId: 'c1', durationMs: expect.any(Number) })])
    expect((seen.after_tool_call[0] as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0)
    expect(seen.message_received).toEqual([{ ev: expect.objectContaining({ from: 'user', content: 'read a.txt' }), ctx: expect.objectContaining({ sessionKey: K }) }])
  })
})

describe('message_received for agent runs (the agent RPC, loopdesk agent)', () => {
  it('fires once per accepted message with its text and runId; a bare /new fires none', async () => {
    const seen: Array<{ ev: { content: string; metadata?: { runId?: string } }; ctx: { sessionKey?: string } }> = []
    ext.registry.register('message_received', (ev, ctx) => void seen.push({ ev, ctx }))
    server.script([{ text: 'hello back' }, { text: 'fresh' }])
    await run('hello there', 'mr1')
    await ext.idle()
    expect(seen).toEqual([{ ev: expect.objectContaining({ from: 'user', content: 'hello there', metadata: { runId: 'mr1' } }), ctx: expect.objectContaining({ sessionKey: K, runId: 'mr1' }) }])
    await run('/new', 'mr2')
    await ext.idle()
    expect(seen).toHaveLength(1)
  })
})

describe('message_sending / message_sent (the `message` tool and the final reply deliver text)', () => {
  it('a plugin rewrites or cancels an outbound message; message_sent observes what went out', async () => {
    const sent: unknown[] = []
    ext.registry.register('message_sending', (ev) =>
      ev.metadata?.kind !== 'message' ? undefined : ev.content.includes('secret') ? { cancel: true } : { content: `${ev.content} [checked]` },
    )
    ext.registry.register('message_sent', (ev) => void sent.push(ev))
    server.script([
      { toolCalls: [{ id: 'm1', name: 'message', args: { text: 'progress: 50%' } }, { id: 'm2', name: 'message', args: { text: 'the secret is 42' } }] },
      { text: 'all done' },
    ])
    await t.call('chat.send', { sessionKey: K, message: 'work', idempotencyKey: 'ms1' })
    await until(() => ended('ms1'))
    await ext.idle()
    const blocks = agentEvents('ms1').filter((e) => e.stream === 'block').map((e) => e.data)
    expect(blocks).toEqual([{ text: 'progress: 50% [checked]', source: 'message' }])
    expect(sent).toEqual([
      { to: K, content: 'progress: 50% [checked]', success: true, metadata: { kind: 'message', runId: 'ms1' } },
      { to: K, content: 'all done', success: true, metadata: { kind: 'reply', runId: 'ms1' } },
    ])
    const tools = toolMessages(server.requests[1])
    expect(tools.some((x) => x.includes('Message sent to the user'))).toBe(true)
    expect(tools.some((x) => x.includes('not sent (cancelled by a plugin)'))).toBe(true)
    const final = t.events.find((e) => e.event === 'chat' && e.payload.runId === 'ms1' && (e.payload as ChatEvent).state === 'final')
    const finalText = (final!.payload as ChatEvent).message!.content[0].text
    expect(finalText).toContain('progress: 50% [checked]')
    expect(finalText).not.toContain('secret')
    // the final reply itself was not changed: lifecycle end says nothing about it
    expect(lifecycleEnd('ms1')).not.toHaveProperty('replyText')
  })

  it('the final reply goes through message_sending too: rewritten or withheld in the delivered result, then message_sent', async () => {
    const sending: unknown[] = []
    const sent: unknown[] = []
    ext.registry.register('message_sending', (ev, ctx) => {
      sending.push({ ev, ctx })
      if (ev.content.includes('password')) return { cancel: true }
      return { content: ev.content.replace(/\bAPI key \S+/, 'API key [redacted]') }
    })
    ext.registry.register('message_sent', (ev) => void sent.push(ev))
    server.script([{ text: 'Your API key sk-12345 is set.' }])
    const final = await run('what is my key?', 'fr1')
    expect(final.result?.payloads).toEqual([{ text: 'Your API key [redacted] is set.' }])
    await ext.idle()
    expect(sending).toEqual([
      {
        ev: { to: K, content: 'Your API key sk-12345 is set.', metadata: { kind: 'reply', runId: 'fr1' } },
        ctx: { sessionKey: K, runId: 'fr1', channelId: 'loopdesk' },
      },
    ])
    expect(sent).toEqual([{ to: K, content: 'Your API key [redacted] is set.', success: true, metadata: { kind: 'reply', runId: 'fr1' } }])
    // the session list preview shows what was delivered
    expect(t.runtime.core.store('main').get(K)?.lastMessagePreview).toBe('Your API key [redacted] is set.')
    // the streamed deltas carried the model's text; lifecycle end carries the delivered one for chat finals
    expect(agentEvents('fr1').filter((e) => e.stream === 'assistant').at(-1)?.data).toMatchObject({ text: 'Your API key sk-12345 is set.' })
    expect(lifecycleEnd('fr1')).toMatchObject({ phase: 'end', replyText: 'Your API key [redacted] is set.' })
    // chat clients get the delivered text in the final, not the model's
    const chatFinal = (runId: string) =>
      t.events.find((e) => e.event === 'chat' && e.payload.runId === runId && (e.payload as ChatEvent).state === 'final')?.payload as ChatEvent
    expect(chatFinal('fr1').message?.content[0].text).toBe('Your API key [redacted] is set.')

    server.script([{ text: 'the password is hunter2' }])
    const withheld = await run('and the password?', 'fr2')
    expect(withheld.status).toBe('ok')
    expect(withheld.result?.payloads).toEqual([])
    expect(lifecycleEnd('fr2')).toMatchObject({ phase: 'end', replyText: '' })
    expect(chatFinal('fr2').message).toBeUndefined()
    await ext.idle()
    expect(sent).toHaveLength(1) // nothing was delivered for fr2
  })
})

describe('internal hooks from <stateDir>/hooks and <workspace>/hooks', () => {
  it('does not load <workspace>/hooks unless hooks.internal.workspace is true (the agent can write there)', async () => {
    await t.close()
    fs.rmSync(path.join(stateDir, 'loopdesk.json'))
    t = await startTestRuntime(server, { stateDir, runtime: { extensions: { logger } } })
    expect(t.runtime.extensions!.internalHooks.loaded).toEqual(['state/greeter'])
  })

  it('agent:bootstrap adds a context file; command:new messages reach the user; session_start / session_end fire', async () => {
    expect(ext.internalHooks.loaded.sort()).toEqual(['state/greeter', 'workspace:main/rules'])
    const sessions: Array<[string, unknown]> = []
    ext.registry.register('session_start', (ev) => void sessions.push(['start', ev]))
    ext.registry.register('session_end', (ev) => void sessions.push(['end', ev]))
    server.script([{ text: 'Bonjour.' }])
    await t.call('chat.send', { sessionKey: K, message: 'hello', idempotencyKey: 'h1' })
    await until(() => ended('h1'))
    expect(systemOf(server.requests[0])).toContain('Always answer in French.')
    const firstId = t.runtime.core.store('main').get(K)!.sessionId
    const r = await t.call('chat.send', { sessionKey: K, message: '/new', idempotencyKey: 'h2' })
    expect(r).toMatchObject({ status: 'command', messages: ['Started a new session.', 'Fresh start! (from a hook)'] })
    const plain = await t.call('sessions.reset', { key: K }) // command:reset: the greeter only handles command:new
    expect(plain.messages).toBeUndefined()
    const reset = await t.call('sessions.reset', { key: K, reason: 'new' })
    expect(reset.messages).toEqual(['Fresh start! (from a hook)'])
    await ext.idle()
    const nextId = reset.entry.sessionId
    expect(sessions[0]).toEqual(['start', expect.objectContaining({ sessionId: firstId, sessionKey: K })])
    expect(sessions).toContainEqual(['end', expect.objectContaining({ sessionId: firstId, reason: 'new', messageCount: 2 })])
    expect(sessions).toContainEqual(['start', expect.objectContaining({ sessionId: nextId })])
    // the main session cannot be deleted, so no session_end fires (deletion's is the next test's)
    const count = sessions.length
    await expect(t.call('sessions.delete', { key: K })).rejects.toThrow(/Cannot delete the main session/)
    await ext.idle()
    expect(sessions).toHaveLength(count)
  })

  it('session_end on delete: fired from the handler while the transcript is in place, also for sessions of an earlier process; emitLifecycleHooks:false skips it', async () => {
    // a session written by this runtime, then a new runtime (process) on the same state dir
    server.script([{ text: 'one' }, { text: 'two' }])
    await t.call('chat.send', { sessionKey: 'agent:main:old', message: 'hi', idempotencyKey: 'o1' })
    await until(() => ended('o1'))
    await t.call('chat.send', { sessionKey: 'agent:main:quiet', message: 'hi', idempotencyKey: 'q1' })
    await until(() => ended('q1'))
    await t.close()
    t = await startTestRuntime(server, { stateDir, config: testConfig(server), runtime: { extensions: { logger } } })
    ext = t.runtime.extensions!
    const ends: Array<{ ev: Record<string, unknown>; fileThere: boolean }> = []
    ext.registry.register('session_end', (ev) => void ends.push({ ev: ev as never, fileThere: !!ev.sessionFile && fs.existsSync(ev.sessionFile) }))
    const old = t.runtime.core.store('main').get('agent:main:old')!
    const file = t.runtime.core.store('main').transcriptPath(old.sessionId)
    const del = await t.call('sessions.delete', { key: 'agent:main:old' })
    await ext.idle()
    expect(ends).toEqual([{ ev: expect.objectContaining({ sessionId: old.sessionId, sessionKey: 'agent:main:old', reason: 'deleted', messageCount: 2, sessionFile: file }), fileThere: true }])
    // and the transcript was archived after that
    expect(fs.existsSync(file)).toBe(false)
    expect(del.archived).toHaveLength(1)
    await t.call('sessions.delete', { key: 'agent:main:quiet', emitLifecycleHooks: false })
    await ext.idle()
    expect(ends).toHaveLength(1)
    // a session that is already gone ends nothing
    await t.call('sessions.delete', { key: 'agent:main:old' })
    await ext.idle()
    expect(ends).toHaveLength(1)
  })

  it('gateway_start / gateway_stop reach plugins', async () => {
    const got: unknown[] = []
    ext.registry.register('gateway_start', (ev) => void got.push(ev))
    ext.registry.register('gateway_stop', (ev) => void got.push(ev))
    await ext.gatewayStarted(18789)
    await ext.gatewayStopped('shutdown')
    expect(got).toEqual([{ port: 18789 }, { reason: 'shutdown' }])
    // a real gateway over this runtime reports its start and stop through RuntimeHost.gatewayLifecycle
    got.length = 0
    const gw = await startGateway({ host: t.runtime, stateDir, port: 0, writeInfo: false, staticDir: null, token: 'test-token-0123456789abcdef', logger: { info: () => {}, warn: () => {}, error: () => {} } })
    await gw.close('test over')
    await ext.idle()
    await until(() => got.length === 2)
    expect(got).toEqual([{ port: gw.port }, { reason: 'test over' }])
  })
})

describe('hook time limits (hooks.timeoutMs)', () => {
  it('hanging plugin hooks and hook scripts never hang a run: before_tool_call blocks (fail closed), the rest are skipped and logged', async () => {
    await t.close()
    write(
      'plugins/hangs/index.mjs',
      `export function register(api) {
        const never = () => new Promise(() => {})
        for (const name of ['before_agent_start', 'message_sending', 'agent_end', 'message_sent']) api.on(name, never)
        api.on('before_tool_call', (ev) => (ev.toolName === 'read' ? never() : undefined))
      }`,
    )
    write('hooks/slowboot/handler.mjs', `export const events = ['agent:bootstrap']\nexport default function () { return new Promise(() => {}) }`)
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server, { hooks: { timeoutMs: 300 } })))
    t = await startTestRuntime(server, { stateDir, runtime: { extensions: { logger } } })
    ext = t.runtime.extensions!
    expect(ext.plugins.loaded).toContain('hangs')
    fs.mkdirSync(t.workspace, { recursive: true })
    fs.writeFileSync(path.join(t.workspace, 'a.txt'), 'AAA')
    server.script([
      { toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a.txt' } }] },
      { toolCalls: [{ id: 'c2', name: 'message', args: { text: 'still here' } }] },
      { text: 'done' },
    ])
    const started = Date.now()
    const final = await run('read a.txt', 'to1')
    expect(final.status).toBe('ok')
    expect(Date.now() - started).toBeLessThan(8000)
    // fail closed: the tool did not run
    const tool = toolMessages(server.requests[1])[0]
    expect(tool).toContain('Tool call blocked: before_tool_call hook of plugin "hangs" did not answer within 300 ms')
    expect(tool).not.toContain('AAA')
    // fail open: the prompt went out without the hanging hooks, the message was still delivered
    expect(usersOf(server.requests[0])).toEqual(['[policy] be brief\n\nread a.txt'])
    expect(agentEvents('to1').filter((e) => e.stream === 'block').map((e) => (e.data as { text: string }).text)).toEqual(['still here'])
    await ext.idle() // observe hooks (agent_end, message_sent) time out too
    for (const expected of [
      /before_agent_start handler of plugin "hangs" timed out after 300 ms; skipped/,
      /message_sending handler of plugin "hangs" timed out after 300 ms; skipped/,
      /agent_end handler of plugin "hangs" timed out after 300 ms; skipped/,
      /agent:bootstrap hook "state\/slowboot" timed out after 300 ms; skipped/,
    ]) {
      expect(logs.some((l) => l.startsWith('error') && expected.test(l)), String(expected)).toBe(true)
    }
  })
})

describe('a handler stopped at its limit leaves nothing half edited', () => {
  it('tool_result_persist stopped after editing the result in place: the transcript gets the result as the tool made it', async () => {
    ext.registry.register(
      'tool_result_persist',
      (ev) => {
        const m = ev.message as unknown as { content: Array<{ type: string; text: string }> }
        m.content[0].text = 'HALF-EDITED'
        for (;;) {
          /* stopped by the watchdog */
        }
      },
      { pluginId: 'stuck-redactor', timeoutMs: 200 },
    )
    fs.mkdirSync(t.workspace, { recursive: true })
    fs.writeFileSync(path.join(t.workspace, 'a.txt'), 'AAA')
    server.script([{ toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a.txt' } }] }, { text: 'done' }])
    expect((await run('read a.txt', 'he1')).status).toBe('ok')
    const entry = t.runtime.core.store('main').get(K)!
    const { entries } = await new Transcript(t.runtime.core.store('main').transcriptPath(entry.sessionId)).readAll()
    const persisted = entries.filter((e) => e.type === 'message' && e.message.role === 'toolResult')
    expect(persisted).toHaveLength(1)
    expect(JSON.stringify(persisted[0])).toContain('AAA')
    expect(JSON.stringify(persisted[0])).not.toContain('HALF-EDITED')
    expect(logs).toContainEqual(expect.stringMatching(/tool_result_persist handler of plugin "stuck-redactor" failed: .*did not answer within 200 ms/))
  })
})

describe('loading plugins and hook scripts is time-limited (hooks.timeoutMs)', () => {
  it('a plugin whose register(api) or top level loops, or whose register never settles, fails to load; the runtime starts without it', async () => {
    await t.close()
    write('plugins/loops-register/index.mjs', `export function register(api) { api.on('before_agent_start', () => ({ prependContext: 'LOOPER' })); for (;;) {} }`)
    write('plugins/loops-top/index.mjs', `for (;;) {}\nexport function register() {}`)
    write('plugins/never-settles/index.mjs', `export function register() { return new Promise(() => {}) }`)
    write('hooks/loops-top/handler.mjs', `export const events = ['command:new']\nwhile (true) {}\nexport default function () {}`)
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server, { hooks: { timeoutMs: 300 } })))
    const started = Date.now()
    t = await startTestRuntime(server, { stateDir, runtime: { extensions: { logger } } })
    expect(Date.now() - started).toBeLessThan(8000)
    ext = t.runtime.extensions!
    expect(ext.plugins.loaded).toEqual(['policy'])
    const failed = Object.fromEntries(ext.plugins.failed.map((f) => [f.id, f]))
    expect(failed['loops-register']).toEqual({
      id: 'loops-register',
      error: 'register(api) ran past the time limit (300 ms) and was stopped',
      timedOut: { phase: 'register', timeoutMs: 300 },
    })
    expect(failed['loops-top']).toMatchObject({ timedOut: { phase: 'module', timeoutMs: 300 } })
    expect(failed['never-settles']).toMatchObject({ timedOut: { phase: 'register', timeoutMs: 300 } })
    expect(ext.internalHooks.failed).toEqual([{ id: 'state/loops-top', error: expect.stringMatching(/top level ran past the time limit \(300 ms\) and was stopped/) }])
    expect(logs).toContain('error [plugins] plugin "loops-register" failed to load and was skipped: register(api) ran past the time limit (300 ms) and was stopped')
    // the runtime runs, with the plugins that loaded
    server.script([{ text: 'hello' }])
    expect((await run('hi', 'ld1')).status).toBe('ok')
    expect(usersOf(server.requests[0])).toEqual(['[policy] be brief\n\nhi'])
  })
})

describe('chat events stay clean', () => {
  it('the final chat text is not affected by hooks', async () => {
    server.script([{ text: 'plain answer' }])
    await t.call('chat.send', { sessionKey: K, message: 'hi', idempotencyKey: 'z1' })
    await until(() => ended('z1'))
    const final = t.events.find((e) => e.event === 'chat' && e.payload.runId === 'z1' && (e.payload as ChatEvent).state === 'final')
    expect((final?.payload as ChatEvent).message?.content[0].text).toBe('plain answer')
  })
})
