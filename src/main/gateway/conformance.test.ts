// OpenClaw wire conformance of the session/agent methods: the gateway over the REAL runtime, real
// WebSocket clients, and every result checked with ajv against @openclaw/gateway-protocol's own schema.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv, { type ValidateFunction } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'
import { connectGateway, type EventFrameIn, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { startGateway, type GatewayHandle } from './server'

// not in the package's exports map: read the file itself
const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const protocol = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as { definitions: Record<string, unknown> }
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(protocol, 'openclaw')
function schema(name: string): ValidateFunction {
  const v = ajv.getSchema(`openclaw#/definitions/${name}`)
  if (!v) throw new Error(`no ${name} in the package schema`)
  return v
}
/** Fails with ajv's errors when `value` does not fit the package's definition. */
function conforms(name: string, value: unknown): void {
  const v = schema(name)
  const ok = v(value)
  expect(ok ? [] : v.errors, `${name}: ${JSON.stringify(value).slice(0, 400)}`).toEqual([])
}

/** Like conforms(), for results that also carry Loopdesk's own fields: those are dropped before checking. */
const lenient = new Ajv({ strict: false, allErrors: true, validateFormats: false, removeAdditional: 'all' })
lenient.addSchema(protocol, 'openclaw')
function conformsKnown(name: string, value: unknown): void {
  const v = lenient.getSchema(`openclaw#/definitions/${name}`)!
  const ok = v(structuredClone(value))
  expect(ok ? [] : v.errors, `${name}: ${JSON.stringify(value).slice(0, 400)}`).toEqual([])
}

const TOKEN = 'conformance-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
const identity = generateNodeDeviceIdentity()
const connect = () => connectGateway({ url: gw.url, token: TOKEN, identity })

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  const config = testConfig(server, {
    agents: { list: [{ id: 'main', default: true }, { id: 'ops', model: 'mockant/c1' }] },
    // a reasoning model, so a thinking level shows in the request (reasoning_effort)
    models: {
      providers: {
        mockthink: {
          baseUrl: server.openaiBaseUrl,
          api: 'openai-completions',
          models: [{ id: 'r1', contextWindow: 32000, maxTokens: 1024, reasoning: true }],
        },
      },
    },
  })
  rt = await startTestRuntime(server, { config })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

async function runTurn(c: GatewayConnectionClient, sessionKey: string, message: string, id: string) {
  await c.request('chat.send', { sessionKey, message, idempotencyKey: id })
  await expect(c.request('agent.wait', { runId: id, timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
}

async function failure(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p
  } catch (err) {
    return err as { code?: string; message: string }
  }
  throw new Error('expected the request to fail')
}

describe('sessions.list', () => {
  it('rows fit SessionRow; path, defaults, paging, kinds, derived titles, spawnedBy', async () => {
    const c = await connect()
    server.push({ text: 'first answer' })
    await runTurn(c, 'agent:main:list-a', 'Plan the   garden\nfor spring please', 'list-run-a')
    await c.request('sessions.create', { key: 'agent:main:list-b', label: 'Labelled' })
    await c.request('sessions.create', { key: 'agent:main:global' })

    const params = { includeDerivedTitles: true, limit: 100 }
    conforms('SessionsListParams', params)
    const all = (await c.request('sessions.list', params)) as any
    expect(all.path).toBe(path.join(rt.stateDir, 'agents', 'main', 'sessions', 'sessions.json'))
    expect(fs.existsSync(all.path)).toBe(true)
    expect(all.defaults).toMatchObject({ modelProvider: 'mock', model: 'm1', contextTokens: 32000, agentId: 'main', mainKey: 'main' })
    for (const row of all.sessions) conforms('SessionRow', row)
    const keys = all.sessions.map((r: any) => r.key)
    expect(keys).toContain('agent:main:list-a')
    expect(keys).not.toContain('agent:main:global') // hidden unless includeGlobal
    const a = all.sessions.find((r: any) => r.key === 'agent:main:list-a')
    expect(a).toMatchObject({ kind: 'direct', status: 'done', derivedTitle: 'Plan the garden for spring please' })
    const b = all.sessions.find((r: any) => r.key === 'agent:main:list-b')
    expect(b).not.toHaveProperty('status') // idle
    expect(b).not.toHaveProperty('derivedTitle') // it has a label
    expect(all).toMatchObject({ count: all.sessions.length, total: all.sessions.length, hasMore: false })

    const withGlobal = (await c.request('sessions.list', { includeGlobal: true })) as any
    expect(withGlobal.sessions.find((r: any) => r.key === 'agent:main:global')).toMatchObject({ kind: 'global' })

    // real paging: pages do not overlap and cover everything
    const p1 = (await c.request('sessions.list', { limit: 1 })) as any
    expect(p1).toMatchObject({ count: 1, hasMore: true, nextOffset: 1, total: all.total })
    const p2 = (await c.request('sessions.list', { limit: 1, offset: p1.nextOffset })) as any
    expect(p2.sessions[0].key).not.toBe(p1.sessions[0].key)
    const rest = (await c.request('sessions.list', { offset: 1 })) as any
    expect([p1.sessions[0].key, ...rest.sessions.map((r: any) => r.key)]).toEqual(keys)
    expect(rest).toMatchObject({ hasMore: false })
    expect(rest).not.toHaveProperty('nextOffset')

    expect(((await c.request('sessions.list', { spawnedBy: 'agent:main:list-a' })) as any).sessions).toEqual([])
    expect(((await c.request('sessions.list', { archived: true })) as any).sessions).toEqual([])
    const ignored = { archived: 'all' as const, boardFace: 'chat' as const, ownerFirst: true, includePeople: true, limit: 100 }
    conforms('SessionsListParams', ignored)
    expect(((await c.request('sessions.list', ignored)) as any).sessions.map((r: any) => r.key)).toEqual(keys)
    const sorted = (await c.request('sessions.list', { sortBy: 'lastInteractionAt', requireLastInteraction: true })) as any
    expect(sorted.sessions.map((r: any) => r.key)).toEqual(['agent:main:list-a'])
    await c.close()
  })

  it('derivedTitle is one line cut to 60 chars; only asked-for rows get one', async () => {
    const c = await connect()
    const long = `${'word '.repeat(40)}end`
    await runTurn(c, 'agent:main:long-title', long, 'long-title-run')
    const plain = (await c.request('sessions.list', { search: 'long-title' })) as any
    expect(plain.sessions[0]).not.toHaveProperty('derivedTitle')
    const res = (await c.request('sessions.list', { search: 'long-title', includeDerivedTitles: true })) as any
    const title = res.sessions[0].derivedTitle as string
    expect(title).toHaveLength(60)
    expect(title.endsWith('…')).toBe(true)
    expect(long.startsWith(title.slice(0, -1))).toBe(true)
    await c.close()
  })

  it('derivedTitle: an invisible-only first message is refused and names nothing (the next one does); bidi controls are dropped', async () => {
    const c = await connect()
    const refused = await failure(c.request('chat.send', { sessionKey: 'agent:main:title-blank', message: '\uFEFF\u200B\u200B', idempotencyKey: 'title-blank-1' }))
    expect(refused.message).toMatch(/only invisible characters/)
    const blank = (await c.request('sessions.list', { search: 'title-blank', includeDerivedTitles: true })) as any
    expect(blank.sessions[0]?.derivedTitle).toBeUndefined()
    await runTurn(c, 'agent:main:title-blank', 'Real topic', 'title-blank-2')
    const named = (await c.request('sessions.list', { search: 'title-blank', includeDerivedTitles: true })) as any
    expect(named.sessions[0].derivedTitle).toBe('Real topic')
    await runTurn(c, 'agent:main:title-rlo', 'invoice \u202Efdp.exe', 'title-rlo-1')
    const rlo = (await c.request('sessions.list', { search: 'title-rlo', includeDerivedTitles: true })) as any
    expect(rlo.sessions[0].derivedTitle).toBe('invoice fdp.exe')
    await c.close()
  })

  it('derivedTitle: a message of only an attachment is named after the file; a reset session after its new first message', async () => {
    const c = await connect()
    const key = 'agent:main:title-files'
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64')
    await c.request('chat.send', { sessionKey: key, message: '', idempotencyKey: 'title-img', attachments: [{ type: 'image', mimeType: 'image/png', fileName: 'plan.png', content: png }] })
    await c.request('agent.wait', { runId: 'title-img', timeoutMs: 10_000 })
    const titleOf = async () => ((await c.request('sessions.list', { search: 'title-files', includeDerivedTitles: true })) as any).sessions[0].derivedTitle
    expect(await titleOf()).toBe('plan.png')
    // asked again (the window lists on every change): the same title, and still right after a reset
    expect(await titleOf()).toBe('plan.png')
    await c.request('sessions.reset', { key })
    expect(await titleOf()).toBeUndefined()
    // a bare /new through `agent` starts the fresh session with a greeting prompt, which names nothing
    await c.request('agent', { sessionKey: key, message: '/new', idempotencyKey: 'title-new' })
    await expect(c.request('agent.wait', { runId: 'title-new', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    expect(await titleOf()).toBeUndefined()
    await runTurn(c, key, 'A fresh topic', 'title-fresh')
    expect(await titleOf()).toBe('A fresh topic')
    // a first message longer than the first read of the transcript's head (16 KiB)
    const huge = `Huge paste ${'lorem ipsum '.repeat(2000)}`
    await runTurn(c, 'agent:main:title-huge', huge, 'title-huge')
    const res = (await c.request('sessions.list', { search: 'title-huge', includeDerivedTitles: true })) as any
    expect(res.sessions[0].derivedTitle).toBe(`${huge.slice(0, 59)}…`)
    await c.close()
  })

  it('an unknown param is still refused (closed schema)', async () => {
    const c = await connect()
    expect(await failure(c.request('sessions.list', { nope: 1 }))).toMatchObject({ code: 'INVALID_REQUEST' })
    await c.close()
  })
})

describe('agents.list', () => {
  it('fits AgentsListResult: scope and model as {primary}', async () => {
    const c = await connect()
    const res = (await c.request('agents.list', {})) as any
    conforms('AgentsListResult', res)
    // the scope hello-ok reports: a main session per agent (agent:<id>:main), not OpenClaw's one `global` key
    expect(res.scope).toBe('per-sender')
    expect(c.hello.snapshot.sessionDefaults).toMatchObject({ scope: res.scope, mainKey: res.mainKey, defaultAgentId: res.defaultId })
    expect(res.agents.find((a: any) => a.id === 'ops')).toMatchObject({ model: { primary: 'mockant/c1' } })
    await c.close()
  })
})

describe('commands.list', () => {
  it("fits CommandsListResult: the chat's /new, /reset, /stop and /model, their args only when asked; none for the native scope", async () => {
    const c = await connect()
    const params = { agentId: 'main', includeArgs: true, scope: 'text' }
    conforms('CommandsListParams', params)
    const withArgs = (await c.request('commands.list', params)) as any
    conforms('CommandsListResult', withArgs)
    expect(withArgs.commands.map((x: any) => x.name)).toEqual(['new', 'reset', 'stop', 'model'])
    expect(withArgs.commands[0]).toMatchObject({ acceptsArgs: true, args: [{ name: 'message', type: 'string' }] })
    const plain = (await c.request('commands.list', {})) as any
    conforms('CommandsListResult', plain)
    expect(plain.commands.every((x: any) => x.args === undefined)).toBe(true)
    expect(await c.request('commands.list', { scope: 'native' })).toEqual({ commands: [] })
    expect(await failure(c.request('commands.list', { agentId: 'ghost' }))).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('ghost') })
    await c.close()
  })
})

describe('fastMode and chat.history levels', () => {
  it('sessions.patch stores fastMode; rows and chat.history report it; history always carries the levels', async () => {
    const c = await connect()
    const key = 'agent:main:fast'
    await c.request('sessions.create', { key })
    const bare = (await c.request('chat.history', { sessionKey: key })) as any
    expect(bare).toMatchObject({ thinkingLevel: null, fastMode: null, verboseLevel: null })
    const unknown = (await c.request('chat.history', { sessionKey: 'agent:main:never-made' })) as any
    expect(unknown).toMatchObject({ thinkingLevel: null, fastMode: null, verboseLevel: null })

    for (const fastMode of [true, 'auto', false] as const) {
      const patch = { key, fastMode }
      conforms('SessionsPatchParams', patch)
      const res = (await c.request('sessions.patch', patch)) as any
      expect(res.entry.fastMode).toBe(fastMode)
      conforms('SessionRow', res.entry)
      expect(await c.request('chat.history', { sessionKey: key })).toMatchObject({ fastMode })
    }
    await c.request('sessions.patch', { key, thinkingLevel: 'low', verboseLevel: 'on' })
    expect(await c.request('chat.history', { sessionKey: key })).toMatchObject({ thinkingLevel: 'low', fastMode: false, verboseLevel: 'on' })
    const cleared = (await c.request('sessions.patch', { key, fastMode: null })) as any
    expect(cleared.entry).not.toHaveProperty('fastMode')
    expect(await c.request('chat.history', { sessionKey: key })).toMatchObject({ fastMode: null })
    expect(await failure(c.request('sessions.patch', { key, fastMode: 'fast' }))).toMatchObject({ code: 'INVALID_REQUEST' })

    // a reset keeps the session's settings, fastMode included
    await c.request('sessions.patch', { key, fastMode: true })
    const reset = (await c.request('sessions.reset', { key })) as any
    expect(reset.entry.fastMode).toBe(true)
    await c.close()
  })
})

describe('narrower params', () => {
  it('sessions.abort by runId alone, with clearQueued', async () => {
    const c = await connect()
    const key = 'agent:main:abort-by-run'
    server.push({ hang: true })
    // counted before the send: its `started` reply can reach this client after the model request went out
    const before = server.requests.length
    await c.request('chat.send', { sessionKey: key, message: 'long one', idempotencyKey: 'hang-1' })
    await until(() => server.requests.length > before && rt.runtime.core.runner.activeRun('hang-1') !== undefined)
    await c.request('chat.send', { sessionKey: key, message: 'queued behind', idempotencyKey: 'behind-1', queueMode: 'followup' })
    const params = { runId: 'hang-1', clearQueued: true }
    conforms('SessionsAbortParams', params)
    const res = (await c.request('sessions.abort', params)) as any
    expect(res).toMatchObject({ ok: true, status: 'aborted', abortedRunId: 'hang-1' })
    // the queued follow-up was cancelled with it and never reached the model
    expect(res).toMatchObject({ abortedRunIds: ['hang-1', 'behind-1'], clearedQueued: 1 })
    // an aborted run reports `timeout` with its end time (OpenClaw's agent.wait semantics)
    await expect(c.request('agent.wait', { runId: 'hang-1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'timeout', endedAt: expect.any(Number) })
    await expect(c.request('agent.wait', { runId: 'behind-1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'timeout', endedAt: expect.any(Number) })
    const hist = (await c.request('chat.history', { sessionKey: key })) as any
    expect(hist.messages.map((m: any) => m.runId)).toEqual(['hang-1', 'hang-1'])
    expect(await c.request('sessions.abort', { runId: 'no-such-run' })).toEqual({ ok: true, abortedRunId: null, status: 'no-active-run' })
    expect(await failure(c.request('sessions.abort', {}))).toMatchObject({ code: 'INVALID_REQUEST' })
    await c.close()
  })

  it('sessions.abort refuses a runId of another session', async () => {
    const c = await connect()
    server.push({ hang: true })
    const before = server.requests.length
    await c.request('chat.send', { sessionKey: 'agent:main:owner', message: 'x', idempotencyKey: 'hang-2' })
    await until(() => server.requests.length > before && rt.runtime.core.runner.activeRun('hang-2') !== undefined)
    expect(await failure(c.request('sessions.abort', { key: 'agent:main:other', runId: 'hang-2' }))).toMatchObject({ code: 'INVALID_REQUEST' })
    await c.request('sessions.abort', { key: 'agent:main:owner' })
    await c.request('agent.wait', { runId: 'hang-2', timeoutMs: 10_000 })
    await c.close()
  })

  it('sessions.compact accepts maxLines (a short transcript is left alone)', async () => {
    const c = await connect()
    const key = 'agent:main:compact-lines'
    await runTurn(c, key, 'hello', 'compact-run')
    const params = { key, maxLines: 1000 }
    conforms('SessionsCompactParams', params)
    expect(await c.request('sessions.compact', params)).toMatchObject({ ok: true, compacted: false, reason: expect.stringContaining('maxLines 1000') })
    await c.close()
  })

  it('sessions.delete reports the archived transcript truthfully', async () => {
    const c = await connect()
    const key = 'agent:main:to-delete'
    await runTurn(c, key, 'hello', 'delete-run')
    const res = (await c.request('sessions.delete', { key })) as any
    conforms('SessionsDeleteResult', res)
    expect(res.archived).toHaveLength(1)
    expect(fs.existsSync(res.archived[0])).toBe(true)
    expect(res.archived[0]).toContain('.deleted.')

    await runTurn(c, 'agent:main:to-erase', 'hello', 'erase-run')
    const erased = (await c.request('sessions.delete', { key: 'agent:main:to-erase', deleteTranscript: true })) as any
    expect(erased).toEqual({ ok: true, key: 'agent:main:to-erase', deleted: true, archived: [] })
    conforms('SessionsDeleteResult', await c.request('sessions.delete', { key: 'agent:main:to-erase' }))
    await c.close()
  })

  it('agent: a message channel Loopdesk does not have is unknown; deliver needs bestEffortDeliver', async () => {
    const c = await connect()
    const before = server.requests.length
    const base = { message: 'hi', sessionKey: 'agent:main:routing' }
    for (const extra of [{ channel: 'bogus-channel' }, { replyChannel: 'telegram' }]) {
      const params = { ...base, idempotencyKey: `route-${Object.values(extra)[0]}`, ...extra }
      conforms('AgentParams', params)
      expect(await failure(c.request('agent', params))).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^unknown channel: (bogus-channel|telegram) /) })
    }
    expect(await failure(c.request('agent', { ...base, idempotencyKey: 'route-deliver', deliver: true }))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('delivery channel is required'),
    })
    expect(server.requests.length).toBe(before) // nothing ran
    server.push({ text: 'session only' })
    const ok = { ...base, idempotencyKey: 'route-ok', channel: 'webchat', deliver: true, bestEffortDeliver: true }
    expect(await c.request('agent', ok, { expectFinal: true })).toMatchObject({ status: 'ok', result: { payloads: [{ text: 'session only' }] } })
    await c.close()
  })

  it('a message queued behind a run: v4 sees queued and agent.wait pending (queue phase); v3 sees started and timeout', async () => {
    const v4 = await connect()
    const v3 = await connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol: 3 })
    const key = 'agent:main:queued-wait'
    server.push({ hang: true })
    await v4.request('chat.send', { sessionKey: key, message: 'slow', idempotencyKey: 'qw-run' })
    await until(() => rt.runtime.core.runner.activeRun('qw-run') !== undefined)
    const queued = (await v4.request('chat.send', { sessionKey: key, message: 'next', idempotencyKey: 'qw-next', queueMode: 'followup' })) as any
    expect(queued).toMatchObject({ runId: 'qw-next', status: 'queued', queueItemId: expect.any(String) })
    expect(await v4.request('agent.wait', { runId: 'qw-next', timeoutMs: 20 })).toEqual({ runId: 'qw-next', status: 'pending', timeoutPhase: 'queue', providerStarted: false })
    expect(await v3.request('agent.wait', { runId: 'qw-next', timeoutMs: 20 })).toEqual({ runId: 'qw-next', status: 'timeout' })
    expect(await v3.request('chat.send', { sessionKey: key, message: 'third', idempotencyKey: 'qw-third', queueMode: 'followup' })).toEqual({ runId: 'qw-third', status: 'started' })
    // the running one is not pending: its wait is a plain timeout
    expect(await v4.request('agent.wait', { runId: 'qw-run', timeoutMs: 20 })).toEqual({ runId: 'qw-run', status: 'timeout' })
    await v4.request('chat.send', { sessionKey: key, message: '/stop', idempotencyKey: 'qw-stop' })
    await Promise.all([v4.close(), v3.close()])
  })

  it('agent.wait accepts any timeoutMs ≥ 0', async () => {
    const c = await connect()
    await runTurn(c, 'agent:main:wait-long', 'hi', 'wait-long-run')
    const params = { runId: 'wait-long-run', timeoutMs: 10 ** 12 }
    conforms('AgentWaitParams', params)
    await expect(c.request('agent.wait', params)).resolves.toMatchObject({ status: 'ok' })
    expect(await c.request('agent.wait', { runId: 'unknown-run', timeoutMs: 0 })).toMatchObject({ status: 'timeout' })
    await c.close()
  })
})

describe('new methods', () => {
  it('hello advertises them and session.message', async () => {
    const c = await connect()
    const features = c.hello.features
    for (const m of ['agent.identity.get', 'sessions.send', 'sessions.steer', 'sessions.messages.subscribe', 'sessions.messages.unsubscribe']) {
      expect(features.methods).toContain(m)
    }
    expect(features.events).toContain('session.message')
    await c.close()
  })

  it('agent.identity.get: default identity, IDENTITY.md name/emoji, by sessionKey', async () => {
    const c = await connect()
    const def = (await c.request('agent.identity.get', {})) as any
    conforms('AgentIdentityResult', def)
    expect(def).toEqual({ agentId: 'main', name: 'main', nameSource: 'default' })
    const ws = rt.runtime.core.config.current.agents.find((a) => a.id === 'ops')!.workspace
    fs.mkdirSync(ws, { recursive: true })
    fs.writeFileSync(path.join(ws, 'IDENTITY.md'), '# Identity\n\n- **Name:** Opsy\n- **Emoji:** 🛠️\n- Vibe: calm\n')
    const ops = (await c.request('agent.identity.get', { sessionKey: 'agent:ops:main' })) as any
    conforms('AgentIdentityResult', ops)
    expect(ops).toEqual({ agentId: 'ops', name: 'Opsy', nameSource: 'workspace', emoji: '🛠️' })
    expect(await failure(c.request('agent.identity.get', { agentId: 'nobody' }))).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await failure(c.request('agent.identity.get', { agentId: 'main', sessionKey: 'agent:ops:main' }))).toMatchObject({ code: 'INVALID_REQUEST' })
    await c.close()
  })

  it('sessions.send runs like chat.send; bad attachments are refused clearly', async () => {
    const c = await connect()
    server.push({ text: 'sent reply' })
    const params = { key: 'agent:main:send', message: 'via sessions.send', idempotencyKey: 'send-1' }
    conforms('SessionsSendParams', params)
    // a session that does not exist is not created by a send (or a steer): a mistyped key starts nothing
    const requests = server.requests.length
    expect(await failure(c.request('sessions.send', params))).toMatchObject({ code: 'INVALID_REQUEST', message: 'session not found: agent:main:send' })
    expect(await failure(c.request('sessions.steer', { ...params, idempotencyKey: 'steer-0' }))).toMatchObject({ message: 'session not found: agent:main:send' })
    expect(server.requests.length).toBe(requests)
    await c.request('sessions.create', { key: 'agent:main:send' })
    const res = (await c.request('sessions.send', params)) as any
    expect(res).toMatchObject({ runId: 'send-1', status: 'started', key: 'agent:main:send' })
    await expect(c.request('agent.wait', { runId: 'send-1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    // same idempotencyKey: deduped like chat.send
    expect(await c.request('sessions.send', params)).toMatchObject({ runId: 'send-1' })
    const hist = (await c.request('chat.history', { sessionKey: 'agent:main:send' })) as any
    expect(hist.messages.map((m: any) => m.role)).toEqual(['user', 'assistant'])

    // without idempotencyKey one is generated
    const gen = (await c.request('sessions.send', { key: 'agent:main:send', message: 'again' })) as any
    expect(typeof gen.runId).toBe('string')
    await c.request('agent.wait', { runId: gen.runId, timeoutMs: 10_000 })

    const att = { key: 'agent:main:send', message: 'see file', attachments: [{ type: 'image', mimeType: 'image/png', content: 'not*base64' }] }
    conforms('SessionsSendParams', att)
    const err = await failure(c.request('sessions.send', att))
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: 'attachments[0]: content is not valid base64' })
    await c.close()
  })

  it('sessions.steer interrupts the active run first', async () => {
    const c = await connect()
    const key = 'agent:main:steer'
    server.push({ hang: true })
    await c.request('chat.send', { sessionKey: key, message: 'slow', idempotencyKey: 'steer-hang' })
    // the hang turn must be taken by this run's request (the script is FIFO), not by the steered one
    const before = server.requests.length
    await until(() => server.requests.length > before && rt.runtime.core.runner.activeRun('steer-hang') !== undefined)
    server.push({ text: 'steered answer' })
    const res = (await c.request('sessions.steer', { key, message: 'do this instead', idempotencyKey: 'steer-new' })) as any
    expect(res).toMatchObject({ runId: 'steer-new', status: 'started', interruptedActiveRun: true })
    await expect(c.request('agent.wait', { runId: 'steer-hang', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'timeout', endedAt: expect.any(Number) })
    await expect(c.request('agent.wait', { runId: 'steer-new', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    server.push({ text: 'calm' })
    const idle = (await c.request('sessions.steer', { key, message: 'nothing running', idempotencyKey: 'steer-idle' })) as any
    expect(idle.interruptedActiveRun).toBe(false)
    await c.request('agent.wait', { runId: 'steer-idle', timeoutMs: 10_000 })
    await c.close()
  })

  it('sessions.messages.subscribe: session.message per transcript append, only for that session, until unsubscribed', async () => {
    const sub = await connect()
    const other = await connect()
    const got: EventFrameIn[] = []
    sub.onEvent((e) => e.event === 'session.message' && got.push(e))
    const otherGot: EventFrameIn[] = []
    other.onEvent((e) => e.event === 'session.message' && otherGot.push(e))
    const key = 'agent:main:watched'
    const params = { key: 'watched' }
    conforms('SessionsMessagesSubscribeParams', params)
    expect(await sub.request('sessions.messages.subscribe', params)).toEqual({ subscribed: true, key })

    server.push({ text: 'watched reply' })
    await runTurn(other, key, 'hello watcher', 'watched-1')
    await runTurn(other, 'agent:main:unwatched', 'elsewhere', 'unwatched-1')
    await until(() => got.length >= 2)
    expect(got.map((e) => (e.payload as any).message.role)).toEqual(['user', 'assistant'])
    expect(got.map((e) => (e.payload as any).messageSeq)).toEqual([1, 2])
    for (const e of got) {
      expect(e.seq).toBeUndefined() // targeted: no gateway frame seq
      expect(e.payload).toMatchObject({ sessionKey: key, messageId: expect.any(String), runId: 'watched-1' })
    }
    expect(otherGot).toEqual([])
    const hist = (await sub.request('chat.history', { sessionKey: key })) as any
    expect(got.map((e) => (e.payload as any).messageId)).toEqual(hist.messages.map((m: any) => m.id))

    expect(await sub.request('sessions.messages.unsubscribe', params)).toEqual({ subscribed: false, key })
    await runTurn(other, key, 'after unsubscribe', 'watched-2')
    await new Promise((r) => setTimeout(r, 50))
    expect(got).toHaveLength(2)
    await sub.close()
    await other.close()
  })
})

describe('agent params', () => {
  it('accepts OpenClaw routing fields and free-text thinking; the level reaches the model', async () => {
    const c = await connect()
    const params = {
      message: 'route me',
      idempotencyKey: 'agent-route-1',
      sessionKey: 'agent:main:routed',
      thinking: 'think harder',
      to: '+15550001',
      replyTo: 'msg-9',
      replyChannel: 'last',
      accountId: 'acct',
      threadId: 't-1',
      groupId: 'g-1',
      inputProvenance: { kind: 'external_user' },
      label: 'L'.repeat(300),
      timeout: 10 ** 9,
      model: 'mockthink/r1',
    }
    conforms('AgentParams', params)
    const before = server.requests.length
    server.push({ text: 'routed reply' })
    const final = (await c.request('agent', params, { expectFinal: true, timeoutMs: 15_000 })) as any
    expect(final).toMatchObject({ runId: 'agent-route-1', status: 'ok' })
    expect(server.requests[before].body.reasoning_effort).toBe('medium')

    const adaptive = { message: 'adaptive', idempotencyKey: 'agent-route-2', sessionKey: 'agent:main:routed', thinking: 'adaptive', model: 'mockthink/r1' }
    conforms('AgentParams', adaptive)
    await expect(c.request('agent', adaptive, { expectFinal: true, timeoutMs: 15_000 })).resolves.toMatchObject({ status: 'ok' })
    // adaptive = no override: the session/agent default (off in the test config) applies
    expect(server.requests.at(-1)!.body.reasoning_effort).toBeUndefined()

    const bad = await failure(c.request('agent', { message: 'x', idempotencyKey: 'agent-route-3', thinking: 'sideways' }))
    expect(bad).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('invalid thinking level "sideways"') })
    await c.close()
  })

  it('expectedExistingSessionId: runs on the expected session, refuses (and does not run) on any other', async () => {
    const c = await connect()
    const key = 'agent:main:expected'
    const created = (await c.request('sessions.create', { key })) as any
    const ok = { message: 'hi', idempotencyKey: 'expect-1', sessionKey: key, expectedExistingSessionId: created.sessionId }
    conforms('AgentParams', ok)
    await expect(c.request('agent', ok, { expectFinal: true, timeoutMs: 15_000 })).resolves.toMatchObject({ status: 'ok' })

    await c.request('sessions.reset', { key })
    const before = server.requests.length
    const stale = await failure(c.request('agent', { ...ok, idempotencyKey: 'expect-2' }))
    expect(stale).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining(`not the expected ${created.sessionId}`) })
    const missing = await failure(
      c.request('agent', { message: 'hi', idempotencyKey: 'expect-3', sessionKey: 'agent:main:never-made', expectedExistingSessionId: 'abc' }),
    )
    expect(missing.message).toContain('does not exist')
    expect(server.requests.length).toBe(before)
    // a refused call is not remembered: the same key may be used again once the precondition holds
    const now = (await c.request('sessions.list', { search: 'expected' })) as any
    const retry = { ...ok, idempotencyKey: 'expect-2', expectedExistingSessionId: now.sessions[0].sessionId }
    await expect(c.request('agent', retry, { expectFinal: true, timeoutMs: 15_000 })).resolves.toMatchObject({ status: 'ok' })
    await c.close()
  })
})

describe('chat.send params and replays', () => {
  it('suppressCommandInterpretation sends "/new …" as text; agentId must match the key', async () => {
    const c = await connect()
    const params = { sessionKey: 'agent:main:literal', message: '/new is a command in this app', idempotencyKey: 'lit-1', suppressCommandInterpretation: true }
    conforms('ChatSendParams', params)
    const before = server.requests.length
    const sent = (await c.request('chat.send', params)) as any
    expect(sent).toMatchObject({ runId: 'lit-1', status: 'started' })
    await expect(c.request('agent.wait', { runId: 'lit-1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    // as a command, "/new" would have reset the session and sent only "is a command in this app"
    const last = server.requests.at(-1)!.body.messages.at(-1)
    expect(JSON.stringify(last.content)).toContain('/new is a command in this app')
    expect(server.requests.length).toBeGreaterThan(before)

    const mismatch = await failure(c.request('chat.send', { sessionKey: 'agent:main:literal', agentId: 'ops', message: 'x', idempotencyKey: 'lit-2' }))
    expect(mismatch).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('does not match the agent') })
    await c.close()
  })

  it('a retried chat.send after its run ended reports how it ended, and never runs twice', async () => {
    const c = await connect()
    const params = { sessionKey: 'agent:main:replay', message: 'once', idempotencyKey: 'replay-1' }
    await runTurn(c, params.sessionKey, params.message, params.idempotencyKey)
    const requests = server.requests.length
    expect(await c.request('chat.send', params)).toEqual({ runId: 'replay-1', status: 'ok' })

    server.push({ status: 500, message: 'upstream broke' })
    await c.request('chat.send', { ...params, idempotencyKey: 'replay-2' })
    await expect(c.request('agent.wait', { runId: 'replay-2', timeoutMs: 30_000 })).resolves.toMatchObject({ status: 'error' })
    expect(await c.request('chat.send', { ...params, idempotencyKey: 'replay-2' })).toEqual({ runId: 'replay-2', status: 'error' })
    expect(server.requests.length).toBeGreaterThan(requests) // replay-2 ran (its retries included)…
    const after = server.requests.length
    await c.request('chat.send', params)
    expect(server.requests.length).toBe(after) // …and the replays ran nothing
    await c.close()
  })
})

describe('chat events per protocol', () => {
  it('v4 deltas carry deltaText that rebuilds the text; v3 gets the v3 shape; every v4 event fits ChatEvent', async () => {
    const v4 = await connect()
    const v3 = await connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol: 3 })
    const got4: any[] = []
    const got3: any[] = []
    v4.onEvent((e) => e.event === 'chat' && (e.payload as any).sessionKey === 'agent:main:wire' && got4.push(e.payload))
    v3.onEvent((e) => e.event === 'chat' && (e.payload as any).sessionKey === 'agent:main:wire' && got3.push(e.payload))
    const reply = 'Streaming across both protocol versions, piece by piece, until the end.'
    server.push({ text: reply, chunks: 8, delayMs: 60 })
    await runTurn(v4, 'agent:main:wire', 'stream it', 'wire-1')
    await until(() => got4.some((p) => p.state === 'final') && got3.some((p) => p.state === 'final'))

    const deltas4 = got4.filter((p) => p.state === 'delta')
    expect(deltas4.length).toBeGreaterThan(1)
    let shown = ''
    for (const p of deltas4) {
      conforms('ChatEvent', p)
      shown = p.replace ? p.deltaText : shown + p.deltaText
      expect(shown).toBe(p.message.content[0].text)
    }
    for (const p of got4) conforms('ChatEvent', p)
    for (const p of got3.filter((x) => x.state === 'delta')) {
      expect(p).not.toHaveProperty('deltaText')
      expect(p).not.toHaveProperty('replace')
    }
    expect(got3.at(-1).message.content[0].text).toBe(reply)

    // an aborted run's event fits v4's aborted shape (no usage there)
    server.push({ text: 'x'.repeat(400), chunks: 40, delayMs: 50 })
    await v4.request('chat.send', { sessionKey: 'agent:main:wire', message: 'long one', idempotencyKey: 'wire-2' })
    await until(() => got4.some((p) => p.runId === 'wire-2' && p.state === 'delta'))
    await v4.request('chat.abort', { sessionKey: 'agent:main:wire', runId: 'wire-2' })
    await until(() => got4.some((p) => p.runId === 'wire-2' && p.state === 'aborted'))
    const aborted = got4.find((p) => p.runId === 'wire-2' && p.state === 'aborted')
    conforms('ChatEvent', aborted)
    expect(aborted).not.toHaveProperty('usage')
    await v4.close()
    await v3.close()
  })

  it("v4 chat and agent events name the session's agent (agentId); v3 events do not", async () => {
    // full assistant events here; compact ones (loopdesk.assistant-delta, which this client asks for by default
    // and expands again) and tool events (tool-events) below: each takes its own frame, all carry it
    const v4 = await connectGateway({ url: gw.url, token: TOKEN, identity, assistantDeltas: false })
    const v4c = await connectGateway({ url: gw.url, token: TOKEN, identity, caps: ['tool-events'] })
    const v3 = await connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol: 3, caps: ['tool-events'] })
    const key = 'agent:ops:named'
    const seen = new Map<GatewayConnectionClient, any[]>([[v4, []], [v4c, []], [v3, []]])
    for (const [c, got] of seen) c.onEvent((e) => (e.event === 'chat' || e.event === 'agent') && (e.payload as any).sessionKey === key && got.push(e))
    // v3 joins the session (as a UI does by opening it), so it gets the run's tool events too
    await v3.request('chat.history', { sessionKey: key })
    server.push({ toolCalls: [{ id: 'call-n', name: 'read', args: { path: 'nope.txt' } }] }, { text: 'A reply in several pieces, for the compact form.', chunks: 6, delayMs: 20 })
    await runTurn(v4c, key, 'who am I talking to', 'named-1')
    const done = (got: any[]) => got.some((e) => e.event === 'chat' && e.payload.state === 'final')
    await until(() => [...seen.values()].every(done))

    for (const c of [v4, v4c]) {
      const got = seen.get(c)!
      expect(got.filter((e) => e.event === 'chat').length).toBeGreaterThan(0)
      for (const e of got) expect(e.payload.agentId, `${e.event} ${e.payload.stream ?? e.payload.state}`).toBe('ops')
      for (const e of got.filter((x) => x.event === 'chat')) conforms('ChatEvent', e.payload)
    }
    expect(seen.get(v4c)!.filter((e) => e.event === 'agent' && e.payload.stream === 'assistant').length).toBeGreaterThan(1)
    expect(seen.get(v4c)!.some((e) => e.event === 'agent' && e.payload.stream === 'tool')).toBe(true)
    const got3 = seen.get(v3)!
    expect(got3.some((e) => e.event === 'agent' && e.payload.stream === 'tool')).toBe(true)
    expect(got3.some((e) => e.event === 'chat')).toBe(true)
    for (const e of got3) expect(e.payload).not.toHaveProperty('agentId')
    await Promise.all([v4.close(), v4c.close(), v3.close()])
  })
})

describe('sessions.create with OpenClaw params', () => {
  it('sets levels, displayName and parent; a first message runs under the given key; spawnedBy lists it', async () => {
    const c = await connect()
    await c.request('sessions.create', { key: 'agent:main:parent' })
    const params = {
      key: 'agent:main:child',
      displayName: 'Child chat',
      thinkingLevel: 'think harder',
      fastMode: 'auto',
      parentSessionKey: 'parent',
      message: 'first words',
      idempotencyKey: 'child-first',
      label: 'child-label',
    }
    conforms('SessionsCreateParams', params)
    server.push({ text: 'child reply' })
    const res = (await c.request('sessions.create', params)) as any
    conforms('SessionsCreateResult', res)
    expect(res).toMatchObject({ ok: true, key: 'agent:main:child', runStarted: true, runId: 'child-first' })
    expect(res.entry).toMatchObject({ displayName: 'Child chat', thinkingLevel: 'medium', fastMode: 'auto', spawnedBy: 'agent:main:parent' })
    await expect(c.request('agent.wait', { runId: 'child-first', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    const hist = (await c.request('chat.history', { sessionKey: 'agent:main:child', agentId: 'main' })) as any
    expect(hist.messages.map((m: any) => m.role)).toEqual(['user', 'assistant'])

    const children = (await c.request('sessions.list', { spawnedBy: 'parent' })) as any
    expect(children.sessions.map((r: any) => r.key)).toEqual(['agent:main:child'])
    for (const row of children.sessions) conforms('SessionRow', row)
    // a reset keeps what the session is (its title and parent), like its label
    const reset = (await c.request('sessions.reset', { key: 'agent:main:child', agentId: 'main' })) as any
    expect(reset.entry).toMatchObject({ displayName: 'Child chat', spawnedBy: 'agent:main:parent', label: 'child-label' })
    await c.close()
  })

  it("the Control UI's new-session call and a fork conform, both ways", async () => {
    const c = await connect()
    await c.request('sessions.create', { key: 'agent:main:ui-parent' })
    const ui = { agentId: 'main', label: 'From the Control UI', model: 'mock/m1', parentSessionKey: 'agent:main:ui-parent', emitCommandHooks: true }
    conforms('SessionsCreateParams', ui)
    const made = (await c.request('sessions.create', ui)) as any
    conforms('SessionsCreateResult', made)
    expect(made.entry).toMatchObject({ label: 'From the Control UI', spawnedBy: 'agent:main:ui-parent' })
    const fork = { parentSessionKey: 'agent:main:ui-parent', fork: true, forkFrom: 'last-completed', spawnDepth: 1 }
    conforms('SessionsCreateParams', fork)
    // the parent has no completed reply yet: nothing to fork from through one
    expect(await failure(c.request('sessions.create', fork))).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('no completed reply') })
    const whole = (await c.request('sessions.create', { ...fork, forkFrom: undefined })) as any
    conforms('SessionsCreateResult', whole)
    expect(whole.entry).toMatchObject({ spawnedBy: 'agent:main:ui-parent', spawnDepth: 1 })
    conforms('SessionRow', whole.entry)
    await c.close()
  })

  it('sessions.fork (the window\'s Regenerate and Edit) conforms, params and result', async () => {
    const c = await connect()
    await runTurn(c, 'agent:main:fork-src', 'Fork me here', 'fork-src-1')
    const hist = (await c.request('chat.history', { sessionKey: 'agent:main:fork-src' })) as any
    const params = { sessionKey: 'agent:main:fork-src', agentId: 'main', entryId: hist.messages[0].__openclaw.id }
    conforms('SessionsForkParams', params)
    const forked = (await c.request('sessions.fork', params)) as any
    conforms('SessionsForkResult', forked)
    expect(forked).toEqual({ sessionKey: expect.stringMatching(/^agent:main:/), editorText: 'Fork me here' })
    const row = ((await c.request('sessions.list', {})) as any).sessions.find((r: any) => r.key === forked.sessionKey)
    expect(row).toMatchObject({ forkedFromParent: true, forkSource: { sessionKey: 'agent:main:fork-src', entryId: params.entryId } })
    conforms('SessionRow', row)
    await c.close()
  })

  it('refuses a missing parent and a bad level; a first message that cannot be accepted is a runError, the session stays', async () => {
    const c = await connect()
    // OpenClaw's code on the wire; the runtime's finer one in details
    expect(await failure(c.request('sessions.create', { key: 'agent:main:orphan', parentSessionKey: 'agent:main:nobody' }))).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { code: 'NOT_FOUND' },
    })
    expect(await failure(c.request('sessions.create', { key: 'agent:main:orphan', thinkingLevel: 'sideways' }))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('invalid thinking level'),
    })
    const listed = (await c.request('sessions.list', { search: 'orphan' })) as any
    expect(listed.sessions).toEqual([]) // refused calls created nothing

    const res = (await c.request('sessions.create', { key: 'agent:main:ctrl', message: 'bad \u0000 nul' })) as any
    expect(res).toMatchObject({ ok: true, key: 'agent:main:ctrl', runStarted: false, runError: { code: 'INVALID_REQUEST' } })
    conforms('SessionsCreateResult', res)
    expect(((await c.request('sessions.list', { search: 'ctrl' })) as any).sessions).toHaveLength(1)
    await c.close()
  })
})

