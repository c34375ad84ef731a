// Every loopback source address is this machine: the per-address budgets (wrong-token backoff, pending
// handshakes) count them as one, so a local process cannot get a fresh budget per 127.x.y.z it binds to.
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { addressKey, isLoopbackAddress } from './address-key'
import { RawClient, startTestGateway, type TestGateway } from './test-support'

describe('addressKey', () => {
  it('is one key for all of 127.0.0.0/8 and ::1 (IPv4-mapped too); other addresses as IPv4 when mapped', () => {
    for (const a of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '::ffff:127.0.0.9', '::FFFF:127.1.2.3']) {
      expect(isLoopbackAddress(a)).toBe(true)
      expect(addressKey(a)).toBe('loopback')
    }
    expect(addressKey('::ffff:192.168.1.20')).toBe('192.168.1.20')
    expect(addressKey('192.168.1.20')).toBe('192.168.1.20')
    expect(addressKey('fe80::1')).toBe('fe80::1')
    expect(isLoopbackAddress('128.0.0.1')).toBe(false)
    expect(isLoopbackAddress(undefined)).toBe(false)
  })
})

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

/** a token-only connect from `localAddress`; its error code (undefined when accepted) */
async function guessFrom(localAddress: string, token: string): Promise<string | undefined> {
  const c = new RawClient(new WebSocket(t!.gw.url, { localAddress, perMessageDeflate: false }))
  await c.challenge()
  c.send({
    type: 'req',
    id: 'c1',
    method: 'connect',
    params: { minProtocol: 3, maxProtocol: 4, client: { id: 'cli', version: '1.0.0', platform: 'linux', mode: 'cli' }, auth: { token } },
  })
  const res = await c.res('c1')
  c.ws.terminate()
  return res.ok ? undefined : res.error?.details?.code
}

describe.runIf(process.platform === 'linux')('loopback source addresses share one wrong-token budget', () => {
  it('ten wrong tokens from ten different 127.x addresses lock the eleventh, from yet another', async () => {
    t = await startTestGateway()
    for (let i = 0; i < 10; i++) expect(await guessFrom(`127.0.0.${i + 2}`, `wrong-guess-${i}-0000000000`)).toBe('AUTH_TOKEN_MISMATCH')
    expect(await guessFrom('127.0.0.40', 'wrong-guess-last-0000000000')).toBe('AUTH_RATE_LIMITED')
    expect(await guessFrom('127.0.0.1', 'wrong-guess-last-0000000000')).toBe('AUTH_RATE_LIMITED')
  })

  it('the pending-handshake budget: silent sockets from many 127.x addresses still evict each other', async () => {
    t = await startTestGateway({}, { limits: { maxPreauthPerIp: 4, handshakeTimeoutMs: 60_000 } })
    const silent = Array.from({ length: 8 }, (_, i) => new RawClient(new WebSocket(t!.gw.url, { localAddress: `127.0.1.${i + 2}`, perMessageDeflate: false })))
    for (const c of silent) await c.challenge()
    // four pending at most, whichever loopback address each came from: the first four were evicted
    for (const c of silent.slice(0, 4)) expect(await c.closed).toMatchObject({ code: 1008, reason: expect.stringContaining('evicted') })
    expect(t.gw.connectionCount()).toBe(4)
    for (const c of silent.slice(4)) c.ws.terminate()
  })
})
