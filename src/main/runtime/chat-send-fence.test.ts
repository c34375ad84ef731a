// chat.send's OpenClaw v4 fields on the real runtime (through dispatch, the real pi-ai client, the scripted model
// server): the preconditions refuse before anything is written, fastMode reaches the run's model requests,
// provenance / intent / receipt are recorded or told to the model.
import fs from 'node:fs'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'
import type { ParamsOf } from '../../shared/methods'
import { activeLeafEntryId, overridesNothing } from './chat-send-fence'
import { fastForCall, serviceTierFor } from './runner/fast-mode'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let t: TestRuntime
beforeEach(async () => {
  server.script([])
  const config = testConfig(server, {
    // "anthropic" overrides the built-in provider (its own API, here served by the scripted server): fast mode
    // has a knob there; "mockant" speaks the same API under another id: no knob
    agents: { list: [{ id: 'main', default: true }, { id: 'fast', model: 'anthropic/c1' }, { id: 'other', model: 'mockant/c1' }] },
    models: {
      providers: {
        anthropic: { baseUrl: server.anthropicBaseUrl, api: 'anthropic-messages', models: [{ id: 'c1', contextWindow: 32000, maxTokens: 1024 }] },
      },
    },
  })
  t = await startTestRuntime(server, { config })
})
afterEach(() => t.close())

type Send = ParamsOf<'chat.send'>
const send = (p: Partial<Send> & { idempotencyKey: string }) => t.call('chat.send', { sessionKey: 'agent:main:fence', message: 'hello', ...p } as Send)
const wait = (runId: string) => t.call('agent.wait', { runId, timeoutMs: 10_000 })

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; details?: any }> {
  try {
    await p
  } catch (err) {
    return (err as { shape: { code: string; message: string; details?: any } }).shape
  }
  throw new Error('expected the send to be refused')
}

const store = () => t.runtime.core.store('main')
const sessionIdOf = (key = 'agent:main:fence') => store().get(key)?.sessionId
function transcriptText(key = 'agent:main:fence'): string {
  const id = sessionIdOf(key)
  if (!id) return ''
  const file = store().transcriptPath(id)
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
}
/** the newest row's `__openclaw.id`, as a client reads it from chat.history */
async function historyLeaf(key = 'agent:main:fence'): Promise<string | null> {
  const h = await t.call('chat.history', { sessionKey: key })
  return h.messages.at(-1)?.__openclaw?.id ?? null
}

/**
 * The refused send wrote nothing and started nothing: same transcript bytes, no model request, no run, no
 * journal entry — and its idempotency key is still free.
 */
async function expectNothingWritten(before: { text: string; requests: number }, runId: string) {
  expect(transcriptText()).toBe(before.text)
  expect(t.runtime.core.tracked.has(runId)).toBe(false)
  expect(t.events.some((e) => e.event === 'agent' && e.payload.runId === runId)).toBe(false)
  expect(t.runtime.core.accepted('main').openCount()).toBe(0)
  await new Promise((r) => setTimeout(r, 50))
  expect(server.requests.length).toBe(before.requests)
}
const snapshot = () => ({ text: transcriptText(), requests: server.requests.length })

describe('sessionId', () => {
  it('applies to the current session only: a stale or unknown one is refused like sessions.patch/delete fences', async () => {
    await send({ idempotencyKey: 's1' })
    await wait('s1')
    const sid = sessionIdOf()!
    await send({ idempotencyKey: 's2', sessionId: sid })
    await wait('s2')
    expect(transcriptText()).toContain('s2')

    await t.call('sessions.reset', { key: 'agent:main:fence' })
    const before = snapshot()
    const err = await refusal(send({ idempotencyKey: 's3', sessionId: sid }))
    expect(err).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'Session agent:main:fence changed before send. Retry.',
      details: { reason: 'session-changed', expectedSessionId: sid, currentSessionId: sessionIdOf() },
    })
    await expectNothingWritten(before, 's3')
    // the refused key was never used: the same key with the current sessionId goes through
    await send({ idempotencyKey: 's3', sessionId: sessionIdOf()! })
    await wait('s3')

    // a session that does not exist has no sessionId to match; nothing is created
    expect(await refusal(send({ sessionKey: 'agent:main:nowhere', idempotencyKey: 's4', sessionId: sid }))).toMatchObject({
      details: { reason: 'session-changed', currentSessionId: null },
    })
    expect(store().get('agent:main:nowhere')).toBeUndefined()
  })
})

