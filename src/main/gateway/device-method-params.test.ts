// The gateway's own device methods (device.token.*, device.pair.*) check params against a TypeBox schema
// and word a refusal like every other method: the offending field and what is wrong with it.
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

describe('device method params', () => {
  it('names the missing, extra or mistyped field, as every other method does', async () => {
    t = await startTestGateway()
    const c = await t.connect({ scopes: ['operator.admin'] })
    const refused = (method: string, params: unknown) => c.request(method, params).then(() => 'accepted', (e: { code: string; message: string }) => e)
    const cases: Array<[string, unknown, string]> = [
      ['device.token.revoke', { role: 'operator' }, "invalid device.token.revoke params: /: must have required properties deviceId"],
      ['device.token.revoke', { deviceId: 7, role: 'operator' }, 'invalid device.token.revoke params: /deviceId: must be string'],
      ['device.token.revoke', { deviceId: 'd', role: 'operator', foo: 1 }, "invalid device.token.revoke params: /: unexpected property 'foo'"],
      ['device.token.rotate', { deviceId: 'd', role: 'operator', scopes: 'operator.read' }, 'invalid device.token.rotate params: /scopes: must be array'],
      ['device.token.rotate', { deviceId: 'd', role: '' }, 'invalid device.token.rotate params: /role: must not have fewer than 1 characters'],
      ['device.pair.list', { foo: 1 }, "invalid device.pair.list params: /: unexpected property 'foo'"],
      ['device.pair.approve', {}, 'invalid device.pair.approve params: /: must have required properties requestId'],
      ['device.pair.reject', { requestId: 1 }, 'invalid device.pair.reject params: /requestId: must be string'],
      ['device.pair.remove', { deviceId: 'd', extra: true }, "invalid device.pair.remove params: /: unexpected property 'extra'"],
      ['loopdesk.device.pair.liftRejection', { deviceId: '' }, 'invalid loopdesk.device.pair.liftRejection params: /deviceId: must not have fewer than 1 characters'],
    ]
    for (const [method, params, message] of cases) {
      expect(await refused(method, params), `${method} ${JSON.stringify(params)}`).toMatchObject({ code: 'INVALID_REQUEST', message })
    }
    await c.close()
  })

  it('absent params are {}, null and other non-objects are "must be object" (device.pair.list included)', async () => {
    t = await startTestGateway()
    const c = await t.connect({ scopes: ['operator.admin'] })
    await expect(c.request('device.pair.list')).resolves.toMatchObject({ pending: [], paired: expect.any(Array) })
    const raw = new RawClient(socketOf(c))
    let n = 0
    for (const method of ['device.pair.list', 'device.pair.approve', 'device.pair.reject', 'device.pair.remove', 'device.token.rotate', 'device.token.revoke']) {
      for (const params of [null, 'text', 7, [1], true]) {
        const id = `dp${n++}`
        socketOf(c).send(JSON.stringify({ type: 'req', id, method, params }))
        const res = await raw.res(id)
        expect(res.error, `${method} ${JSON.stringify(params)}`).toEqual({ code: 'INVALID_REQUEST', message: `invalid ${method} params: /: must be object` })
      }
    }
    await c.close()
  })
})