describe('agentId and expectedSessionId next to a session key', () => {
  it('a mismatching agentId is refused by every session method; a matching one works', async () => {
    const c = await connect()
    await c.request('sessions.create', { key: 'agent:main:owned' })
    const calls: Array<[string, Record<string, unknown>]> = [
      ['chat.history', { sessionKey: 'agent:main:owned' }],
      ['chat.abort', { sessionKey: 'agent:main:owned' }],
      ['sessions.patch', { key: 'agent:main:owned', label: 'x' }],
      ['sessions.reset', { key: 'agent:main:owned' }],
      ['sessions.delete', { key: 'agent:main:owned' }],
    ]
    for (const [method, params] of calls) {
      const err = await failure(c.request(method, { ...params, agentId: 'ops' }))
      expect(err, method).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('does not match the agent') })
    }
    for (const [method, params] of calls.slice(0, 4)) await expect(c.request(method, { ...params, agentId: 'main' }), method).resolves.toBeTruthy()
    await c.close()
  })

  it('sessions.patch and sessions.delete with a stale expectedSessionId change nothing', async () => {
    const c = await connect()
    const created = (await c.request('sessions.create', { key: 'agent:main:guarded' })) as any
    await c.request('sessions.reset', { key: 'agent:main:guarded' })
    const stale = { key: 'agent:main:guarded', expectedSessionId: created.sessionId }
    conforms('SessionsPatchParams', { ...stale, label: 'renamed' })
    conforms('SessionsDeleteParams', stale)
    expect(await failure(c.request('sessions.patch', { ...stale, label: 'renamed' }))).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await failure(c.request('sessions.delete', stale))).toMatchObject({ code: 'INVALID_REQUEST', details: { expectedSessionId: created.sessionId } })
    const row = ((await c.request('sessions.list', { search: 'guarded' })) as any).sessions[0]
    expect(row.label).toBeUndefined()
    const patched = (await c.request('sessions.patch', { key: row.key, expectedSessionId: row.sessionId, label: 'renamed', thinkingLevel: 'max' })) as any
    expect(patched.entry).toMatchObject({ label: 'renamed', thinkingLevel: 'xhigh' })
    const cleared = (await c.request('sessions.patch', { key: row.key, thinkingLevel: 'adaptive' })) as any
    expect(cleared.entry.thinkingLevel).toBeUndefined()
    await expect(c.request('sessions.delete', { key: row.key, expectedSessionId: row.sessionId })).resolves.toMatchObject({ deleted: true })
    await c.close()
  })

  it('models.list takes OpenClaw params; agentId picks that agent’s default model', async () => {
    const c = await connect()
    const params = { agentId: 'ops', view: 'configured' }
    conforms('ModelsListParams', params)
    expect(((await c.request('models.list', params)) as any).defaultModel).toBe('mockant/c1')
    expect(((await c.request('models.list', { agentId: 'main' })) as any).defaultModel).toBe('mock/m1')
    expect(await failure(c.request('models.list', { agentId: 'nobody' }))).toMatchObject({ code: 'INVALID_REQUEST' })
    await c.close()
  })
})

