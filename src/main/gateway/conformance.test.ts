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

const TOKEN = 'conformance-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
const identity = generateNodeDeviceIdentity()
const connect = () => connectGateway({ url: gw.url, token: TOKEN, identity })

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  const config = testConfig(server, { agents: { list: [{ id: 'main', default: true }, { id: 'ops', model: 'mockant/c1' }] } })
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
    expect(res.scope).toBe('global')
    expect(res.agents.find((a: any) => a.id === 'ops')).toMatchObject({ model: { primary: 'mockant/c1' } })
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
    await c.request('chat.send', { sessionKey: key, message: 'long one', idempotencyKey: 'hang-1' })
    const before = server.requests.length
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
    expect(await c.request('sessions.abort', { runId: 'no-such-run' })).toEqual({ ok: true, status: 'no-active-run' })
    expect(await failure(c.request('sessions.abort', {}))).toMatchObject({ code: 'INVALID_REQUEST' })
    await c.close()
  })

  it('sessions.abort refuses a runId of another session', async () => {
    const c = await connect()
    server.push({ hang: true })
    await c.request('chat.send', { sessionKey: 'agent:main:owner', message: 'x', idempotencyKey: 'hang-2' })
    const before = server.requests.length
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
