// A peer that sends pings and never reads the pongs: ws answered each one and queued the pongs without bound
// (measured on a real gateway: one socket still in its handshake, 1.4M pings in 8 s, +580 MB). Now it is cut
// off once what it has not read passes the cap; a peer that reads its pongs is answered as before.
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../../../test/fixtures/until'
import { RawClient, startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

/** Pings `c` (its socket paused: nothing it is sent is read) until the gateway drops it or `max` pings went out. */
async function pingWithoutReading(c: RawClient, gw: TestGateway['gw'], max: number): Promise<number> {
  const socket = (c.ws as unknown as { _socket: { pause(): void } })._socket
  socket.pause()
  const payload = Buffer.alloc(125, 7)
  let sent = 0
  while (sent < max && gw.connectionCount() > 0) {
    for (let i = 0; i < 2000; i++) c.ws.ping(payload)
    sent += 2000
    // let the gateway read them; the client's own queue stays small
    await new Promise((r) => setTimeout(r, c.ws.bufferedAmount > 8 * 1024 * 1024 ? 20 : 0))
  }
  return sent
}

describe('ping flood', () => {
  it('a socket in its handshake that never reads its pongs is dropped, long before its handshake timeout', async () => {
    t = await startTestGateway({}, { limits: { handshakeTimeoutMs: 60_000 } })
    const c = RawClient.open(t.gw.url)
    await c.challenge()
    expect(t.gw.connectionCount()).toBe(1)
    // 400k pings = 50 MB of pongs owed: far past the kernel's socket buffers and the 64 KiB pre-auth cap
    await pingWithoutReading(c, t.gw, 400_000)
    await until(() => t!.gw.connectionCount() === 0, 5000, 'the pinging socket to be dropped')
  })

  it('after hello the buffered-bytes cap applies; a peer that reads its pongs keeps its connection', async () => {
    t = await startTestGateway({}, { limits: { maxBufferedBytes: 256 * 1024 } })
    const reader = await t.connect()
    const pongs: number[] = []
    const c = RawClient.open(t.gw.url)
    const ch = await c.challenge()
    expect(ch.payload.nonce).toBeTruthy()
    // a token-only connect is enough: past the handshake, whatever its scopes
    const client = { id: 'test', version: '1', platform: 'linux', mode: 'test' }
    c.send({ type: 'req', id: 'c1', method: 'connect', params: { minProtocol: 3, maxProtocol: 4, client, auth: { token: TEST_TOKEN } } })
    expect(await c.res('c1')).toMatchObject({ ok: true })
    c.ws.on('pong', () => pongs.push(1))
    for (let i = 0; i < 50; i++) c.ws.ping()
    await until(() => pongs.length === 50, 5000, 'pongs')
    expect(t.gw.connectionCount()).toBe(2)
    await pingWithoutReading(c, t.gw, 400_000)
    await until(() => t!.gw.connectionCount() === 1, 5000, 'the pinging connection to be dropped')
    await expect(reader.request('health', {})).resolves.toMatchObject({ ok: true })
    await reader.close()
  })
})
