// OpenClaw v4 params our closed schemas used to refuse: chat.abort preserveSideRuns, tools.catalog
// includePlugins, sessions.messages.subscribe includeApprovals, exec.approval.resolve reviewer and
// grantExpiresInDays, chat.send's sessionId / intent / fastMode / fastAutoOnSeconds / toolBindings / system
// provenance / expected-state preconditions (their semantics: runtime/chat-send-fence.test.ts). Their schemas are checked against @openclaw/gateway-protocol's, their behaviour over a
// real gateway + runtime. Like every v4 param, they work on a v3 connection too (a client that sends one asked
// for it); only reply shapes differ by protocol (chat-wire, history-wire).
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { validateParams } from '../api/dispatch'
import type { MethodName } from '../../shared/methods'
import { startGateway, type GatewayHandle } from './server'

const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const protocol = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as { definitions: Record<string, unknown> }
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(protocol, 'openclaw')
const packageAccepts = (def: string, v: unknown) => ajv.getSchema(`openclaw#/definitions/${def}`)!(v) === true
function conforms(def: string, v: unknown): void {
  const check = ajv.getSchema(`openclaw#/definitions/${def}`)!
  expect(check(v) ? [] : check.errors, `${def}: ${JSON.stringify(v).slice(0, 300)}`).toEqual([])
}

const sendBase = { sessionKey: 'main', message: 'hi', idempotencyKey: 'k' }
const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`t${i}`, i]))
const chatSendCases: Array<Record<string, unknown>> = [
  { sessionId: 's1' },
  { sessionId: '' },
  { intent: { kind: 'session-goal-start', version: 1, issuedAtMs: 5 } },
  { intent: { kind: 'session-goal-start', version: 2, issuedAtMs: 5 } },
  { intent: { kind: 'session-goal', version: 1, issuedAtMs: 5 } },
  { intent: { kind: 'session-goal-start', version: 1 } },
  { intent: { kind: 'session-goal-start', version: 1, issuedAtMs: -1 } },
  { intent: { kind: 'session-goal-start', version: 1, issuedAtMs: 5, extra: true } },
  { fastMode: true },
  { fastMode: false },
  { fastMode: 'auto' },
  { fastMode: 'on' },
  { fastMode: null },
  { fastAutoOnSeconds: 30 },
  { fastAutoOnSeconds: 0 },
  { fastAutoOnSeconds: 1.5 },
  { toolBindings: {} },
  { toolBindings: { browser: { kind: 'tab', tabId: 1 } } },
  { toolBindings: sixteen },
  { toolBindings: { ...sixteen, t16: 16 } },
  { toolBindings: ['browser'] },
  { systemInputProvenance: { kind: 'external_user' } },
  { systemInputProvenance: { kind: 'inter_session', originSessionId: 'o', sourceSessionKey: 'agent:main:x', sourceChannel: 'c', sourceTool: 't' } },
  { systemInputProvenance: { kind: 'someone' } },
  { systemInputProvenance: { kind: 'internal_system', note: 'x' } },
  { systemProvenanceReceipt: '' },
  { systemProvenanceReceipt: '[Source Receipt]\nbridge=x\n[/Source Receipt]' },
  { systemProvenanceReceipt: 7 },
  { expectedLeafEntryId: null },
  { expectedLeafEntryId: 'entry-1' },
  { expectedLeafEntryId: '' },
  { expectedSessionRoutingContract: 'per-sender|main|main' },
  { expectedSessionRoutingContract: '' },
  { expectedPermissionMode: null },
  { expectedPermissionMode: 'read-only' },
  { expectedPermissionMode: 'full' },
  { expectedPermissionMode: 'root' },
  { expectedToolOverrides: null },
  { expectedToolOverrides: {} },
  { expectedToolOverrides: { mcpServers: { s: true }, mcpToolsDeny: { s: ['t'] }, skills: { k: false }, webSearch: false } },
  { expectedToolOverrides: { mcpToolsDeny: { s: [''] } } },
  { expectedToolOverrides: { skills: { k: 'yes' } } },
  { expectedToolOverrides: { plugins: {} } },
]

