// A request frame whose params nest ~100k levels deep (JSON.parse takes it; the handlers recurse) is answered
// INVALID_REQUEST naming the limit, whatever the method, and the connection keeps serving.
import { afterEach, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import type { GatewayConnectionClient } from '../../cli/gateway-client'
import { RawClient, startTestGateway, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const socketOf = (c: GatewayConnectionClient) => (c as unknown as { ws: WebSocket }).ws

describe('gateway: deeply nested params', () => {
  it('config.patch and a gateway-only method with 100k levels: INVALID_REQUEST with the limit; the next call works', async () => {
    t = await startTestGateway()
    const c = await t.connect()
    const raw = new RawClient(socketOf(c))
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)
    socketOf(c).send(`{"type":"req","id":"d1","method":"config.patch","params":{"patch":${deep}}}`)
    socketOf(c).send(`{"type":"req","id":"d2","method":"device.pair.list","params":{"x":${deep}}}`)
    for (const id of ['d1', 'd2']) {
      const res = await raw.res(id, 10_000)
      expect(res).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'TOO_DEEP' } } })
      expect(res.error?.message).toContain('nested deeper than 64 levels (the limit)')
    }
    socketOf(c).send(JSON.stringify({ type: 'req', id: 'ok', method: 'health' }))
    expect(await raw.res('ok', 10_000)).toMatchObject({ ok: true })
  })
})