describe('frames and results fit the package schema', () => {
  it('hello-ok (v4 and v3), agent events of a tool run, models.list, tools.catalog, errors', async () => {
    const v4 = await connect()
    conforms('HelloOk', v4.hello)
    const v3 = await connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol: 3 })
    expect(v3.hello.protocol).toBe(3)
    await v3.close()

    const agentEvents: any[] = []
    v4.onEvent((e) => e.event === 'agent' && (e.payload as any).runId === 'fits-1' && agentEvents.push(e.payload))
    server.push({ text: 'Let me look.', toolCalls: [{ id: 'call-1', name: 'read', args: { path: 'nothing-here.txt' } }] }, { text: 'Done looking.' })
    await runTurn(v4, 'agent:main:fits', 'look around', 'fits-1')
    await until(() => agentEvents.some((p) => p.stream === 'lifecycle' && p.data?.phase === 'end'))
    expect(new Set(agentEvents.map((p) => p.stream))).toEqual(expect.objectContaining(new Set(['lifecycle', 'assistant'])))
    // the package's AgentEvent is closed without sessionKey and agentId, yet OpenClaw's gateway adds them to
    // every event (clients filter by them; agentId on v4), and so do we: checked without them
    for (const { sessionKey, agentId, ...p } of agentEvents) {
      expect(sessionKey).toBe('agent:main:fits')
      expect(agentId).toBe('main')
      conforms('AgentEvent', p)
    }

    // these two keep Loopdesk's own fields next to OpenClaw's: every OpenClaw field must be there and right
    const models = (await v4.request('models.list', {})) as any
    conformsKnown('ModelsListResult', models)
    expect(models.models.find((m: any) => m.id === 'm1')).toMatchObject({ available: true })
    const catalog = (await v4.request('tools.catalog', {})) as any
    conformsKnown('ToolsCatalogResult', catalog)
    expect(catalog.groups[0].tools.map((t: any) => t.id)).toEqual(catalog.tools.map((t: any) => t.name))
    expect(catalog).toMatchObject({ agentId: 'main', profiles: [{ id: 'full' }] })
    const err = await failure(v4.request('sessions.patch', { key: 'agent:main:nope', label: 'x' }))
    conforms('ErrorShape', { code: err.code, message: err.message })
    await v4.close()
  })
})