describe('the params fit the package schema exactly', () => {
  const reviewer = { channel: 'slack', accountId: 'acct-1', senderId: 'U123' }
  const cases: Array<[MethodName, string, unknown]> = [
    ['chat.abort', 'ChatAbortParams', { sessionKey: 'main', preserveSideRuns: true }],
    ['chat.abort', 'ChatAbortParams', { sessionKey: 'main', runId: 'r', agentId: 'main', preserveSideRuns: false }],
    ['chat.abort', 'ChatAbortParams', { sessionKey: 'main', preserveSideRuns: 'yes' }],
    ['tools.catalog', 'ToolsCatalogParams', { includePlugins: true }],
    ['tools.catalog', 'ToolsCatalogParams', { agentId: 'main', includePlugins: false }],
    ['tools.catalog', 'ToolsCatalogParams', { includePlugins: 1 }],
    ['sessions.messages.subscribe', 'SessionsMessagesSubscribeParams', { key: 'main', includeApprovals: true }],
    ['sessions.messages.subscribe', 'SessionsMessagesSubscribeParams', { key: 'main', includeApprovals: false }],
    ['sessions.messages.subscribe', 'SessionsMessagesSubscribeParams', { key: 'main', includeApprovals: 'true' }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'deny', reviewer }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'deny', reviewer: { channel: 'slack', accountId: 'acct-1' } }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'deny', reviewer: { ...reviewer, extra: 1 } }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'deny', reviewer: { ...reviewer, channel: '' } }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'allow-always', grantExpiresInDays: 1 }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'allow-always', grantExpiresInDays: 3650 }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'allow-always', grantExpiresInDays: 0 }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'allow-always', grantExpiresInDays: 3651 }],
    ['exec.approval.resolve', 'ExecApprovalResolveParams', { id: 'a', decision: 'allow-always', grantExpiresInDays: 1.5 }],
    ...chatSendCases.map((c): [MethodName, string, unknown] => ['chat.send', 'ChatSendParams', { ...sendBase, ...c }]),
  ]
  it.each(cases)('%s %s %j: accepted exactly when the package accepts it', (method, def, params) => {
    expect(validateParams(method, params) === undefined).toBe(packageAccepts(def, params))
  })
})

const TOKEN = 'v4-params-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
const identity = generateNodeDeviceIdentity()
const connect = (o: { maxProtocol?: number; scopes?: string[] } = {}) => connectGateway({ url: gw.url, token: TOKEN, identity, ...o })

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  rt = await startTestRuntime(server, { config: testConfig(server), runtime: { mediaGc: false } })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

async function failure(p: Promise<unknown>): Promise<{ code?: string; message: string; details?: any }> {
  try {
    await p
  } catch (err) {
    return err as { code?: string; message: string }
  }
  throw new Error('expected the request to fail')
}

