import { readFileSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startForwardProxy, type ForwardProxy } from '../../../../test/fixtures/forward-proxy'
import { runTrustingTestCert } from '../../../../test/fixtures/trusted-child'
import { requestThroughProxy } from './proxy-request'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const TLS = fileURLToPath(new URL('../../../../test/fixtures/tls', import.meta.url))

describe('requestThroughProxy: https through a CONNECT tunnel, TLS end to end with the target', () => {
  let proxy: ForwardProxy
  let server: https.Server
  let target: string
  beforeAll(async () => {
    proxy = await startForwardProxy()
    server = https.createServer({ cert: readFileSync(join(TLS, 'localhost-cert.pem')), key: readFileSync(join(TLS, 'localhost-key.pem')) }, (req, res) => {
      res.setHeader('content-type', 'text/plain')
      res.end(`tunnelled ${req.method} ${req.url} host=${req.headers.host}`)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    target = `https://localhost:${(server.address() as AddressInfo).port}/hello?x=1`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    await proxy.close()
  })

  it('checks the target certificate itself: an untrusted one fails even though the tunnel opened', async () => {
    proxy.seen.length = 0
    const err = await new Promise<Error>((resolve) => {
      const req = requestThroughProxy(new URL(target), new URL(proxy.url), { method: 'GET', headers: {} }, () => resolve(new Error('answered')))
      req.on('error', resolve)
      req.end()
    })
    expect((err as NodeJS.ErrnoException).code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/)
    expect(proxy.seen[0].line).toBe(`CONNECT ${new URL(target).host}`)
  })

  it('with the certificate trusted (NODE_EXTRA_CA_CERTS, read at process start: a child process) the page comes through', async () => {
    proxy.seen.length = 0
    const script = `const { requestThroughProxy } = await import(${JSON.stringify(join(HERE, 'proxy-request.ts'))})
const req = requestThroughProxy(new URL(${JSON.stringify(target)}), new URL(${JSON.stringify(proxy.url.replace('http://', 'http://dave:pa%3Ass@'))}), { method: 'GET', headers: { accept: 'text/plain' } }, (res) => {
  let body = ''
  res.on('data', (c) => (body += c))
  res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, body })))
})
req.on('error', (e) => { console.error(e); process.exit(1) })
req.end()`
    const out = await runTrustingTestCert(script)
    const host = new URL(target).host
    expect(JSON.parse(out)).toEqual({ status: 200, body: `tunnelled GET /hello?x=1 host=${host}` })
    expect(proxy.seen).toEqual([{ line: `CONNECT ${host}`, auth: `Basic ${Buffer.from('dave:pa:ss').toString('base64')}` }])
  }, 60_000)
})
