import { readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { runTrustingTestCert } from '../../../../test/fixtures/trusted-child'
import { applyProxyEnv } from '../net/proxy'
import { httpFetch, StreamBody, StreamResponse } from './http-fetch'

interface Seen {
  method?: string
  url?: string
  headers: http.IncomingHttpHeaders
  body: string
}

const HERE = fileURLToPath(new URL('.', import.meta.url))
/** a self-signed certificate for 127.0.0.1 / localhost, for tests only (valid until 2126) */
const TLS = fileURLToPath(new URL('../../../../test/fixtures/tls', import.meta.url))

let servers: Array<{ close(): void }> = []
afterEach(async () => {
  for (const s of servers) s.close()
  servers = []
  await applyProxyEnv({})
})

/** an http server on loopback; `handle` answers, `seen` records each request, `connections` counts sockets */
async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = []
  let connections = 0
  const server = http.createServer((req, res) => {
    const s: Seen = { method: req.method, url: req.url, headers: req.headers, body: '' }
    seen.push(s)
    req.setEncoding('utf8')
    req.on('data', (c: string) => (s.body += c))
    req.on('end', () => handle(req, res, s))
  })
  server.on('connection', () => connections++)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push({ close: () => server.close() && server.closeAllConnections() })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, seen, connections: () => connections }
}

const sse = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' })
const nextTick = () => new Promise((r) => setTimeout(r, 20))

