// loopdesk.chat.find over the gateway: offered in hello-ok, a read-scope method, its params checked against
// the closed schema before the runtime sees them (the runtime's own behaviour: transcript-search.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

describe('loopdesk.chat.find through the gateway', () => {
  it('is offered, needs only read scope, and refuses params its schema does not allow', async () => {
    t = await startTestGateway()
    const read = await t.connect({ scopes: ['operator.read'] })
    expect(read.hello?.features?.methods).toContain('loopdesk.chat.find')
    // valid params pass the scope and schema checks and reach the host (the fake one has no such handler)
    await expect(read.request('loopdesk.chat.find', { sessionKey: 'agent:main:main', query: 'needle', limit: 2000 })).rejects.toMatchObject({
      details: { code: 'NOT_FOUND' },
    })
    expect(t.host.calls.filter((c) => c.method === 'loopdesk.chat.find').map((c) => c.params)).toEqual([{ sessionKey: 'agent:main:main', query: 'needle', limit: 2000 }])
    for (const bad of [
      { sessionKey: 'agent:main:main', query: 'x', offset: 3 }, // closed: an unknown param
      { sessionKey: 'agent:main:main', query: '' },
      { sessionKey: 'agent:main:main', query: 'x'.repeat(201) },
      { sessionKey: 'agent:main:main', query: 'x', limit: 2001 }, // bounded results
      { query: 'x' },
    ])
      await expect(read.request('loopdesk.chat.find', bad)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    expect(t.host.calls.filter((c) => c.method === 'loopdesk.chat.find')).toHaveLength(1)
    await read.close()
  })
})
