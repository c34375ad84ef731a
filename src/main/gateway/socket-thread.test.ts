// The socket thread (LOOPDESK_SOCKET_THREAD=1): the `agent` ack leaves while the main thread is blocked, a
// retried key is the main thread's to answer, and a run the main thread refuses ends with an error final.
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeDeviceProof } from '../../cli/identity'
import { acceptableHere, acceptState, fastAckable, SeenKeys } from './socket-thread-protocol'
import { RawClient, startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'

let t: TestGateway
beforeAll(async () => {
  t = await startTestGateway({}, { socketThread: true })
})
afterAll(async () => {
  await t.stop()
})

const client = { id: 'cli', version: '1.0.0', platform: 'Linux', mode: 'cli' }
const scopes = ['operator.read', 'operator.write']
const connectParams = (nonce: string, ts: number) => ({
  minProtocol: 3,
  maxProtocol: 4,
  client,
  role: 'operator',
  scopes,
  auth: { token: TEST_TOKEN },
  device: createNodeDeviceProof(t.identity, { clientId: client.id, clientMode: client.mode, role: 'operator', scopes, signedAtMs: ts, token: TEST_TOKEN, nonce, platform: client.platform }),
})

async function hello(): Promise<RawClient> {
  const c = RawClient.open(t.gw.url)
  const ch = await c.challenge()
  c.send({ type: 'req', id: 'c1', method: 'connect', params: connectParams(ch.payload.nonce, ch.payload.ts) })
  expect((await c.res('c1')).ok).toBe(true)
  return c
}

// A client on a thread of its own (this thread is the gateway's main thread, and is about to be blocked):
// it signs nothing itself — this thread answers its challenge — then, on `go`, sends an `agent` request and
// flags the ack's arrival in shared memory.
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads')
const WebSocket = require(workerData.ws)
const flag = new Int32Array(workerData.flag)
const ws = new WebSocket(workerData.url, { perMessageDeflate: false })
ws.on('message', (data) => {
  const f = JSON.parse(String(data))
  if (f.type === 'event' && f.event === 'connect.challenge') parentPort.postMessage({ challenge: f.payload })
  else if (f.type === 'res' && f.id === 'c1') parentPort.postMessage({ hello: f.ok })
  else if (f.type === 'res' && f.id === 'a1') {
    if (Atomics.load(flag, 0) === 0) Atomics.store(flag, 0, f.ok && f.payload.status === 'accepted' ? 1 : 2)
    else parentPort.postMessage({ final: f })
  }
})
parentPort.on('message', (m) => {
  if (m.connect) ws.send(JSON.stringify({ type: 'req', id: 'c1', method: 'connect', params: m.connect }))
  if (m.go) ws.send(JSON.stringify({ type: 'req', id: 'a1', method: 'agent', params: { message: 'hi', sessionKey: 'main', idempotencyKey: m.key ?? 'blocked-main' } }))
})
`

/** The client thread, connected past hello; `seen` flags its ack's arrival. */
async function clientPastHello(): Promise<{ w: Worker; seen: Int32Array }> {
  const flag = new SharedArrayBuffer(4)
  const ws = createRequire(import.meta.url).resolve('ws')
  const w = new Worker(CLIENT, { eval: true, workerData: { url: t.gw.url, ws, flag } })
  try {
    await new Promise<void>((resolve, reject) => {
      w.on('error', reject)
      w.on('message', (m: { challenge?: { nonce: string; ts: number }; hello?: boolean }) => {
        if (m.challenge) w.postMessage({ connect: connectParams(m.challenge.nonce, m.challenge.ts) })
        if (m.hello === true) resolve()
        if (m.hello === false) reject(new Error('connect refused'))
      })
    })
  } catch (err) {
    await w.terminate()
    throw err
  }
  return { w, seen: new Int32Array(flag) }
}

/** This (the gateway's main) thread does nothing else until the client has its ack, or a generous bound passed: then it failed. */
function blockUntilAcked(seen: Int32Array): void {
  const bound = Date.now() + 20_000
  while (Atomics.load(seen, 0) === 0 && Date.now() < bound) Atomics.wait(seen, 0, 0, 10)
  expect(Atomics.load(seen, 0)).toBe(1)
}

describe('gateway socket thread', () => {
  it('acks an agent request while the main thread is blocked; the final follows once it runs', async () => {
    const { w, seen } = await clientPastHello()
    try {
      const final = new Promise<{ ok: boolean; payload: { status: string } }>((resolve) => w.on('message', (m: { final?: { ok: boolean; payload: { status: string } } }) => m.final && resolve(m.final)))
      const accepts = t.host.callCount('agent')
      w.postMessage({ go: true })
      blockUntilAcked(seen)
      // the runtime had not been asked yet: the ack was not the main thread's
      expect(t.host.callCount('agent')).toBe(accepts)
      expect(await final).toMatchObject({ ok: true, payload: { status: 'ok' } })
    } finally {
      await w.terminate()
    }
  })

  it('a request the worker acked just before the main thread closed its connection still runs', async () => {
    const { w, seen } = await clientPastHello()
    try {
      const accepts = t.host.callCount('agent')
      w.postMessage({ go: true, key: 'acked-then-closed' })
      // blocked until the client has its ack: the acked frame waits for this thread, which closes the connection
      // first (a token rotation; a slow reader's cut-off, a revoked device alike)
      blockUntilAcked(seen)
      t.gw.setToken('rotated-token-0123456789abcdef')
      // the client was told its message was accepted: the runtime gets it
      while (t.host.callCount('agent') === accepts) await new Promise((r) => setTimeout(r, 10))
      expect(await t.host.agentFinal('acked-then-closed')).toMatchObject({ status: 'ok' })
    } finally {
      t.gw.setToken(TEST_TOKEN)
      await w.terminate()
    }
  })

  it('a retried key is answered by the main thread: one ack, then the final, as without the thread', async () => {
    const c = await hello()
    const params = { message: 'once', sessionKey: 'main', idempotencyKey: 'retried' }
    c.send({ type: 'req', id: 'r1', method: 'agent', params })
    await c.next((f) => f.type === 'res' && f.id === 'r1' && f.payload?.status === 'ok')
    c.send({ type: 'req', id: 'r2', method: 'agent', params })
    const again = await c.res('r2')
    expect(again).toMatchObject({ ok: true, payload: { status: 'ok', runId: 'retried' } })
    expect(c.frames.filter((f) => f.id === 'r2')).toHaveLength(1)
    c.ws.close()
  })

  it('a run the main thread refuses after the worker acked it ends with an error final', async () => {
    const c = await hello()
    // the fake runtime refuses this message at its accept (fake-host.ts): what the worker cannot foresee (a disk
    // that fails the session write, a session archived in the instant between) ends the acked run this way
    c.send({ type: 'req', id: 'x1', method: 'agent', params: { message: 'fail-accept', sessionKey: 'main', idempotencyKey: 'refused' } })
    const ack = await c.res('x1')
    expect(ack).toMatchObject({ ok: true, payload: { status: 'accepted', runId: 'refused' } })
    const fin = await c.next((f) => f.type === 'res' && f.id === 'x1' && f !== ack)
    expect(fin).toMatchObject({ ok: false, payload: { runId: 'refused', status: 'error', summary: 'malformed session key' }, error: { code: 'INVALID_REQUEST' } })
    c.ws.close()
  })
})

describe('socket thread accept checks', () => {
  const frame = (params: unknown, method = 'agent') => JSON.stringify({ type: 'req', id: '1', method, params })
  const write = new Set(['operator.write'])
  const state = acceptState({ agentIds: ['main', 'ops'], defaultAgentId: 'main', archived: ['agent:main:old'] })
  it('acks only a well-formed agent request with valid params and the scopes it needs', () => {
    expect(fastAckable(frame({ message: 'hi', idempotencyKey: 'k' }), write, state)?.params.idempotencyKey).toBe('k')
    expect(fastAckable(frame({ message: 'hi' }), write, state)).toBeUndefined()
    expect(fastAckable(frame({ message: 'hi', idempotencyKey: 'k' }), new Set(['operator.read']), state)).toBeUndefined()
    // a /new through agent needs admin (scopes.ts): the main thread refuses it as without the thread
    expect(fastAckable(frame({ message: '/new', idempotencyKey: 'k' }), write, state)).toBeUndefined()
    expect(fastAckable(frame({ message: 'hi', idempotencyKey: 'k' }, 'agent.wait'), write, state)).toBeUndefined()
    expect(fastAckable('{"type":"req","method":"agent"', write, state)).toBeUndefined()
  })
  it('hands over what the runtime refuses, and what needs its state or work', () => {
    const ok = (p: Record<string, unknown>) => acceptableHere({ message: 'hi', idempotencyKey: 'k', ...p } as never, state)
    expect(ok({})).toBe(true)
    expect(ok({ sessionKey: 'agent:ops:x', agentId: 'OPS', thinking: 'high', channel: 'webchat', deliver: true, bestEffortDeliver: true, timeout: 5, label: 'x' })).toBe(true)
    expect(ok({ attachments: [] })).toBe(true)
    // the runtime's refusals
    for (const p of [{ message: ' ' }, { message: 'a\u0000' }, { agentId: 'x' }, { sessionKey: 'agent:' }, { sessionKey: 'agent:ops:x', agentId: 'main' }, { thinking: 'lots' }, { cwd: '/' }, { channel: 'sms' }, { deliver: true }, { sessionKey: 'agent:main:old' }]) {
      expect(ok(p), JSON.stringify(p)).toBe(false)
    }
    // what needs the main thread: attachments, the stores (sessionId, expected session), the models, a reset
    for (const p of [{ attachments: [{ content: 'aGk=' }] }, { sessionId: 's1' }, { sessionKey: 'agent:main:a', expectedExistingSessionId: 's' }, { model: 'm' }, { provider: 'p' }, { message: '/reset now' }, { message: '/new' }]) {
      expect(ok(p), JSON.stringify(p)).toBe(false)
    }
    // the default agent's main session when no key is given
    expect(acceptableHere({ message: 'hi', idempotencyKey: 'k' } as never, acceptState({ agentIds: ['main'], defaultAgentId: 'main', archived: ['agent:main:main'] }))).toBe(false)
  })
  it('a key is acked the first time only', () => {
    const keys = new SeenKeys(1000, 10)
    expect(keys.firstTime('a', 0)).toBe(true)
    expect(keys.firstTime('a', 1)).toBe(false)
  })
  it("a run's key is kept while it runs, past the TTL and the cap, then for the TTL from its end", () => {
    const keys = new SeenKeys(1000, 2)
    keys.started('run', 0)
    for (let i = 0; i < 10; i++) expect(keys.firstTime(`k${i}`, 5000 + i)).toBe(true)
    expect(keys.firstTime('run', 6000)).toBe(false)
    keys.ended('run', 6000)
    for (let i = 10; i < 13; i++) keys.firstTime(`k${i}`, 6500)
    expect(keys.firstTime('run', 7000)).toBe(false)
    // past the TTL (twice it) from its end, and the cap: forgotten as any other key
    for (let i = 13; i < 20; i++) keys.firstTime(`k${i}`, 9000)
    expect(keys.firstTime('run', 9000)).toBe(true)
  })
  it('keeps at most twice the cap of ended runs when no key is seen in between (runs only started and ended)', () => {
    const keys = new SeenKeys(1000, 2)
    for (let i = 0; i < 50; i++) {
      keys.started(`run${i}`, i)
      keys.ended(`run${i}`, i)
    }
    expect([...keys.known()]).toEqual(['run46', 'run47', 'run48', 'run49'])
    // and none older than twice the TTL
    keys.started('late', 5000)
    keys.ended('late', 5000)
    expect([...keys.known()]).toEqual(['late'])
    // runs that start and never end: twice the cap kept live, the ones pushed out kept as keys, as many
    for (let i = 0; i < 50; i++) keys.started(`stuck${i}`, 6000 + i)
    expect([...keys.known()]).toEqual(['stuck42', 'stuck43', 'stuck44', 'stuck45'])
  })
})
