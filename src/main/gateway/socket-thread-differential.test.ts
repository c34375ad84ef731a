// The socket thread's promise (ARCHITECTURE.md, "The worker's accept"): the first `res` of any `agent` request is
// the same with the thread as without. Two real runtimes and gateways on one config and one scripted model server,
// one with the thread and one without, get the same few hundred `agent` requests (generated from a seeded PRNG
// over values that hit each check the runtime makes), on writer and admin connections, and must answer each alike:
// accepted, or the same error code, message and details.code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectGateway, GatewayClientError, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, startTestRuntimeGateway, testConfig, type TestRuntimeGateway } from '../../../test/fixtures/test-runtime'
import { startGateway } from './server'

const TOKEN = 'differential-token-0123456789'
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const WRITER = ['operator.write']
const ADMIN = ['operator.read', 'operator.write', 'operator.admin']

/** mulberry32: the same cases every run */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// each field's values: undefined leaves it out
const FIELDS: Record<string, unknown[]> = {
  message: ['hi', '', '   ', '\u200b', '\u200b\u202e ', 'a\u0000b', '/new', '/new fresh start', '/reset x', '/stop', '/model x', '/model', 'long '.repeat(4_000), 'x'.repeat(1_000_001)],
  sessionKey: [
    'main',
    'agent:main:x',
    'agent:MAIN:x',
    'agent:',
    'agent:nobody:x',
    'global',
    ' Agent:Main:Spaced ',
    'MAIN',
    'agent:helper:x',
    'agent:Helper:main',
    'agent:main:archived',
    'agent:helper:archived',
    ' Agent:Main:ARCHIVED ',
    'agent:main:',
    '',
    'weird key',
  ],
  agentId: ['main', 'MAIN ', 'nobody', 'helper', ' Helper', ''],
  sessionId: ['sid-1', '../x', 'SID-2'],
  expectedExistingSessionId: ['nope'],
  thinking: ['low', 'HIGH', 'enormous', 'adaptive', 'x_high', ''],
  channel: ['webchat', 'last', 'sms', ' WebChat ', ''],
  replyChannel: ['webchat', 'telegram'],
  deliver: [true, false],
  bestEffortDeliver: [true, false],
  cwd: ['/tmp'],
  promptMode: ['full', 'minimal', 'none', 'bogus'],
  modelRun: [true, false],
  internalEvents: [[], [{ kind: 'x' }]],
  disableMessageTool: [true, false],
  suppressPromptPersistence: [true, false],
  sessionEffects: ['internal', 'normal'],
  attachments: [[], [{ type: 'image', mimeType: 'image/png', content: PNG_1x1 }], [{ type: 'image', mimeType: 'image/png', content: 'not base64!!' }]],
  model: ['mock/m1', 'nope/x', 'm1'],
  provider: ['mock', 'nope'],
  label: ['L', '', 'l'.repeat(600)],
  timeout: [0, 5, -1, 1.5],
  lane: ['fast', ''],
  extraSystemPrompt: ['be brief'],
  bootstrapContextMode: ['lightweight', 'none'],
  inputProvenance: [{ kind: 'external_user' }, { kind: 'robot' }],
  to: ['someone'],
  bogusField: [1],
}
// how often a generated case sets each field (the message always)
const RATE: Record<string, number> = { message: 1, sessionKey: 0.5, agentId: 0.25 }

type Case = { scopes: string[]; params: Record<string, unknown> }

function cases(): Case[] {
  const out: Case[] = []
  const base = { message: 'hi', sessionKey: 'agent:main:sweep' }
  // every value of every field once, on both connections
  for (const [field, values] of Object.entries(FIELDS)) {
    for (const v of values) for (const scopes of [WRITER, ADMIN]) out.push({ scopes, params: { ...base, [field]: v } })
  }
  // and random combinations
  const rnd = prng(27)
  for (let i = 0; i < 260; i++) {
    const params: Record<string, unknown> = {}
    for (const [field, values] of Object.entries(FIELDS)) {
      if (rnd() < (RATE[field] ?? 0.06)) params[field] = values[Math.floor(rnd() * values.length)]
    }
    if (params.message === undefined) params.message = 'hi'
    out.push({ scopes: rnd() < 0.5 ? WRITER : ADMIN, params })
  }
  return out
}

/** a first `res` as compared: accepted, or the error's code, message and details.code */
type First = { ok: true; status: unknown; runId: unknown } | { ok: false; code?: string; message: string; detailCode?: string }

