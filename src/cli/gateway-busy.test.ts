// Idle sockets from another local process must not lock the CLI out (a full pending-handshake budget evicts its
// oldest idle one); a gateway that still answers the upgrade with 429 is up: the CLI must not tell the user to
// start one, nor fall back as if none ran. Real gateway, real sockets.
import { afterEach, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { RawClient, startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { EXIT } from './io'

let t: TestGateway | undefined
let held: RawClient[] = []
afterEach(async () => {
  for (const c of held) c.ws.close()
  held = []
  await t?.stop()
  t = undefined
})

describe('CLI against a gateway whose pending-connection budget is full', () => {
  it('gets in while another local process holds all 32 pending slots (and more) with idle sockets', async () => {
    t = await startTestGateway({})
    held = Array.from({ length: 40 }, () => RawClient.open(t!.gw.url))
    await Promise.all(held.map((c) => c.challenge())) // idle sockets that never send connect, as preauth-dos.mjs
    const r = await runCliCaptured(['gateway', 'call', 'health', '--url', t.gw.url, '--state-dir', tempDir('loopdesk-cli-busy-')], {
      LOOPDESK_GATEWAY_TOKEN: TEST_TOKEN,
    })
    expect(r.err).toBe('')
    expect(r.code).toBe(EXIT.ok)
  })

  it('an upgrade answered 429 (every slot holds a connect still being judged) says the gateway is up but refused the connection', async () => {
    const http = await import('node:http')
    const srv = http.createServer((_q, s) => s.writeHead(404).end())
    srv.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'))
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    try {
      const url = `ws://127.0.0.1:${(srv.address() as { port: number }).port}`
      const r = await runCliCaptured(['gateway', 'call', 'health', '--url', url, '--state-dir', tempDir('loopdesk-cli-busy-')], { LOOPDESK_GATEWAY_TOKEN: TEST_TOKEN })
      expect(r.code).toBe(EXIT.failed)
      expect(r.err).toContain(`gateway at ${url} is running but refused the connection: too many connections from this address are still waiting in their handshake (HTTP 429)`)
      expect(r.err).not.toMatch(/start one|cannot reach|not running/)
    } finally {
      srv.close()
    }
  })

  it('an HTTP server that is no gateway reads as "cannot reach", saying another server answered (exit 3)', async () => {
    const http = await import('node:http')
    const srv = http.createServer((_q, s) => s.writeHead(404).end('nope'))
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    try {
      const url = `ws://127.0.0.1:${(srv.address() as { port: number }).port}`
      const r = await runCliCaptured(['gateway', 'call', 'health', '--url', url, '--state-dir', tempDir('loopdesk-cli-busy-')], { LOOPDESK_GATEWAY_TOKEN: TEST_TOKEN })
      expect(r.code).toBe(EXIT.unreachable)
      expect(r.err).toContain(`cannot reach gateway at ${url}: a server that is no Loopdesk gateway answered there (HTTP 404) — check the URL and port\n`)
      expect(r.err).not.toContain('start one') // something listens there: starting a gateway is not the fix
    } finally {
      srv.close()
    }
  })
})