describe('expectedLeafEntryId', () => {
  it('null on a fresh session; the leaf after a completed run; refused when stale after another send', async () => {
    // no session yet: its transcript has no entries
    await send({ idempotencyKey: 'l1', expectedLeafEntryId: null })
    await wait('l1')
    const leaf = await historyLeaf()
    expect(leaf).toBeTruthy()
    expect(activeLeafEntryId(t.runtime.core, 'agent:main:fence', 'main')).toBe(leaf)

    // null no longer holds
    let before = snapshot()
    expect(await refusal(send({ idempotencyKey: 'l-null', expectedLeafEntryId: null }))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'active branch changed; review and retry',
      details: { reason: 'active-leaf-changed', expectedLeafEntryId: null, activeLeafEntryId: leaf },
    })
    await expectNothingWritten(before, 'l-null')

    // the leaf the client saw after the completed run
    await send({ idempotencyKey: 'l2', expectedLeafEntryId: leaf, sessionId: sessionIdOf()! })
    await wait('l2')
    const next = await historyLeaf()
    expect(next).not.toBe(leaf)

    // a client that did not see l2 sends against the old leaf
    before = snapshot()
    expect(await refusal(send({ idempotencyKey: 'l3', expectedLeafEntryId: leaf }))).toMatchObject({
      details: { reason: 'active-leaf-changed', expectedLeafEntryId: leaf, activeLeafEntryId: next },
    })
    await expectNothingWritten(before, 'l3')
    // an id that never was in this transcript
    expect(await refusal(send({ idempotencyKey: 'l4', expectedLeafEntryId: 'no-such-entry' }))).toMatchObject({ details: { reason: 'active-leaf-changed' } })
    // with the sessionId of another incarnation the leaf cannot hold either (OpenClaw's reason wins)
    expect(await refusal(send({ idempotencyKey: 'l5', expectedLeafEntryId: next, sessionId: 'not-this-one' }))).toMatchObject({
      details: { reason: 'active-leaf-changed', activeLeafEntryId: null },
    })
    // /stop (appends nothing) is fenced on the leaf too
    expect(await refusal(send({ idempotencyKey: 'l6', message: '/stop', expectedLeafEntryId: leaf }))).toMatchObject({ details: { reason: 'active-leaf-changed' } })
    await expect(send({ idempotencyKey: 'l7', message: '/stop', expectedLeafEntryId: next })).resolves.toMatchObject({ status: 'command' })
  })

  it('race-free: a message accepted but not yet written voids the leaf; of two concurrent sends against one leaf only one goes', async () => {
    await send({ idempotencyKey: 'r0' })
    await wait('r0')
    const leaf = await historyLeaf()
    // r1 is accepted (its run is queued behind nothing, its user message not yet in the transcript)
    server.push({ hang: true })
    const n = server.requests.length
    const [a, b] = await Promise.allSettled([
      send({ idempotencyKey: 'r1', expectedLeafEntryId: leaf }),
      send({ idempotencyKey: 'r2', expectedLeafEntryId: leaf }),
    ])
    expect(a).toMatchObject({ status: 'fulfilled', value: { status: 'started' } })
    expect(b.status).toBe('rejected')
    expect((b as PromiseRejectedResult).reason.shape).toMatchObject({
      details: { reason: 'active-leaf-changed', expectedLeafEntryId: leaf, activeLeafEntryId: leaf, pendingWork: true },
    })
    expect(t.runtime.core.tracked.has('r2')).toBe(false)
    // while r1 runs (its model call hangs), the leaf it will move is still refused...
    await server.waitForRequests(n + 1)
    expect(await refusal(send({ idempotencyKey: 'r3', expectedLeafEntryId: await historyLeaf() }))).toMatchObject({ details: { reason: 'active-leaf-changed' } })
    // ...an explicit steer ignores the leaf (it joins the running turn, as in OpenClaw)
    await expect(send({ idempotencyKey: 'r4', expectedLeafEntryId: 'anything', queueMode: 'steer' })).resolves.toMatchObject({ status: 'steered' })
    await t.call('chat.abort', { sessionKey: 'agent:main:fence' })
    await wait('r1')
  })
})