// a session's id is random per runtime: compared as a placeholder
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

async function firstRes(c: GatewayConnectionClient, params: Record<string, unknown>): Promise<First> {
  try {
    const p = (await c.request('agent', params, { timeoutMs: 20_000 })) as { status?: unknown; runId?: unknown }
    return { ok: true, status: p.status, runId: p.runId }
  } catch (err) {
    if (!(err instanceof GatewayClientError) || err.kind !== 'request') throw err
    return { ok: false, code: err.code, message: err.message.replace(UUID, '<uuid>'), detailCode: err.detailCode }
  }
}

interface Side {
  stack: TestRuntimeGateway
  writer: GatewayConnectionClient
  admin: GatewayConnectionClient
}

let server: ModelServer
const sides: Side[] = []

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  const config = testConfig(server, { agents: { list: [{ id: 'main', default: true }, { id: 'helper' }] } })
  for (const socketThread of [true, false]) {
    const stack = await startTestRuntimeGateway(server, TOKEN, { socketThread, config })
    const connect = (scopes: string[]) => connectGateway({ url: stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes })
    sides.push({ stack, writer: await connect(WRITER), admin: await connect(ADMIN) })
  }
})

afterAll(async () => {
  for (const s of sides) {
    await s.writer.close()
    await s.admin.close()
    await s.stack.close()
  }
  await server?.close()
})