describe('httpFetch', () => {
  it('sends the body and headers as given and answers a JSON response as a real Response', async () => {
    const srv = await serve((_req, res) => res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'r1' }).end('{"ok":true}'))
    const body = JSON.stringify({ text: 'Grüße 🙂 — "q"' })
    const headers = new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' })
    const res = await httpFetch(`${srv.base}/v1/chat/completions?x=1`, { method: 'post', headers, body })
    expect(res).toBeInstanceOf(Response)
    expect([res.status, res.statusText, res.ok, res.url]).toEqual([201, 'Made', true, `${srv.base}/v1/chat/completions?x=1`])
    expect(res.headers.get('x-request-id')).toBe('r1')
    expect(await res.json()).toEqual({ ok: true })
    const [s] = srv.seen
    expect([s.method, s.url, s.body]).toEqual(['POST', '/v1/chat/completions?x=1', body])
    expect(s.headers).toMatchObject({ authorization: 'Bearer k', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), accept: '*/*' })
    expect(s.headers['transfer-encoding']).toBeUndefined()
    // plain-object headers and byte bodies too
    await httpFetch(new URL(`${srv.base}/b`), { method: 'PUT', headers: { 'X-Mixed-Case': 'v' }, body: new TextEncoder().encode('bytes') })
    expect(srv.seen[1]).toMatchObject({ method: 'PUT', body: 'bytes', headers: { 'x-mixed-case': 'v', 'content-length': '5' } })
  })

  it('streams an event-stream response chunk by chunk, as it is written, readable both ways', async () => {
    let finish: (() => void) | undefined
    const srv = await serve((_req, res) => {
      sse(res)
      res.write('data: 1\n\n')
      finish = () => res.end('data: 2\n\n')
    })
    const res = await httpFetch(`${srv.base}/s`, { method: 'POST', body: '{}' })
    expect(res).not.toBeInstanceOf(Response)
    expect(res.ok).toBe(true)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = (res.body as unknown as StreamBody).getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n') // before the server ended the response
    finish!()
    const second = await reader.read()
    expect(new TextDecoder().decode(second.value)).toBe('data: 2\n\n')
    expect((await reader.read()).done).toBe(true)
    expect(() => (res.body as unknown as StreamBody).getReader()).toThrow(/already been read/)

    const again = await httpFetch(`${srv.base}/s`, { method: 'POST', body: '{}' })
    setTimeout(() => finish!(), 10)
    expect(await again.text()).toBe('data: 1\n\ndata: 2\n\n')
    expect(again.bodyUsed).toBe(true)
  })

  it('keeps the connection alive between requests', async () => {
    const srv = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
    for (let i = 0; i < 3; i++) await (await httpFetch(`${srv.base}/k`, { method: 'POST', body: '{}' })).text()
    expect(srv.connections()).toBe(1)
  })

  it('reads an error status whole, like fetch (also with an event-stream content type)', async () => {
    const srv = await serve((_req, res) => res.writeHead(429, { 'content-type': 'text/event-stream', 'retry-after': '1' }).end('{"error":{"message":"slow down"}}'))
    const res = await httpFetch(`${srv.base}/e`, { method: 'POST', body: '{}' })
    expect(res).toBeInstanceOf(Response)
    expect([res.status, res.ok, res.headers.get('retry-after')]).toEqual([429, false, '1'])
    expect(await res.text()).toContain('slow down')
  })

  it('an abort before the response rejects with the signal reason; after it the body read throws it and the socket closes', async () => {
    let closed = false
    const srv = await serve((req, res) => {
      req.socket.on('close', () => (closed = true))
      if (req.url === '/late') return // never answers
      sse(res)
      res.write('data: 1\n\n')
    })
    const early = new AbortController()
    const pending = httpFetch(`${srv.base}/late`, { method: 'POST', body: '{}', signal: early.signal })
    await nextTick()
    early.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })

    const ac = new AbortController()
    const res = await httpFetch(`${srv.base}/stream`, { method: 'POST', body: '{}', signal: ac.signal })
    const it = (res.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
    await it.next()
    const reason = new DOMException('stop', 'AbortError')
    ac.abort(reason)
    await expect(it.next()).rejects.toBe(reason)
    await nextTick()
    expect(closed).toBe(true)

    const pre = new AbortController()
    pre.abort()
    await expect(httpFetch(`${srv.base}/stream`, { signal: pre.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('network failures read as fetch reports them: "fetch failed" before the response, "terminated" mid-body', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port
        s.close(() => resolve(port))
      })
    })
    const refused = await httpFetch(`http://127.0.0.1:${closedPort}/x`, { method: 'POST', body: '{}' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(TypeError)
    expect(refused).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } })

    const srv = await serve((_req, res) => {
      sse(res)
      res.write('data: 1\n\n')
      setTimeout(() => res.socket?.destroy(), 10)
    })
    const res = await httpFetch(`${srv.base}/drop`, { method: 'POST', body: '{}' })
    const it = (res.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
    await it.next()
    const cut = await it.next().catch((e: unknown) => e)
    expect(cut).toBeInstanceOf(TypeError)
    expect(cut).toMatchObject({ message: 'terminated' })
  })

  it('never sends a request twice: a keep-alive socket the server resets fails the call, and the keep-alive hint is kept', async () => {
    // a raw server: answers the first request keeping the socket open, then resets that socket on the
    // next request written to it (the server may have read it: sending it again could run a model twice)
    let sockets = 0
    let received = 0
    const server = net.createServer((sock) => {
      const n = ++sockets
      let requests = 0
      sock.on('data', (d) => {
        if (!d.toString().includes('\r\n\r\n')) return
        received++
        requests++
        if (n === 1 && requests === 2) return sock.resetAndDestroy()
        sock.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    servers.push({ close: () => server.close() })
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    expect((await httpFetch(`${base}/1`, { method: 'POST', body: '{}' })).status).toBe(200)
    await expect(httpFetch(`${base}/2`, { method: 'POST', body: '{}' })).rejects.toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } })
    expect([sockets, received]).toEqual([1, 2])

    // a server announcing `Keep-Alive: timeout=1` closes idle sockets within a second: not reused
    const short = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'keep-alive': 'timeout=1' }).end('{}'))
    for (let i = 0; i < 2; i++) await (await httpFetch(`${short.base}/k`, { method: 'POST', body: '{}' })).text()
    expect(short.connections()).toBe(2)
  })

  it('follows a redirect (through fetch) and decodes a compressed stream', async () => {
    const srv = await serve((req, res) => {
      if (req.url === '/old') return res.writeHead(307, { location: '/new' }).end()
      if (req.url === '/new') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"moved":true}')
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' })
      res.end(zlib.gzipSync('data: zipped 🙂\n\n'))
    })
    const moved = await httpFetch(`${srv.base}/old`, { method: 'POST', body: '{"a":1}' })
    expect([moved.status, moved.redirected]).toEqual([200, true])
    expect(await moved.json()).toEqual({ moved: true })
    // the first answer was only a redirect: fetch sends the request again and follows it (307 keeps the body)
    expect(srv.seen.map((s) => [s.url, s.body])).toEqual([
      ['/old', '{"a":1}'],
      ['/old', '{"a":1}'],
      ['/new', '{"a":1}'],
    ])
    const zipped = await httpFetch(`${srv.base}/zip`, { method: 'POST', body: '{}' })
    expect(await zipped.text()).toBe('data: zipped 🙂\n\n')
  })

  it('a request the proxy settings send through a proxy goes to fetch (whose dispatcher has the proxy); loopback stays here', async () => {
    const srv = await serve((_req, res) => sse(res) && res.end('data: 1\n\n'))
    const closed = net.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    closed.close()
    await applyProxyEnv({ HTTPS_PROXY: dead, HTTP_PROXY: dead })
    const local = await httpFetch(`${srv.base}/p`, { method: 'POST', body: '{}' })
    expect(local).toBeInstanceOf(StreamResponse) // served here: loopback is never proxied
    expect(await local.text()).toBe('data: 1\n\n')
    // a remote host: handed to fetch, which tries the (closed) proxy, never the host itself
    const remote = await httpFetch('http://model.test:8080/p', { method: 'POST', body: '{}' }).catch((e: unknown) => e)
    expect(remote).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED', port: Number(new URL(dead).port) } })
  })

  it('https: streams through TLS with a trusted certificate; an untrusted one fails as fetch fails', async () => {
    const cert = readFileSync(join(TLS, 'localhost-cert.pem'))
    const server = https.createServer({ cert, key: readFileSync(join(TLS, 'localhost-key.pem')) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: 1\n\n')
      setTimeout(() => res.end('data: 2\n\n'), 20)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    servers.push({ close: () => server.close() && server.closeAllConnections() })
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`
    // not trusted here (a self-signed test certificate): the same failure fetch reports
    const ours = await httpFetch(url, { method: 'POST', body: '{}' }).catch((e: unknown) => e)
    const theirs = await fetch(url, { method: 'POST', body: '{}' }).catch((e: unknown) => e)
    expect(ours).toMatchObject({ message: 'fetch failed', cause: { code: (theirs as { cause: { code: string } }).cause.code } })
    // trusted the way a user adds a CA (NODE_EXTRA_CA_CERTS, read at process start): a child process
    const script = `const { httpFetch } = await import(${JSON.stringify(join(HERE, 'http-fetch.ts'))})
const res = await httpFetch(${JSON.stringify(url)}, { method: 'POST', body: '{}' })
const parts = []
for await (const c of res.body) parts.push(new TextDecoder().decode(c))
process.stdout.write(JSON.stringify({ status: res.status, streamed: !(res instanceof Response), text: parts.join('') }))`
    const out = await runTrustingTestCert(script)
    expect(JSON.parse(out)).toEqual({ status: 200, streamed: true, text: 'data: 1\n\ndata: 2\n\n' })
  }, 60_000)

  it('hands what it does not serve to the global fetch', async () => {
    const srv = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
    const viaRequest = await httpFetch(new Request(`${srv.base}/r`, { method: 'POST', body: 'x' }))
    expect(viaRequest).toBeInstanceOf(Response)
    expect(srv.seen[0].body).toBe('x')
    const data = await httpFetch('data:text/plain,hello')
    expect(await data.text()).toBe('hello')
    await httpFetch(`${srv.base}/blob`, { method: 'POST', body: new Blob(['blob']) })
    expect(srv.seen[1].body).toBe('blob')
  })
})