describe('expectedPermissionMode / expectedToolOverrides / expectedSessionRoutingContract', () => {
  it('only the "none" state matches (Loopdesk sessions have no permission mode or tool overlay)', async () => {
    await send({ idempotencyKey: 'p1', expectedPermissionMode: null, expectedToolOverrides: null })
    await wait('p1')
    await send({ idempotencyKey: 'p2', expectedToolOverrides: { mcpServers: {}, skills: {}, mcpToolsDeny: { srv: [] }, webSearch: true } })
    await wait('p2')
    const before = snapshot()
    expect(await refusal(send({ idempotencyKey: 'p3', expectedPermissionMode: 'workspace' }))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'Session settings changed before send. Retry.',
      details: { reason: 'session-settings-changed', expectedPermissionMode: 'workspace', permissionMode: null },
    })
    expect(await refusal(send({ idempotencyKey: 'p4', expectedToolOverrides: { webSearch: false } }))).toMatchObject({
      details: { reason: 'session-settings-changed', toolOverrides: null },
    })
    await expectNothingWritten(before, 'p3')
    expect(t.runtime.core.tracked.has('p4')).toBe(false)
    expect(overridesNothing({ skills: { x: false } })).toBe(false)
    expect(overridesNothing({ mcpToolsDeny: { srv: ['t'] } })).toBe(false)
    expect(overridesNothing({ mcpServers: { srv: true } })).toBe(false)
  })

  it('the routing contract is per-sender|main|<default agent>, compared case-insensitively', async () => {
    await send({ idempotencyKey: 'c1', expectedSessionRoutingContract: ' Per-Sender|main|MAIN ' })
    await wait('c1')
    const before = snapshot()
    expect(await refusal(send({ idempotencyKey: 'c2', expectedSessionRoutingContract: 'per-sender|main|ops' }))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'session routing changed; review and retry',
      details: { reason: 'session-routing-changed', sessionRoutingContract: 'per-sender|main|main' },
    })
    expect(await refusal(send({ idempotencyKey: 'c3', message: '/stop', expectedSessionRoutingContract: 'global|main|main' }))).toMatchObject({
      details: { reason: 'session-routing-changed' },
    })
    await expectNothingWritten(before, 'c2')
    // another default agent: a bare "main" now means agent:fast:main, the contract follows
    await t.call('config.patch', {
      patch: { agents: { list: [{ id: 'main', default: false }, { id: 'fast', model: 'anthropic/c1', default: true }, { id: 'other', model: 'mockant/c1' }] } },
    })
    expect(await refusal(send({ idempotencyKey: 'c4', sessionKey: 'main', expectedSessionRoutingContract: 'per-sender|main|main' }))).toMatchObject({
      details: { reason: 'session-routing-changed', sessionRoutingContract: 'per-sender|main|fast' },
    })
    expect(store().get('agent:main:main')).toBeUndefined()
    expect(t.runtime.core.store('fast').get('agent:fast:main')).toBeUndefined()
    await send({ idempotencyKey: 'c5', sessionKey: 'main', expectedSessionRoutingContract: 'per-sender|main|fast' })
    await wait('c5')
    expect(t.runtime.core.store('fast').get('agent:fast:main')).toBeDefined()
  })
})

describe('fastMode / fastAutoOnSeconds', () => {
  const tiers = (from: number) => server.requests.slice(from).map((r) => r.body.service_tier ?? null)

  it('the per-send mode reaches the run: over the session’s, mapped onto Anthropic’s service_tier', async () => {
    const key = 'agent:fast:speed'
    const n = server.requests.length
    await send({ sessionKey: key, idempotencyKey: 'f1' })
    await wait('f1')
    await send({ sessionKey: key, idempotencyKey: 'f2', fastMode: true })
    await wait('f2')
    await t.call('sessions.patch', { key, fastMode: true })
    await send({ sessionKey: key, idempotencyKey: 'f3' })
    await wait('f3')
    await send({ sessionKey: key, idempotencyKey: 'f4', fastMode: false })
    await wait('f4')
    await send({ sessionKey: key, idempotencyKey: 'f5', fastMode: 'auto' })
    await wait('f5')
    // none chosen: untouched; on: auto (priority capacity when available); off: standard_only
    expect(tiers(n)).toEqual([null, 'auto', 'auto', 'standard_only', 'auto'])
    expect(server.requests.slice(n).every((r) => r.api === 'anthropic')).toBe(true)

    // the same API under another provider id has no speed knob: the request is left alone
    const m = server.requests.length
    await send({ sessionKey: 'agent:other:speed', idempotencyKey: 'f6', fastMode: true })
    await wait('f6')
    expect(tiers(m)).toEqual([null])
  })

  it('"auto" is fast only for model calls that start within fastAutoOnSeconds', async () => {
    const key = 'agent:fast:auto'
    const n = server.requests.length
    // the first call answers with a tool call after 1.1 s, so the second call starts past a 1 s cutoff
    server.push({ toolCalls: [{ name: 'read', args: { path: 'missing.txt' } }], headerDelayMs: 1100 }, { text: 'done' })
    await send({ sessionKey: key, idempotencyKey: 'a1', fastMode: 'auto', fastAutoOnSeconds: 1 })
    await expect(wait('a1')).resolves.toMatchObject({ status: 'ok' })
    expect(tiers(n)).toEqual(['auto', 'standard_only'])
    // the session's "auto" with the per-send cutoff
    await t.call('sessions.patch', { key, fastMode: 'auto' })
    const m = server.requests.length
    await send({ sessionKey: key, idempotencyKey: 'a2', fastAutoOnSeconds: 3600 })
    await wait('a2')
    expect(tiers(m)).toEqual(['auto'])

    expect(fastForCall(undefined, 0)).toBeUndefined()
    expect(fastForCall('auto', 59_999)).toBe(true)
    expect(fastForCall('auto', 60_000)).toBe(false)
    expect(fastForCall('auto', 1_500, 1)).toBe(false)
    expect(fastForCall(false, 0)).toBe(false)
    expect(serviceTierFor({ provider: 'openai', api: 'openai-responses' }, true)).toBe('priority')
    expect(serviceTierFor({ provider: 'openai-codex', api: 'openai-codex-responses' }, true)).toBe('priority')
    expect(serviceTierFor({ provider: 'openai', api: 'openai-responses' }, false)).toBeUndefined()
    expect(serviceTierFor({ provider: 'mock', api: 'openai-completions' }, true)).toBeUndefined()
  })
})