describe('socket thread accept, differential against the main-thread accept', () => {
  it('the first res of each generated agent request is the same with the thread as without', async () => {
    // archived sessions of both agents, on both runtimes
    for (const s of sides) {
      for (const key of ['agent:main:archived', 'agent:helper:archived']) {
        await s.admin.request('agent', { message: 'first', sessionKey: key, idempotencyKey: `setup-${key}` }, { expectFinal: true })
        await s.admin.request('sessions.patch', { key, archived: true })
      }
    }
    const all = cases()
    const mismatches: string[] = []
    let accepted = 0
    const BATCH = 24
    for (let b = 0; b < all.length; b += BATCH) {
      const batch = all.slice(b, b + BATCH)
      const runs: Array<Promise<unknown>> = []
      // one request at a time per side (the order of a session's messages matters to what it holds), both sides at once
      for (const [i, { scopes, params }] of batch.entries()) {
        const idempotencyKey = `case-${b + i}`
        const [on, off] = await Promise.all(sides.map((s) => firstRes(scopes === ADMIN ? s.admin : s.writer, { ...params, idempotencyKey })))
        if (JSON.stringify(on) !== JSON.stringify(off)) {
          const shown = JSON.stringify({ ...params, idempotencyKey }, (_k, v) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 20)}…(${v.length})` : v))
          mismatches.push(`${scopes === ADMIN ? 'admin' : 'writer'} ${shown}\n  thread: ${JSON.stringify(on)}\n  main:   ${JSON.stringify(off)}`)
        }
        for (const [j, r] of [on, off].entries()) {
          if (!r.ok) continue
          accepted++
          // runs end before the next batch (the model server's fallback reply), so none pile up
          runs.push(sides[j].admin.request('agent.wait', { runId: idempotencyKey, timeoutMs: 20_000 }))
        }
      }
      await Promise.all(runs)
    }
    expect(mismatches, mismatches.join('\n')).toEqual([])
    // the generator reaches both answers often
    expect(accepted).toBeGreaterThan(100)
    expect(all.length * 2 - accepted).toBeGreaterThan(100)
  }, 60_000)

  it("an agent request reusing another method's key (over the gateway, or the window's) is answered alike", async () => {
    // what else takes an idempotencyKey: chat.send (a message, or a command that starts no run), sessions.send/steer,
    // sessions.create's first message
    const others: Array<[method: string, params: Record<string, unknown>]> = [
      ['chat.send', { sessionKey: 'agent:main:reuse', message: 'hello' }],
      ['chat.send', { sessionKey: 'agent:main:reuse', message: '/stop' }],
      ['chat.send', { sessionKey: 'agent:main:reuse', message: '/model' }],
      ['chat.send', { sessionKey: 'agent:main:reuse', message: '/new' }],
      ['chat.send', { sessionKey: 'agent:main:reuse', message: '/status' }],
      ['chat.send', { sessionKey: 'agent:main:reuse', message: '   ' }],
      ['sessions.send', { key: 'agent:main:reuse', message: 'via send' }],
      ['sessions.steer', { key: 'agent:main:reuse', message: 'via steer' }],
      ['sessions.create', { key: 'agent:main:reuse-created', message: 'first' }],
      ['sessions.create', { key: 'agent:main:reuse-created-2' }],
    ]
    const mismatches: string[] = []
    for (const [i, [method, params]] of others.entries()) {
      for (const via of ['gateway', 'window'] as const) {
        const key = `reuse-${via}-${i}`
        const firsts: First[] = []
        for (const s of sides) {
          if (via === 'gateway') await s.admin.request(method, { ...params, idempotencyKey: key }).catch(() => undefined)
          else await s.stack.rt.raw(method as never, { ...params, idempotencyKey: key })
          // a round trip after it: the run ids its events told the worker are ahead of this answer
          await s.admin.request('health', {})
          const first = await firstRes(s.writer, { message: 'mine now', sessionKey: 'agent:main:reuse-agent', idempotencyKey: key })
          firsts.push(first)
          // the other method's run (if it started one) ends before the next case
          await s.admin.request('agent.wait', { runId: key, timeoutMs: 0 })
        }
        if (JSON.stringify(firsts[0]) !== JSON.stringify(firsts[1])) {
          mismatches.push(`${via} ${method} ${JSON.stringify(params)}\n  thread: ${JSON.stringify(firsts[0])}\n  main:   ${JSON.stringify(firsts[1])}`)
          continue
        }
        // an accepted reuse (a key no call took: the blank chat.send was refused) runs to its end before the next case
        if (firsts[0].ok) for (const s of sides) await s.admin.request('agent.wait', { runId: key, timeoutMs: 10_000 })
      }
    }
    expect(mismatches, mismatches.join('\n')).toEqual([])
  }, 30_000)

  it("the runtime's state changed (agents added, removed, made default; sessions archived, restored, deleted): answered alike", async () => {
    const probes: Array<Record<string, unknown>> = [
      {},
      { sessionKey: 'main' },
      { agentId: 'MAIN ' },
      { agentId: 'helper' },
      { sessionKey: 'agent:helper:main' },
      { sessionKey: 'agent:helper:y' },
      { sessionKey: 'Y' },
      { agentId: 'third' },
      { sessionKey: 'agent:third:y' },
      { sessionKey: 'agent:main:gone' },
      { sessionKey: ' Agent:Main:Gone ', agentId: 'main' },
    ]
    const agents = (list: Array<Record<string, unknown>>) => ({ patch: { agents: { list } }, replacePaths: ['agents.list'] })
    type Step = [label: string, act: (s: Side) => Promise<unknown>]
    const gw = (method: string, params: Record<string, unknown>) => (s: Side) => s.admin.request(method, params)
    const window = (method: string, params: Record<string, unknown>) => async (s: Side) => {
      const r = await s.stack.rt.raw(method as never, params)
      if (!r.ok) throw new Error(`${method}: ${r.error.message}`)
    }
    const steps: Step[] = [
      ['sessions to change', async (s) => {
        for (const key of ['agent:helper:y', 'agent:main:gone']) await s.admin.request('agent', { message: 'first', sessionKey: key, idempotencyKey: `state-${key}` }, { expectFinal: true })
      }],
      ['agent:helper:y archived (gateway)', gw('sessions.patch', { key: 'agent:helper:y', archived: true })],
      ['agent:main:gone archived (window)', window('sessions.patch', { key: 'agent:main:gone', archived: true })],
      ['a third agent', gw('config.patch', agents([{ id: 'main', default: true }, { id: 'helper' }, { id: 'third' }]))],
      ['helper the default', gw('config.patch', agents([{ id: 'main' }, { id: 'helper', default: true }, { id: 'third' }]))],
      ['agent:main:gone deleted (window)', window('sessions.delete', { key: 'agent:main:gone' })],
      ['agent:helper:y restored (window)', window('sessions.patch', { key: 'agent:helper:y', archived: false })],
      ['third removed, main the default again', gw('config.patch', agents([{ id: 'main', default: true }, { id: 'helper' }]))],
    ]
    const mismatches: string[] = []
    const refusals = new Set<string>()
    for (const [n, [label, act]] of steps.entries()) {
      for (const s of sides) {
        await act(s)
        // a round trip after it: what it changed reached the worker ahead of this answer
        await s.admin.request('health', {})
      }
      for (const [i, probe] of probes.entries()) {
        const idempotencyKey = `state-${n}-${i}`
        const firsts = await Promise.all(sides.map((s) => firstRes(s.writer, { message: 'hi', ...probe, idempotencyKey })))
        if (JSON.stringify(firsts[0]) !== JSON.stringify(firsts[1])) {
          mismatches.push(`after ${label}: ${JSON.stringify(probe)}\n  thread: ${JSON.stringify(firsts[0])}\n  main:   ${JSON.stringify(firsts[1])}`)
        } else if (firsts[0].ok) {
          for (const s of sides) await s.admin.request('agent.wait', { runId: idempotencyKey, timeoutMs: 10_000 })
        } else refusals.add(firsts[0].message.replace(/session key "[^"]*"|"[^"]*"/g, '…'))
      }
    }
    expect(mismatches, mismatches.join('\n')).toEqual([])
    // the changes were seen: archived targets and unknown agents were refused
    expect([...refusals].sort()).toEqual(expect.arrayContaining([expect.stringMatching(/is archived/), 'unknown agent id …']))
  }, 30_000)

  it("a key of a run still under way is refused alike however many keys came after it (the worker's cap, its TTL)", async () => {
    // gateways that keep few keys, so a run outlasts them; the chat.send run hangs until aborted
    const small: Side[] = []
    for (const socketThread of [true, false]) {
      const stack = await startTestRuntimeGateway(server, TOKEN, { socketThread, limits: { dedupeMax: 2 } })
      const connect = (scopes: string[]) => connectGateway({ url: stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes })
      small.push({ stack, writer: await connect(WRITER), admin: await connect(ADMIN) })
    }
    try {
      const firsts: First[] = []
      for (const s of small) {
        server.push({ hang: true })
        const started = new Promise<void>((resolve) => {
          const off = s.admin.onEvent((f) => {
            const p = f.payload as { runId?: string; stream?: string; data?: { phase?: string } } | undefined
            if (f.event === 'agent' && p?.runId === 'long-1' && p.stream === 'lifecycle' && p.data?.phase === 'start') {
              off()
              resolve()
            }
          })
        })
        await s.admin.request('chat.send', { sessionKey: 'agent:main:long', message: 'long', idempotencyKey: 'long-1' })
        await started
        // and one waiting behind it
        await s.admin.request('chat.send', { sessionKey: 'agent:main:long', message: 'queued', idempotencyKey: 'long-2' })
        await s.admin.request('health', {})
        for (let i = 0; i < 6; i++) await s.admin.request('agent', { message: 'hi', sessionKey: `agent:main:s${i}`, idempotencyKey: `after-${i}` }, { expectFinal: true })
        for (const key of ['long-1', 'long-2']) firsts.push(await firstRes(s.writer, { message: 'mine now', sessionKey: 'agent:main:other', idempotencyKey: key }))
        await s.admin.request('chat.abort', { sessionKey: 'agent:main:long' })
      }
      // thread [long-1, long-2], then without it
      expect(firsts.slice(0, 2)).toEqual(firsts.slice(2))
      for (const f of firsts.slice(2)) expect(f).toMatchObject({ ok: false, detailCode: 'IDEMPOTENCY_KEY_IN_USE' })
    } finally {
      for (const s of small) {
        await s.writer.close()
        await s.admin.close()
        await s.stack.close()
      }
    }
  }, 30_000)

  it('keys the window took before the gateway started (a command, a run under way) are refused alike', async () => {
    const firsts: First[] = []
    for (const socketThread of [true, false]) {
      const rt = await startTestRuntime(server)
      try {
        const direct = async (params: Record<string, unknown>) => {
          const r = await rt.raw('chat.send', { sessionKey: 'agent:main:before', ...params })
          if (!r.ok) throw new Error(r.error.message)
        }
        await direct({ message: '/stop', idempotencyKey: 'before-1' })
        server.push({ hang: true })
        await direct({ message: 'long', idempotencyKey: 'before-2' })
        await direct({ message: 'queued', idempotencyKey: 'before-3' })
        const gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null, socketThread })
        const c = await connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes: ADMIN })
        for (const key of ['before-1', 'before-2', 'before-3']) firsts.push(await firstRes(c, { message: 'mine now', sessionKey: 'agent:main:other', idempotencyKey: key }))
        await c.request('chat.abort', { sessionKey: 'agent:main:before' })
        await c.close()
        await gw.close()
      } finally {
        await rt.close()
      }
    }
    // with the thread [1, 2, 3], then without it
    expect(firsts.slice(0, 3)).toEqual(firsts.slice(3))
    for (const f of firsts.slice(3)) expect(f).toMatchObject({ ok: false, detailCode: 'IDEMPOTENCY_KEY_IN_USE' })
  }, 30_000)
})
