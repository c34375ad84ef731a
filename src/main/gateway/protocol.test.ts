// Our mirrored schemas must match @openclaw/gateway-protocol (dev dependency) exactly, so wire
// validation stays compatible when the package is bumped.
import { describe, expect, it } from 'vitest'
import { ConnectParamsSchema, RequestFrameSchema, GATEWAY_CLIENT_IDS, GATEWAY_CLIENT_MODES, checkConnectParams, checkRequestFrame } from './protocol'

const json = (v: unknown) => JSON.parse(JSON.stringify(v))

describe('protocol schema mirror', () => {
  it('ConnectParams and RequestFrame equal the published schemas', async () => {
    const S = await import('@openclaw/gateway-protocol/schema')
    expect(json(ConnectParamsSchema)).toEqual(json(S.ConnectParamsSchema))
    expect(json(RequestFrameSchema)).toEqual(json(S.RequestFrameSchema))
  })

  it('client ids and modes equal the published registries', async () => {
    const CI = await import('@openclaw/gateway-protocol/client-info')
    expect([...GATEWAY_CLIENT_IDS].sort()).toEqual(Object.values(CI.GATEWAY_CLIENT_IDS).sort())
    expect([...GATEWAY_CLIENT_MODES].sort()).toEqual(Object.values(CI.GATEWAY_CLIENT_MODES).sort())
  })

  it('hello-ok produced by the gateway validates against the published HelloOk schema', async () => {
    const { Compile } = await import('typebox/compile')
    const S = await import('@openclaw/gateway-protocol/schema')
    const { startTestGateway } = await import('./test-support')
    const t = await startTestGateway()
    try {
      for (const identity of [t.identity, null]) {
        const c = await t.connect({ identity })
        const v = Compile(S.HelloOkSchema)
        expect([...v.Errors(c.hello)]).toEqual([])
        await c.close()
      }
    } finally {
      await t.stop()
    }
  })

  it('validators explain failures', () => {
    expect(checkRequestFrame({ type: 'req', id: '1', method: 'x' })).toBeUndefined()
    expect(checkRequestFrame({ type: 'req', id: '', method: 'x' })).toMatch(/root\/id|\/id/)
    expect(checkConnectParams({ minProtocol: 3, maxProtocol: 4, client: { id: 'cli', version: '1', platform: 'l', mode: 'cli' } })).toBeUndefined()
    expect(checkConnectParams({ minProtocol: 3 })).toMatch(/required/)
  })
})
