import { afterEach, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import type { GatewayConnectionClient } from '../../cli/gateway-client'
import { METHOD_NAMES } from '../../shared/methods'
import { RawClient, startTestGateway, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const socketOf = (c: GatewayConnectionClient) => (c as unknown as { ws: WebSocket }).ws

/** 1,000 malformed frames of many shapes (deterministic). */
function malformedFrames(): Array<string | Buffer> {
  const shapes: Array<(i: number) => string | Buffer> = [
    (i) => `{"type":"req","id":"m${i}"`, // truncated JSON
    () => 'null',
    (i) => String(i),
    () => '"just a string"',
    () => '[1,2,3]',
    (i) => JSON.stringify({ type: 'req', id: `m${i}` }), // no method
    (i) => JSON.stringify({ type: 'req', id: i, method: 'health' }), // id wrong type
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 42 }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'health', extra: true }), // closed frame schema
    (i) => JSON.stringify({ type: 'event', id: `m${i}`, event: 'x' }),
    (i) => JSON.stringify({ type: 'res', id: `m${i}`, ok: true }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: '' }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'agent', params: 'not an object' }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'agent', params: { message: 5, idempotencyKey: [] } }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'chat.history', params: { sessionKey: 'x'.repeat(600) } }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'no.such.method' }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: '__proto__' }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'constructor' }),
    (i) => JSON.stringify({ type: 'req', id: `m${i}`, method: 'health', params: JSON.parse('{"__proto__":{"polluted":1}}') }),
    (i) => Buffer.from([0xde, 0xad, 0xbe, 0xef, i & 0xff]), // binary frame
    () => '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}', // deep nesting
    () => '\u0000\u0001',
    () => '',
  ]
  return Array.from({ length: 1000 }, (_, i) => shapes[i % shapes.length](i))
}

describe('malformed frames', () => {
  it('answers 1,000 malformed frames with structured errors, stays up, and keeps serving others', async () => {
    t = await startTestGateway()
    const attacker = await t.connect()
    const raw = new RawClient(socketOf(attacker))
    const bystander = await t.connect()
    const frames = malformedFrames()
    for (const f of frames) socketOf(attacker).send(f)
    socketOf(attacker).send(JSON.stringify({ type: 'req', id: 'sentinel', method: 'health' }))
    await raw.res('sentinel', 10_000)
    const responses = raw.frames.filter((f) => f.type === 'res' && f.id !== 'sentinel')
    expect(responses).toHaveLength(1000)
    expect(responses.every((f) => f.ok === false && typeof f.error?.code === 'string' && f.error.message.length > 0)).toBe(true)
    // ids are echoed when usable, else "invalid"
    expect(responses.some((f) => f.id === 'invalid')).toBe(true)
    expect(responses.some((f) => f.id?.startsWith('m'))).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(attacker.closed).toBe(false)
    await expect(bystander.request('status')).resolves.toMatchObject({ ok: true })
    // a fresh client can still connect
    const fresh = await t.connect()
    await expect(fresh.request('health')).resolves.toMatchObject({ ok: true })
    await Promise.all([attacker.close(), bystander.close(), fresh.close()])
  })

  it('params that are not an object are refused as invalid by every method (none reaches a handler)', async () => {
    t = await startTestGateway()
    const c = await t.connect()
    const raw = new RawClient(socketOf(c))
    let n = 0
    for (const method of METHOD_NAMES) {
      for (const params of [null, 'text', 7, [1], true]) {
        const id = `np${n++}`
        socketOf(c).send(JSON.stringify({ type: 'req', id, method, params }))
        const res = await raw.res(id, 5_000)
        expect(res.ok, `${method} ${JSON.stringify(params)}`).toBe(false)
        expect(res.error, `${method} ${JSON.stringify(params)}`).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/params|must be object/) })
      }
    }
    await c.close()
  })

  it('unknown methods and prototype names are rejected as unknown', async () => {
    t = await startTestGateway()
    const c = await t.connect()
    for (const m of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      await expect(c.request(m)).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: `unknown method: ${m}` })
    }
    await c.close()
  })

  it('an invalid UTF-8 text frame closes only that socket (1007)', async () => {
    t = await startTestGateway()
    const c = await t.connect()
    const other = await t.connect()
    const ws = socketOf(c) as unknown as { _sender: { sendFrame(list: Buffer[], cb?: () => void): void } }
    // craft a masked text frame with invalid UTF-8 through the low-level sender
    // Sender is exported by ws at runtime but missing from @types/ws
    const { Sender } = (await import('ws')) as unknown as { Sender: { frame(data: Buffer, opts: unknown): Buffer[] } }
    const payload = Buffer.from([0xc3, 0x28])
    const frame = Sender.frame(payload, { fin: true, opcode: 1, mask: true, readOnly: false, rsv1: false, maskKey: Buffer.alloc(4) })
    const closed = new Promise<number>((r) => c.onClose((code) => r(code)))
    ws._sender.sendFrame(frame)
    expect(await closed).toBe(1007)
    await expect(other.request('health')).resolves.toMatchObject({ ok: true })
    await other.close()
  })

  it('a raw client that floods garbage before connect is closed with 1008 and the server survives', async () => {
    t = await startTestGateway()
    const clients = Array.from({ length: 20 }, () => RawClient.open(t!.gw.url))
    await Promise.all(clients.map((c) => c.challenge()))
    for (const c of clients) for (let i = 0; i < 10; i++) c.ws.send(`garbage ${i}`)
    const codes = await Promise.all(clients.map((c) => c.closed))
    expect(codes.every((c) => c.code === 1008)).toBe(true)
    const ok = await t.connect()
    await expect(ok.request('health')).resolves.toBeTruthy()
    await ok.close()
  })
})