describe('intent, systemInputProvenance, systemProvenanceReceipt, toolBindings', () => {
  it('provenance and intent are recorded on the user message; the receipt reaches the model, not the message text', async () => {
    const n = server.requests.length
    const provenance = { kind: 'inter_session' as const, sourceSessionKey: 'agent:main:elsewhere', sourceTool: 'sessions_send' }
    const intent = { kind: 'session-goal-start' as const, version: 1 as const, issuedAtMs: 1_700_000_000_000 }
    await send({
      idempotencyKey: 'i1',
      message: 'get CI green',
      intent,
      systemInputProvenance: provenance,
      systemProvenanceReceipt: '  [Source Receipt]\nbridge=test\u0007\n[/Source Receipt]  ',
      toolBindings: { browser: { kind: 'tab', tabId: 1 } },
    })
    await wait('i1')
    const lines = transcriptText()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const user = lines.find((l) => l.type === 'message' && l.message.role === 'user')
    expect(user.message).toMatchObject({ role: 'user', provenance, intent })
    expect(JSON.stringify(user.message.content)).not.toContain('Source Receipt')
    const body = JSON.stringify(server.requests[n].body)
    expect(body).toContain('[Source Receipt]\\nbridge=test\\n[/Source Receipt]')
    // the next run does not see it again, nor is the next message stamped
    await send({ idempotencyKey: 'i2', message: 'and then' })
    await wait('i2')
    const later = JSON.stringify(server.requests.at(-1)!.body)
    expect(later).not.toContain('Source Receipt')
    // the recorded facts stay in the transcript: the rebuilt conversation sent to the model does not carry them
    expect(later).toContain('get CI green')
    expect(later).not.toContain('sessions_send')
    expect(later).not.toContain('session-goal-start')
    const users = transcriptText()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'message' && l.message.role === 'user')
    expect(users[1].message.provenance).toBeUndefined()
    // a receipt with NUL is refused before anything is written
    expect(await refusal(send({ idempotencyKey: 'i3', systemProvenanceReceipt: 'a\u0000b' }))).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(t.runtime.core.tracked.has('i3')).toBe(false)
  })
})

describe('over a reset', () => {
  it('/new with the fences of the session it replaces', async () => {
    await send({ idempotencyKey: 'n1' })
    await wait('n1')
    const sid = sessionIdOf()!
    const leaf = await historyLeaf()
    await expect(send({ idempotencyKey: 'n2', message: '/new', sessionId: sid, expectedLeafEntryId: leaf })).resolves.toMatchObject({ status: 'command' })
    expect(sessionIdOf()).not.toBe(sid)
    await until(() => t.runtime.core.tracked.size === 0)
    // the new incarnation is empty: null holds there
    await send({ idempotencyKey: 'n3', expectedLeafEntryId: null, sessionId: sessionIdOf()! })
    await wait('n3')
  })
})
