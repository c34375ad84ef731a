import { afterEach, describe, expect, it } from 'vitest'
import type { EventFrameIn, GatewayConnectionClient } from '../../cli/gateway-client'
import { RawClient, startTestGateway, type TestGateway } from './test-support'
import { until } from '../../../test/fixtures/until'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

function collect(conn: GatewayConnectionClient) {
  const events: EventFrameIn[] = []
  conn.onEvent((e) => events.push(e))
  return events
}


/** Opens an authenticated raw socket (frame-level assertions on the agent double response). */
async function rawAuthed(tg: TestGateway) {
  const conn = await tg.connect()
  // reuse the CLI client's handshake, then read raw frames from the same socket
  const raw = new RawClient((conn as unknown as { ws: import('ws').WebSocket }).ws)
  return { conn, raw }
}

describe('methods', () => {
  it('dispatches through the method table and validates params (closed schemas)', async () => {
    t = await startTestGateway()
    const conn = await t.connect()
    await expect(conn.request('health')).resolves.toMatchObject({ ok: true })
    await expect(conn.request('status', {})).resolves.toMatchObject({ ok: true, version: '0.1.0-test' })
    await expect(conn.request('status', { nope: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(conn.request('no.such.method')).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'unknown method: no.such.method' })
    await expect(conn.request('connect', {})).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    // a handler error becomes a structured error, not a crash
    await expect(conn.request('models.list')).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'NOT_FOUND' } })
    expect(t.host.calls.find((c) => c.method === 'status')?.connId).toBeTruthy()
    await conn.close()
  })

  it('enforces scopes: read cannot write, write implies read, approvals separate, admin implies all', async () => {
    t = await startTestGateway()
    const read = await t.connect({ scopes: ['operator.read'] })
    await expect(read.request('status')).resolves.toBeTruthy()
    await expect(read.request('chat.abort', { sessionKey: 'agent:main:main' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { code: 'MISSING_SCOPE', missingScope: 'operator.write' },
    })
    const write = await t.connect({ scopes: ['operator.write'] })
    await expect(write.request('status')).resolves.toBeTruthy()
    await expect(write.request('sessions.delete', { key: 'agent:main:x' })).rejects.toMatchObject({ message: 'missing scope: operator.admin' })
    await expect(write.request('exec.approval.resolve', { id: 'a', decision: 'deny' })).rejects.toMatchObject({
      message: 'missing scope: operator.approvals',
    })
    const approvals = await t.connect({ scopes: ['operator.approvals'] })
    // passes the scope check and reaches the (fake) handler
    await expect(approvals.request('exec.approval.resolve', { id: 'a', decision: 'deny' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'NOT_FOUND' } })
    const admin = await t.connect({ scopes: ['operator.admin'] })
    await expect(admin.request('sessions.delete', { key: 'agent:main:x' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'NOT_FOUND' } })
    await Promise.all([read.close(), write.close(), approvals.close(), admin.close()])
  })

  it('agent: accepted ack, then a second res with the same id carrying the final', async () => {
    t = await startTestGateway()
    const { conn, raw } = await rawAuthed(t)
    raw.send({ type: 'req', id: 'r1', method: 'agent', params: { message: 'hi', sessionKey: 'agent:main:main', idempotencyKey: 'run-1' } })
    const ack = await raw.res('r1')
    expect(ack).toMatchObject({ ok: true, payload: { runId: 'run-1', status: 'accepted' } })
    expect(typeof ack.payload.acceptedAt).toBe('number')
    const final = await raw.next((f) => f.type === 'res' && f.id === 'r1' && f !== ack)
    expect(final).toMatchObject({
      ok: true,
      payload: { runId: 'run-1', status: 'ok', summary: 'completed', result: { payloads: [{ text: 'Hello, world' }] } },
    })
    // the final comes after the run's events
    const idxFinal = raw.frames.indexOf(final)
    const idxEnd = raw.frames.findIndex((f) => f.event === 'agent' && f.payload.data.phase === 'end')
    expect(idxEnd).toBeGreaterThan(-1)
    expect(idxEnd).toBeLessThan(idxFinal)
    expect(raw.frames.filter((f) => f.type === 'res' && f.id === 'r1')).toHaveLength(2)
    await conn.close()
  })

  it('agent: a failed run yields ok:false UNAVAILABLE with {runId, status:"error", summary}', async () => {
    t = await startTestGateway()
    const { conn, raw } = await rawAuthed(t)
    raw.send({ type: 'req', id: 'r1', method: 'agent', params: { message: 'fail-run', idempotencyKey: 'bad-1' } })
    const ack = await raw.res('r1')
    const final = await raw.next((f) => f.type === 'res' && f.id === 'r1' && f !== ack)
    expect(final).toMatchObject({
      ok: false,
      payload: { runId: 'bad-1', status: 'error', summary: 'LLM request failed.' },
      error: { code: 'UNAVAILABLE', message: 'LLM request failed.' },
    })
    await conn.close()
  })

  it('agent: a rejected request gets one error res and is not cached', async () => {
    t = await startTestGateway()
    const conn = await t.connect()
    await expect(conn.request('agent', { message: 'hi', sessionKey: 'agent:', idempotencyKey: 'k' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'malformed session key "agent:"',
    })
    await expect(conn.request('agent', { idempotencyKey: 'k' })).rejects.toMatchObject({ message: /invalid agent params/ })
    const ok = await conn.request('agent', { message: 'now fine', idempotencyKey: 'k' }, { expectFinal: true })
    expect(ok.status).toBe('ok')
    await conn.close()
  })

  it('agent dedupe: retry in flight → ack only; retry after completion → cached final; survives reconnect', async () => {
    t = await startTestGateway({ hold: true })
    const { conn, raw } = await rawAuthed(t)
    const params = { message: 'hi', idempotencyKey: 'dup-1' }
    raw.send({ type: 'req', id: 'a', method: 'agent', params })
    await raw.res('a')
    raw.send({ type: 'req', id: 'b', method: 'agent', params })
    const retryAck = await raw.res('b')
    expect(retryAck.payload.status).toBe('accepted')
    expect(t.host.callCount('agent')).toBe(1)
    t.host.finishRun('dup-1')
    const finalA = await raw.next((f) => f.type === 'res' && f.id === 'a' && f.payload?.status === 'ok')
    await new Promise((r) => setTimeout(r, 50))
    // the in-flight retry got the ack only: no second frame for id "b"
    expect(raw.frames.filter((f) => f.type === 'res' && f.id === 'b')).toHaveLength(1)
    await conn.close()

    const again = await t.connect()
    const cached = await again.request('agent', params)
    expect(cached).toEqual(finalA.payload)
    expect(t.host.callCount('agent')).toBe(1)
    await again.close()
  })

  it('agent dedupe: concurrent duplicates dispatch once', async () => {
    t = await startTestGateway()
    const conn = await t.connect()
    const params = { message: 'hi', idempotencyKey: 'race' }
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => conn.request('agent', params)))
    expect(results.every((r) => r.runId === 'race')).toBe(true)
    expect(t.host.callCount('agent')).toBe(1)
    await conn.close()
  })

  it('agent.wait resolves when the run ends, times out without cancelling it', async () => {
    t = await startTestGateway({ hold: true })
    const conn = await t.connect()
    await conn.request('agent', { message: 'hi', idempotencyKey: 'w1' })
    const timedOut = await conn.request('agent.wait', { runId: 'w1', timeoutMs: 50 })
    expect(timedOut).toEqual({ runId: 'w1', status: 'timeout' })
    const waiting = conn.request('agent.wait', { runId: 'w1', timeoutMs: 5000 })
    setTimeout(() => t!.host.finishRun('w1'), 30)
    const done = await waiting
    expect(done).toMatchObject({ runId: 'w1', status: 'ok' })
    expect(done.endedAt).toBeGreaterThanOrEqual(done.startedAt)
    // after completion, an immediate snapshot
    await expect(conn.request('agent.wait', { runId: 'w1', timeoutMs: 0 })).resolves.toMatchObject({ status: 'ok' })
    await conn.close()
  })

  it('chat.abort aborts a run started by agent; the final reports aborted', async () => {
    t = await startTestGateway({ hold: true })
    const conn = await t.connect()
    const events = collect(conn)
    let acked = false
    const final = conn.request('agent', { message: 'long', sessionKey: 'agent:main:main', idempotencyKey: 'ab-1' }, {
      expectFinal: true,
      onAccepted: () => (acked = true),
    })
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as any).state === 'delta'))
    expect(acked).toBe(true)
    const res = await conn.request('chat.abort', { sessionKey: 'agent:main:main', runId: 'ab-1' })
    expect(res).toEqual({ ok: true, aborted: true, runIds: ['ab-1'] })
    const f = await final
    expect(f).toMatchObject({ runId: 'ab-1', status: 'ok', result: { meta: { aborted: true } } })
    const aborted = events.find((e) => e.event === 'chat' && (e.payload as any).state === 'aborted')
    expect(aborted?.payload).toMatchObject({ runId: 'ab-1', message: { content: [{ text: 'Hello, world' }] } })
    await expect(conn.request('agent.wait', { runId: 'ab-1' })).resolves.toMatchObject({ status: 'timeout' })
    await conn.close()
  })

  it('handles many concurrent requests on one connection (responses may interleave)', async () => {
    t = await startTestGateway()
    const conn = await t.connect()
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => conn.request(i % 2 ? 'health' : 'status')))
    expect(all).toHaveLength(200)
    await conn.close()
  })
})
