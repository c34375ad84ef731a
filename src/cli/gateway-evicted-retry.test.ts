// A gateway whose pending-handshake budget is full sheds its oldest silent socket; under a fast enough flood that
// can be the CLI's, between the upgrade and its connect. The client opens a new socket then (twice at most) instead
// of failing. Here the first upgrade is answered by a stand-in that evicts at once; later ones reach a real gateway.
import http from 'node:http'
import net from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { connectGateway } from './gateway-client'
import { generateNodeDeviceIdentity } from './identity'

let t: TestGateway | undefined
let front: http.Server | undefined
afterEach(async () => {
  front?.close()
  await t?.stop()
})

/** In front of the gateway: the first `evictions` upgrades are evicted, the rest piped through to the gateway. */
async function evictingFront(port: number, evictions: number): Promise<string> {
  const wss = new WebSocketServer({ noServer: true })
  let seen = 0
  front = http.createServer()
  front.on('upgrade', (req, socket, head) => {
    if (seen++ < evictions) {
      wss.handleUpgrade(req, socket, head, (ws) => ws.close(1008, 'evicted: too many pending connections from this address'))
      return
    }
    const up = net.connect(port, '127.0.0.1', () => {
      up.write(`${req.method} ${req.url} HTTP/1.1\r\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`).join('\r\n')}\r\n\r\n`)
      up.write(head)
      socket.pipe(up).pipe(socket)
    })
    up.on('error', () => socket.destroy())
  })
  await new Promise<void>((r) => front!.listen(0, '127.0.0.1', r))
  return `ws://127.0.0.1:${(front.address() as { port: number }).port}`
}

it('a socket evicted before its connect is opened again; a third eviction is the error', async () => {
  t = await startTestGateway({})
  const url = await evictingFront(t.gw.port, 2)
  const conn = await connectGateway({ url, token: TEST_TOKEN, identity: generateNodeDeviceIdentity() })
  expect(conn.hello.type).toBe('hello-ok')
  await conn.close()
  front!.close()

  const url3 = await evictingFront(t.gw.port, 3)
  const err = await connectGateway({ url: url3, token: TEST_TOKEN, identity: generateNodeDeviceIdentity() }).catch((e) => e)
  expect(err.message).toBe('gateway closed the connection during the handshake (1008 evicted: too many pending connections from this address)')
})