describe('health and status', () => {
  it("health is OpenClaw's HealthSummary, the same shape hello-ok's snapshot.health carries", async () => {
    const c = await connect()
    await runTurn(c, 'agent:ops:health', 'hello', 'health-1')
    const health = (await c.request('health', {})) as any
    // the package's snapshot.health is closed: no field it does not name
    const snapshotHealth = ajv.getSchema('openclaw#/definitions/Snapshot/properties/health')!
    expect(snapshotHealth(health) ? [] : snapshotHealth.errors).toEqual([])
    expect(health).toMatchObject({ ok: true, defaultAgentId: 'main', channels: {}, channelOrder: [], heartbeatSeconds: 0 })
    expect(typeof health.durationMs).toBe('number')
    // OpenClaw's required fields, which the schema leaves optional
    for (const k of ['channels', 'channelOrder', 'channelLabels', 'heartbeatSeconds', 'defaultAgentId', 'agents', 'sessions']) expect(health).toHaveProperty(k)
    expect(health.agents.map((a: any) => [a.agentId, a.isDefault])).toEqual([
      ['main', true],
      ['ops', false],
    ])
    const ops = health.agents.find((a: any) => a.agentId === 'ops')
    expect(ops.sessions.recent[0]).toMatchObject({ key: 'agent:ops:health' })
    expect(ops.sessions.path).toMatch(/sessions\.json$/)
    expect(health.sessions).toEqual(health.agents[0].sessions)

    // a new connection's hello carries the summary the last health call built
    const again = await connect()
    expect(snapshotHealth(again.hello.snapshot.health) ? [] : snapshotHealth.errors).toEqual([])
    expect(again.hello.snapshot.health).toEqual(health)
    await again.close()
    await c.close()
  })

  it("status carries OpenClaw's StatusSummary (sessions an object) next to Loopdesk's own fields", async () => {
    const c = await connect()
    await runTurn(c, 'agent:ops:status', 'hello', 'status-1')
    const s = (await c.request('status', {})) as any
    const stores = await Promise.all(['main', 'ops'].map((agentId) => c.request('sessions.list', { agentId, includeGlobal: true, includeUnknown: true, archived: 'all' }) as Promise<any>))
    expect(s.sessions.count).toBe(stores[0].total + stores[1].total)
    expect(s.sessions.paths).toEqual([stores[0].path, stores[1].path])
    expect(s.sessions.byAgent.map((a: any) => [a.agentId, a.path, a.count])).toEqual([
      ['main', stores[0].path, stores[0].total],
      ['ops', stores[1].path, stores[1].total],
    ])
    expect(s.sessions.defaults).toEqual({ model: 'm1', contextTokens: 32000 })
    const row = s.sessions.recent.find((r: any) => r.key === 'agent:ops:status')
    expect(row).toMatchObject({ agentId: 'ops', kind: 'direct', configuredModel: 'mockant/c1', totalTokensFresh: false, flags: [] })
    expect(row.totalTokens).toBeGreaterThan(0)
    for (const k of ['updatedAt', 'age', 'remainingTokens', 'percentUsed', 'model', 'selectedModel', 'modelSelectionReason', 'contextTokens']) expect(row).toHaveProperty(k)
    const times = s.sessions.recent.map((r: any) => r.updatedAt)
    expect(times).toEqual([...times].sort((a: number, b: number) => b - a))
    expect(s).toMatchObject({
      heartbeat: { defaultAgentId: 'main', agents: [{ agentId: 'main', enabled: false }, { agentId: 'ops', enabled: false }] },
      channelSummary: [],
      queuedSystemEvents: [],
      tasks: { total: 0, active: 0 },
      taskAudit: { total: 0, warnings: 0, errors: 0 },
      // Loopdesk's own
      ok: true,
      activeRuns: 0,
      configIssues: [],
    })
    expect(s.runtimeVersion).toBe(s.version)
    expect(typeof s.uptimeMs).toBe('number')
    await c.close()
  })
})

