// Interop: an independent client implementation — OpenClaw's published @openclaw/gateway-client —
// drives this gateway (health, agent with expectFinal, agent.wait).
import { afterEach, describe, expect, it } from 'vitest'
import { GatewayClient } from '@openclaw/gateway-client'
import { publicKeyRawBase64Url, signDevicePayload } from '../../cli/identity'
import { startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'

let t: TestGateway | undefined
let client: GatewayClient | undefined
afterEach(async () => {
  client?.stop()
  client = undefined
  await t?.stop()
  t = undefined
})

function startClient(tg: TestGateway, extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
  const events: Array<{ event: string; payload?: any }> = []
  let hello: any
  const ready = new Promise<void>((resolve, reject) => {
    client = new GatewayClient({
      url: tg.gw.url,
      token: TEST_TOKEN,
      deviceIdentity: tg.identity,
      hostDeps: { signDevicePayload, publicKeyRawBase64UrlFromPem: publicKeyRawBase64Url },
      scopes: ['operator.admin'],
      caps: ['tool-events'],
      onHelloOk: (h) => {
        hello = h
        resolve()
      },
      onConnectError: (err) => reject(err),
      onEvent: (e) => events.push(e as { event: string; payload?: any }),
      ...extra,
    })
    client.start()
  })
  return { ready, events, hello: () => hello }
}

describe('interop with @openclaw/gateway-client', () => {
  it('connects (v4, signed device), calls health, agent with expectFinal, and agent.wait', async () => {
    t = await startTestGateway({ withTool: true })
    const c = startClient(t)
    await c.ready
    expect(c.hello()).toMatchObject({ type: 'hello-ok', protocol: 4, auth: { role: 'operator', scopes: ['operator.admin'] } })

    await expect(client!.request('health', {})).resolves.toMatchObject({ ok: true })

    let accepted: any
    const final = await client!.request(
      'agent',
      { message: 'hi', sessionKey: 'agent:main:main', idempotencyKey: 'interop-1' },
      { expectFinal: true, onAccepted: (p) => (accepted = p) },
    )
    expect(accepted).toMatchObject({ runId: 'interop-1', status: 'accepted' })
    expect(final).toMatchObject({ runId: 'interop-1', status: 'ok', summary: 'completed', result: { payloads: [{ text: 'Hello, world' }] } })

    await expect(client!.request('agent.wait', { runId: 'interop-1', timeoutMs: 1000 })).resolves.toMatchObject({
      runId: 'interop-1',
      status: 'ok',
    })
    const kinds = new Set(c.events.map((e) => e.event))
    expect(kinds.has('agent')).toBe(true)
    expect(kinds.has('chat')).toBe(true)
    // tool events reach a client that declared the cap
    expect(c.events.some((e) => e.event === 'agent' && e.payload?.stream === 'tool')).toBe(true)
  })

  it('a v3-only client (min=max=3) is accepted with protocol 3', async () => {
    t = await startTestGateway()
    const c = startClient(t, { minProtocol: 3, maxProtocol: 3, mode: 'probe', clientName: 'openclaw-probe' })
    await c.ready
    expect(c.hello().protocol).toBe(3)
    await expect(client!.request('health', {})).resolves.toMatchObject({ ok: true })
  })

  it('a wrong token surfaces as a connect error', async () => {
    t = await startTestGateway()
    const c = startClient(t, { token: 'wrong-token-for-interop-test' })
    const err = (await c.ready.catch((e) => e)) as Error & { details?: any }
    expect(err).toBeInstanceOf(Error)
    expect(String(err.message)).toMatch(/token mismatch/)
  })
})