describe('chat.send v4 fields over the gateway', () => {
  it('system provenance needs operator.admin (OpenClaw’s refusal); preconditions refuse with their details; nothing runs', async () => {
    const admin = await connect()
    const writer = await connect({ scopes: ['operator.read', 'operator.write'] })
    const v3 = await connect({ maxProtocol: 3, scopes: ['operator.read', 'operator.write'] })
    const key = 'agent:main:v4-send'
    const n = server.requests.length
    const receipt = { sessionKey: key, message: 'from a bridge', idempotencyKey: 'vs-1', systemProvenanceReceipt: '[Source Receipt]\nbridge=test\n[/Source Receipt]' }
    conforms('ChatSendParams', receipt)
    for (const [c, params] of [
      [writer, receipt],
      [v3, receipt],
      [writer, { sessionKey: key, message: 'x', idempotencyKey: 'vs-2', systemInputProvenance: { kind: 'external_user' } }],
    ] as const) {
      // INVALID_REQUEST with this message on both protocols: what OpenClaw's ACP bridge recognizes to retry without
      expect(await failure(c.request('chat.send', params))).toMatchObject({
        code: 'INVALID_REQUEST',
        message: 'system provenance fields require admin scope',
        details: { code: 'MISSING_SCOPE', missingScope: 'operator.admin' },
      })
    }
    expect(rt.runtime.core.store('main').get(key)).toBeUndefined()
    // an empty receipt vouches for nothing: a writer may send it
    const plain = { sessionKey: key, message: 'hello', idempotencyKey: 'vs-3', systemProvenanceReceipt: '', expectedLeafEntryId: null, fastMode: 'auto' as const }
    conforms('ChatSendParams', plain)
    await expect(writer.request('chat.send', plain)).resolves.toMatchObject({ runId: 'vs-3', status: 'started' })
    await writer.request('agent.wait', { runId: 'vs-3', timeoutMs: 10_000 })
    await expect(admin.request('chat.send', receipt)).resolves.toMatchObject({ runId: 'vs-1', status: 'started' })
    await admin.request('agent.wait', { runId: 'vs-1', timeoutMs: 10_000 })
    expect(server.requests.length).toBe(n + 2)
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('bridge=test')

    // the transcript CAS over the wire: the leaf from chat.history goes; the one before it is stale
    const history = (await writer.request('chat.history', { sessionKey: key })) as any
    const leaf = history.messages.at(-1).__openclaw.id
    const older = history.messages.at(-2).__openclaw.id
    const sessionId = history.sessionId
    const stale = { sessionKey: key, message: 'late', idempotencyKey: 'vs-4', sessionId, expectedLeafEntryId: older }
    conforms('ChatSendParams', stale)
    for (const c of [writer, v3]) {
      expect(await failure(c.request('chat.send', stale))).toMatchObject({
        code: 'INVALID_REQUEST',
        message: 'active branch changed; review and retry',
        details: { reason: 'active-leaf-changed', expectedLeafEntryId: older, activeLeafEntryId: leaf },
      })
    }
    expect(await failure(writer.request('chat.send', { ...stale, expectedLeafEntryId: leaf, sessionId: 'gone' }))).toMatchObject({
      details: { reason: 'active-leaf-changed' },
    })
    expect(await failure(writer.request('chat.send', { sessionKey: key, message: 'x', idempotencyKey: 'vs-5', expectedPermissionMode: 'guarded' }))).toMatchObject({
      details: { reason: 'session-settings-changed' },
    })
    expect(server.requests.length).toBe(n + 2)
    // the routing contract as an OpenClaw client computes it from hello-ok (the server advertises that it checks it)
    const d = v3.hello.snapshot.sessionDefaults
    // (advertised on v4: v3's HelloOk is closed and has no features.capabilities; a v3 client that sends it is checked all the same)
    expect(writer.hello.features.capabilities).toContain('chat-send-routing-contract')
    expect(v3.hello.features).not.toHaveProperty('capabilities')
    const contract = `${d.scope}|${d.mainKey}|${d.defaultAgentId}`
    const fresh = { ...stale, expectedLeafEntryId: leaf, expectedPermissionMode: null, expectedToolOverrides: {}, expectedSessionRoutingContract: contract }
    conforms('ChatSendParams', fresh)
    await expect(v3.request('chat.send', fresh)).resolves.toMatchObject({ runId: 'vs-4', status: 'started' })
    await expect(v3.request('agent.wait', { runId: 'vs-4', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    await Promise.all([admin.close(), writer.close(), v3.close()])
  })
})

describe('admin-only params inside agent and chat.send (OpenClaw §2.2, §5.3)', () => {
  it('a writer cannot pick the model or reset the session through agent, nor set a delivery route; admin can; nothing runs when refused', async () => {
    const admin = await connect()
    const writer = await connect({ scopes: ['operator.read', 'operator.write'] })
    const key = 'agent:main:gates'
    await admin.request('agent', { message: 'first', sessionKey: key, idempotencyKey: 'g-0' }, { expectFinal: true })
    const before = rt.runtime.core.store('main').get(key)!.sessionId
    const n = server.requests.length
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['agent', { message: 'x', sessionKey: key, idempotencyKey: 'g-1', model: 'm1' }, 'provider/model overrides are not authorized for this caller.'],
      ['agent', { message: 'x', sessionKey: key, idempotencyKey: 'g-2', provider: 'local' }, 'provider/model overrides are not authorized for this caller.'],
      ['agent', { message: '/reset', sessionKey: key, idempotencyKey: 'g-3' }, '/reset through agent requires admin scope (chat.send takes it from a writer)'],
      ['agent', { message: '  /NEW start over', sessionKey: key, idempotencyKey: 'g-4' }, '/new through agent requires admin scope (chat.send takes it from a writer)'],
      ['chat.send', { message: 'x', sessionKey: key, idempotencyKey: 'g-5', originatingChannel: 'telegram' }, 'originating route fields require admin scope'],
    ]
    for (const [method, params, message] of refusals) {
      expect(await failure(writer.request(method, params)), JSON.stringify(params)).toMatchObject({
        code: 'INVALID_REQUEST',
        message,
        details: { code: 'MISSING_SCOPE', missingScope: 'operator.admin' },
      })
    }
    expect(server.requests.length).toBe(n)
    expect(rt.runtime.core.store('main').get(key)!.sessionId).toBe(before)
    // what stays a writer's: /stop through agent, /new through chat.send, a plain message with null overrides
    await expect(writer.request('agent', { message: '/stop', sessionKey: key, idempotencyKey: 'g-6' }, { expectFinal: true })).resolves.toBeDefined()
    await expect(writer.request('agent', { message: 'plain', sessionKey: key, idempotencyKey: 'g-7' }, { expectFinal: true })).resolves.toMatchObject({ status: 'ok' })
    await expect(writer.request('chat.send', { message: '/new', sessionKey: key, idempotencyKey: 'g-8' })).resolves.toEqual({ runId: 'g-8', status: 'started' })
    const afterNew = rt.runtime.core.store('main').get(key)!.sessionId
    expect(afterNew).not.toBe(before)
    // admin may do all of it
    await expect(admin.request('agent', { message: '/reset hello', sessionKey: key, idempotencyKey: 'g-9', model: 'mock/m1' }, { expectFinal: true })).resolves.toMatchObject({
      status: 'ok',
    })
    expect(rt.runtime.core.store('main').get(key)!.sessionId).not.toBe(afterNew)
    await Promise.all([admin.close(), writer.close()])
  })
})

describe('chat.abort preserveSideRuns', () => {
  it('v4: aborts the session’s runs exactly as without it (there are no side runs to spare); v3 the same', async () => {
    const c = await connect()
    server.push({ hang: true })
    const n = server.requests.length
    await c.request('chat.send', { sessionKey: 'agent:main:side', message: '/btw what is 2+2', idempotencyKey: 'side-1' })
    // running: its model request is out (and hangs)
    await server.waitForRequests(n + 1)
    const params = { sessionKey: 'agent:main:side', preserveSideRuns: true }
    conforms('ChatAbortParams', params)
    // `/btw` is an ordinary message here: its run is the session's main run, so preserving side runs spares nothing
    await expect(c.request('chat.abort', params)).resolves.toEqual({ ok: true, aborted: true, runIds: ['side-1'] })
    await expect(c.request('agent.wait', { runId: 'side-1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'timeout' })
    // a v3 connection may send it too: nothing left to abort
    const v3 = await connect({ maxProtocol: 3 })
    await expect(v3.request('chat.abort', params)).resolves.toEqual({ ok: true, aborted: false, runIds: [] })
    await Promise.all([c.close(), v3.close()])
  })
})

describe('tools.catalog includePlugins', () => {
  it('the same schema-valid catalog with or without it (plugins add hooks, never tools); v3 has it too', async () => {
    const c = await connect()
    const v3 = await connect({ maxProtocol: 3 })
    conforms('ToolsCatalogParams', { includePlugins: true })
    const plain = (await c.request('tools.catalog', {})) as any
    const withPlugins = (await c.request('tools.catalog', { includePlugins: true })) as any
    expect(withPlugins).toEqual(plain)
    expect(withPlugins.groups.every((g: any) => g.source === 'core')).toBe(true)
    // Loopdesk's own `tools` list sits next to OpenClaw's fields: checked on OpenClaw's fields
    const { tools: _own, ...openclaw } = withPlugins
    conforms('ToolsCatalogResult', openclaw)
    await expect(v3.request('tools.catalog', { includePlugins: false })).resolves.toEqual(plain)
    await Promise.all([c.close(), v3.close()])
  })
})

describe('exec approvals: includeApprovals, reviewer, grantExpiresInDays', () => {
  it('session.approval pending/terminal events and approvalReplay fit the package; reviewer and grant term recorded', async () => {
    const key = 'agent:main:approve'
    const approver = await connect()
    const watcher = await connect() // subscribed without includeApprovals
    const reader = await connect({ scopes: ['operator.read'] })
    const v3 = await connect({ maxProtocol: 3 })
    const seen: EventFrameIn[] = []
    const watcherSeen: EventFrameIn[] = []
    approver.onEvent((e) => seen.push(e))
    watcher.onEvent((e) => watcherSeen.push(e))

    const sub = { key, includeApprovals: true as const }
    conforms('SessionsMessagesSubscribeParams', sub)
    const first = (await approver.request('sessions.messages.subscribe', sub)) as any
    expect(first).toMatchObject({ subscribed: true, key })
    conforms('SessionApprovalReplay', first.approvalReplay)
    expect(first.approvalReplay).toMatchObject({ sessionKey: key, approvals: [], truncated: false })
    await watcher.request('sessions.messages.subscribe', { key })
    // the feed carries commands: operator.approvals, as for exec.approval.* events
    expect(await failure(reader.request('sessions.messages.subscribe', sub))).toMatchObject({
      code: 'FORBIDDEN',
      details: { code: 'MISSING_SCOPE', missingScope: 'operator.approvals' },
    })
    // v4 params work on a v3 connection too
    expect(await v3.request('sessions.messages.subscribe', sub)).toMatchObject({ subscribed: true, approvalReplay: { approvals: [] } })
    await v3.request('sessions.messages.unsubscribe', { key })

    server.push({ toolCalls: [{ id: 'call-x', name: 'exec', args: { command: 'echo granted' } }] }, { text: 'ran it' })
    await approver.request('chat.send', { sessionKey: key, message: 'run it', idempotencyKey: 'ap-run' })
    const pending = (await until(() => seen.find((e) => e.event === 'session.approval'), 10_000)) as EventFrameIn
    expect(pending.seq).toBeUndefined() // targeted
    conforms('SessionApprovalEvent', pending.payload)
    const p = pending.payload as any
    expect(p).toMatchObject({ sessionKey: key, phase: 'pending', approval: { status: 'pending', presentation: { kind: 'exec', commandText: 'echo granted', agentId: 'main' } } })
    expect(JSON.stringify(p)).not.toContain(rt.workspace) // reviewer-safe: no cwd
    // a later subscriber learns of it from the replay
    const later = (await approver.request('sessions.messages.subscribe', sub)) as any
    conforms('SessionApprovalReplay', later.approvalReplay)
    expect(later.approvalReplay.approvals).toEqual([p.approval])

    const reviewer = { channel: 'slack', accountId: 'acct-1', senderId: 'U123' }
    const resolve = { id: p.approval.id, decision: 'allow-always', reviewer, grantExpiresInDays: 2 }
    conforms('ExecApprovalResolveParams', resolve)
    const before = Date.now()
    await expect(approver.request('exec.approval.resolve', resolve)).resolves.toEqual({ ok: true, id: p.approval.id, decision: 'allow-always' })
    const terminal = (await until(() => seen.find((e) => e.event === 'session.approval' && (e.payload as any).phase === 'terminal'), 10_000)) as EventFrameIn
    conforms('SessionApprovalEvent', terminal.payload)
    expect(terminal.payload).toMatchObject({
      phase: 'terminal',
      approval: { id: p.approval.id, status: 'allowed', decision: 'allow-always', reason: 'user', resolver: { kind: 'channel', id: 'slack:acct-1:U123' } },
    })
    // the resolved event records who resolved it and until when the command may run unasked
    const resolved = seen.find((e) => e.event === 'exec.approval.resolved')!.payload as any
    expect(resolved).toMatchObject({ id: p.approval.id, decision: 'allow-always', resolvedBy: 'user', reviewer })
    expect(resolved.grantExpiresAt).toBeGreaterThanOrEqual(before + 2 * 86_400_000)
    expect(resolved.grantExpiresAt).toBeLessThanOrEqual(Date.now() + 2 * 86_400_000)
    await expect(approver.request('agent.wait', { runId: 'ap-run', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    // in the run's own timeline too (loopdesk.events.recent keeps the approval stream)
    const recent = (await approver.request('loopdesk.events.recent', { sessionKey: key })) as any
    expect(recent.events.find((e: any) => e.stream === 'approval' && e.data.phase === 'resolved')?.data).toMatchObject({ reviewer })

    expect(watcherSeen.some((e) => e.event === 'session.approval')).toBe(false)
    expect(watcherSeen.some((e) => e.event === 'session.message')).toBe(true)
    // unsubscribing ends the approval feed with the message feed
    await approver.request('sessions.messages.unsubscribe', { key })
    const n = seen.length
    server.push({ toolCalls: [{ id: 'call-y', name: 'exec', args: { command: 'echo again' } }] }, { text: 'done' })
    await approver.request('chat.send', { sessionKey: key, message: 'again', idempotencyKey: 'ap-run-2' })
    const req2 = (await until(() => seen.slice(n).find((e) => e.event === 'exec.approval.requested'), 10_000)) as EventFrameIn
    await approver.request('exec.approval.resolve', { id: (req2.payload as any).id, decision: 'deny' })
    await approver.request('agent.wait', { runId: 'ap-run-2', timeoutMs: 10_000 })
    expect(seen.slice(n).some((e) => e.event === 'session.approval')).toBe(false)
    await Promise.all([approver.close(), watcher.close(), reader.close(), v3.close()])
  })
})