describe('chat.history sessionInfo', () => {
  it('lists the session’s started runs (not follow-ups still in its queue), and none once they ended', async () => {
    const c = await connect()
    const key = 'agent:main:info'
    server.push({ text: 'slow '.repeat(30), chunks: 30, delayMs: 30 }, { text: 'second' })
    await c.request('chat.send', { sessionKey: key, message: 'one', idempotencyKey: 'info-1' })
    await c.request('chat.send', { sessionKey: key, message: 'two', idempotencyKey: 'info-2', queueMode: 'followup' })
    const during = (await c.request('chat.history', { sessionKey: key })) as any
    expect(during.sessionInfo).toEqual({ hasActiveRun: true, activeRunIds: ['info-1'] })
    await expect(c.request('agent.wait', { runId: 'info-2', timeoutMs: 15_000 })).resolves.toMatchObject({ status: 'ok' })
    const after = (await c.request('chat.history', { sessionKey: key })) as any
    expect(after.sessionInfo).toEqual({ hasActiveRun: false, activeRunIds: [] })
    expect(((await c.request('chat.history', { sessionKey: 'agent:main:never' })) as any).sessionInfo).toEqual({ hasActiveRun: false, activeRunIds: [] })
    await c.close()
  })
})

describe('chat.history v4: cursor, anchors, inputs', () => {
  /** a property schema of the package's delta result (pendingInputs, inputReceipts, …: page replies carry them too) */
  function conformsPart(prop: string, value: unknown): void {
    const v = ajv.getSchema(`openclaw#/definitions/ChatHistoryDeltaResult/properties/${prop}`)!
    const ok = v(value)
    expect(ok ? [] : v.errors, `${prop}: ${JSON.stringify(value).slice(0, 400)}`).toEqual([])
  }

  it('over a real socket: a delta replays exactly the session.message events the socket got (without their row snapshot); every reply fits the package', async () => {
    const c = await connect()
    const key = 'agent:main:cursor-wire'
    await runTurn(c, key, 'first', 'cw-1')
    const tailParams = { sessionKey: key, limit: 5 }
    conforms('ChatHistoryParams', tailParams)
    const tail = (await c.request('chat.history', tailParams)) as any
    expect(tail.deltaCursor).toEqual(expect.any(String))
    conformsPart('pendingInputs', tail.pendingInputs)

    const got: any[] = []
    c.onEvent((e) => e.event === 'session.message' && (e.payload as any).sessionKey === key && got.push(e.payload))
    await c.request('sessions.messages.subscribe', { key })
    server.push({ text: 'second answer' })
    await runTurn(c, key, 'second', 'cw-2')
    await until(() => got.length >= 2)

    const params = { sessionKey: key, cursor: tail.deltaCursor, limit: 1 }
    conforms('ChatHistoryParams', params)
    const delta = (await c.request('chat.history', params)) as any
    conforms('ChatHistoryCursorResult', delta)
    expect(delta.kind).toBe('delta')
    // a live event also carries the session's row as it was then; the delta replays the messages themselves
    const ownFields = ({ sessionKey, message, messageId, messageSeq, runId, ts }: any) => ({ sessionKey, message, messageId, messageSeq, ...(runId ? { runId } : {}), ts })
    expect(got.every((p) => p.session?.key === key && p.sessionId === tail.sessionId)).toBe(true)
    expect(delta.messages).toEqual(got.map(ownFields))
    const again = (await c.request('chat.history', { sessionKey: key, cursor: delta.deltaCursor })) as any
    conforms('ChatHistoryCursorResult', again)
    expect(again.messages).toEqual([])

    const reset = await c.request('chat.history', { sessionKey: key, cursor: 'x'.repeat(5000) })
    conforms('ChatHistoryCursorResult', reset)
    expect(reset).toEqual({ kind: 'reset' })

    const anchorParams = { sessionKey: key, messageId: tail.messages[0].__openclaw.id, sessionId: tail.sessionId, limit: 2 }
    conforms('ChatHistoryParams', anchorParams)
    const window = (await c.request('chat.history', anchorParams)) as any
    expect(window.messages.map((m: any) => m.id)).toEqual(tail.messages.slice(0, 2).map((m: any) => m.id))
    expect(window).not.toHaveProperty('hasMore')

    for (const [p, message] of [
      [{ sessionKey: key, offset: 1, messageId: 'm' }, 'offset and messageId cannot be used together'],
      [{ sessionKey: key, cursor: delta.deltaCursor, offset: 0 }, 'cursor cannot be used with offset or messageId'],
      [{ sessionKey: key, sessionId: tail.sessionId }, 'sessionId requires messageId'],
      [{ sessionKey: key, messageId: 'm', sessionId: 'not-this-one' }, 'sessionId does not belong to sessionKey'],
    ] as const) {
      conforms('ChatHistoryParams', p)
      expect(await failure(c.request('chat.history', p))).toMatchObject({ code: 'INVALID_REQUEST', message })
    }
    await c.close()
  })

  it('a delta with a waiting follow-up: pendingInputs and receipts fit the package', async () => {
    const c = await connect()
    const key = 'agent:main:cursor-inputs'
    await runTurn(c, key, 'warm up', 'ci-0')
    const { deltaCursor } = (await c.request('chat.history', { sessionKey: key })) as any
    server.push({ hang: true })
    await c.request('chat.send', { sessionKey: key, message: 'long one', idempotencyKey: 'ci-1' })
    await until(() => rt.runtime.core.runner.activeRun('ci-1') !== undefined)
    await c.request('chat.send', { sessionKey: key, message: 'queued', idempotencyKey: 'ci-2', queueMode: 'followup' })
    const params = { sessionKey: key, cursor: deltaCursor, pendingBefore: 5, inputRunIds: ['ci-1', 'ci-2'] }
    conforms('ChatHistoryParams', params)
    const delta = await until(async () => {
      const d = (await c.request('chat.history', params)) as any
      return d.inputReceipts?.[0]?.state === 'consumed' ? d : undefined
    })
    conforms('ChatHistoryCursorResult', delta)
    expect(delta.messages.map((m: any) => m.message.role)).toEqual(['user'])
    expect(delta.inputReceipts).toEqual([
      { runId: 'ci-1', state: 'consumed', consumedByEventId: delta.messages[0].messageId },
      { runId: 'ci-2', state: 'pending' },
    ])
    expect(delta.pendingInputs).toMatchObject({ total: 1, items: [{ runId: 'ci-2', state: 'queued' }] })
    expect(delta.sessionInfo).toEqual({ hasActiveRun: true, activeRunIds: ['ci-1'] })
    expect(delta.inFlightRun).toMatchObject({ runId: 'ci-1' })
    // page replies carry the same parts
    const page = (await c.request('chat.history', { sessionKey: key, inputRunIds: ['ci-2'] })) as any
    conformsPart('pendingInputs', page.pendingInputs)
    conformsPart('inputReceipts', page.inputReceipts)
    conformsPart('inputConsumptions', page.inputConsumptions)
    await c.request('chat.abort', { sessionKey: key, runId: 'ci-1' })
    await c.request('agent.wait', { runId: 'ci-2', timeoutMs: 10_000 })
    await c.close()
  })

  it('v3 connections get the reply they always got unless they send v4 params', async () => {
    const v3 = await connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol: 3 })
    const key = 'agent:main:cursor-v3'
    await runTurn(v3, key, 'hello', 'cv3-1')
    const plain = (await v3.request('chat.history', { sessionKey: key })) as any
    expect(plain.messages).toHaveLength(2)
    for (const f of ['deltaCursor', 'pendingInputs', 'inputReceipts', 'inputConsumptions']) expect(plain).not.toHaveProperty(f)
    const asked = (await v3.request('chat.history', { sessionKey: key, pendingBefore: 1 })) as any
    expect(asked.pendingInputs).toEqual({ items: [], total: 0 })
    const v4 = await connect()
    const { deltaCursor } = (await v4.request('chat.history', { sessionKey: key })) as any
    expect(await v3.request('chat.history', { sessionKey: key, cursor: deltaCursor })).toMatchObject({ kind: 'delta', messages: [] })
    await v3.close()
    await v4.close()
  })
})

describe('session organisation (v4 sessions.patch fields, lifecycle preconditions)', () => {
  it('params, results, rows and sessions.changed fit the package schema; v3 connections get the same', async () => {
    const c = await connect()
    const v3 = await connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol: 3 })
    const changed: any[] = []
    await c.request('sessions.subscribe', {})
    c.onEvent((e) => e.event === 'sessions.changed' && (e.payload as any).sessionKey === 'agent:main:filed' && changed.push(e.payload))
    const created = (await c.request('sessions.create', { key: 'agent:main:filed' })) as any
    conforms('SessionsCreateResult', created)
    const patch = {
      key: 'agent:main:filed',
      expectedSessionId: created.sessionId,
      expectedLifecycleRevision: created.entry.lifecycleRevision,
      pinned: true,
      unread: true,
      icon: '📚',
      color: 'green',
      category: 'Reading',
      statusNote: 'Halfway through',
      attention: 'flag',
      ttlMinutes: 15,
    }
    conforms('SessionsPatchParams', patch)
    const res = (await c.request('sessions.patch', patch)) as any
    conforms('SessionRow', res.entry)
    expect(res.entry).toMatchObject({ pinned: true, unread: true, icon: '📚', color: 'green', category: 'Reading', agentStatus: { note: 'Halfway through', attention: 'flag' } })
    await until(() => changed.some((p) => p.reason === 'patch'))
    conforms('SessionRow', changed.find((p) => p.reason === 'patch').session)
    expect(changed.find((p) => p.reason === 'patch').session).toMatchObject({ pinned: true, category: 'Reading' })

    // a v3 client patches and lists the same way; its rows fit the same (open) row schema
    const v3res = (await v3.request('sessions.patch', { key: 'agent:main:filed', pinned: false, archived: true })) as any
    conforms('SessionRow', v3res.entry)
    expect(v3res.entry).toMatchObject({ archived: true, pinned: false })
    const listParams = { archived: true as const }
    conforms('SessionsListParams', listParams)
    const archived = (await v3.request('sessions.list', listParams)) as any
    expect(archived.sessions.map((r: any) => r.key)).toEqual(['agent:main:filed'])
    for (const r of archived.sessions) conforms('SessionRow', r)
    expect(((await c.request('sessions.list', {})) as any).sessions.map((r: any) => r.key)).not.toContain('agent:main:filed')

    // a stale lifecycle revision: OpenClaw's error, which fits ErrorShape
    const stale = await failure(c.request('sessions.patch', { key: 'agent:main:filed', archived: false, expectedLifecycleRevision: 'gone' }))
    expect(stale).toMatchObject({ code: 'INVALID_REQUEST', message: 'Session agent:main:filed changed before patch. Retry.' })
    conforms('ErrorShape', { code: stale.code, message: stale.message, details: (stale as any).details })

    const row = archived.sessions[0]
    const del = { key: 'agent:main:filed', archivedOnly: true, expectedLifecycleRevision: row.lifecycleRevision, expectedSessionUpdatedAt: row.updatedAt }
    conforms('SessionsDeleteParams', del)
    const deleted = (await c.request('sessions.delete', del)) as any
    conforms('SessionsDeleteResult', deleted)
    expect(deleted).toMatchObject({ deleted: true })
    await c.close()
    await v3.close()
  })

  it('fields that need subsystems Loopdesk lacks are still refused, not ignored', async () => {
    const c = await connect()
    await c.request('sessions.create', { key: 'agent:main:refuses' })
    // (of permissionMode, the modes Loopdesk does not run: permission-mode.test.ts)
    for (const extra of [{ execHost: 'gateway' }, { sendPolicy: 'deny' }, { permissionMode: 'full' }, { boardFace: 'chat' }, { contextWindow: '1m' }]) {
      conforms('SessionsPatchParams', { key: 'agent:main:refuses', ...extra })
      expect(await failure(c.request('sessions.patch', { key: 'agent:main:refuses', ...extra })), JSON.stringify(extra)).toMatchObject({ code: 'INVALID_REQUEST' })
    }
    // a permission mode it runs: the row conforms and carries it
    const ro = (await c.request('sessions.patch', { key: 'agent:main:refuses', permissionMode: 'read-only' })) as { entry: unknown }
    conforms('SessionRow', ro.entry)
    expect(ro.entry).toMatchObject({ permissionMode: 'read-only' })
    // emitLifecycleHooks is served (plugins' session_end: hooks/extensions.e2e.test.ts)
    conforms('SessionsDeleteParams', { key: 'agent:main:refuses', emitLifecycleHooks: false })
    expect(await c.request('sessions.delete', { key: 'agent:main:refuses', emitLifecycleHooks: false })).toMatchObject({ deleted: true })
    await c.close()
  })
})
