import dns from 'node:dns'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { startForwardProxy, type ForwardProxy } from '../../../../test/fixtures/forward-proxy'
import { applyProxyEnv } from '../net/proxy'
import { decodeEntities, extractTitle, htmlToText } from './html-text'
import { blockReason, classifyAddress } from './net-guard'
import { makeCtx, makeSandbox, run, textOf, type Sandbox, type TestCtx } from './test-helpers'

let server: http.Server
let base: string
let port: number
const hanging = new Set<http.ServerResponse>()
/** requests the test server received (a refused fetch must not add one) */
let hits = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++
    const url = new URL(req.url ?? '/', 'http://x')
    switch (url.pathname) {
      case '/host':
        res.setHeader('content-type', 'text/plain')
        res.end(`host=${req.headers.host}`)
        return
      case '/gzip':
        res.setHeader('content-type', 'text/plain')
        res.setHeader('content-encoding', 'gzip')
        res.end(zlib.gzipSync('squeezed text'))
        return
      case '/to': {
        // redirect to any URL given in ?u=
        res.statusCode = 302
        res.setHeader('location', url.searchParams.get('u') ?? '/text')
        res.end()
        return
      }
      case '/page':
        res.setHeader('content-type', 'text/html; charset=utf-8')
        res.end(`<!doctype html><html><head><title>My &amp; Page</title><style>.x{color:red}</style>
          <script>var secret = "do not show";</script></head>
          <body><h1>Hello&nbsp;World</h1><p>First   paragraph with <b>bold</b> &lt;tag&gt; &#169; &#x1F600;</p>
          <!-- hidden comment --><ul><li>one</li><li>two</li></ul><noscript>noscript text</noscript></body></html>`)
        return
      case '/json':
        res.setHeader('content-type', 'application/json')
        res.end('{"a":1,"b":[true,null]}')
        return
      case '/text':
        res.setHeader('content-type', 'text/plain')
        res.end('plain  text\n  kept as is')
        return
      case '/latin1':
        res.setHeader('content-type', 'text/plain; charset=iso-8859-1')
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9])) // "café" in latin1
        return
      case '/deepjson': {
        // 2 MB of nested arrays: pretty-printed whole it would be gigabytes
        const deep = '['.repeat(3000) + ']'.repeat(3000)
        res.setHeader('content-type', 'application/json')
        res.end(`[${Array(330).fill(deep).join(',')}]`)
        return
      }
      case '/hostile':
        // 2 MB of tags that never close: every pass of the page-to-text conversion must stay linear
        res.setHeader('content-type', 'text/html')
        res.end('<title>x' + '<li<svg <a <!--<script '.repeat(60_000) + '<pre>' + ' '.repeat(500_000) + 'end')
        return
      case '/infinite': {
        res.setHeader('content-type', 'text/plain')
        const chunk = Buffer.alloc(16 * 1024, 'a')
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {
            /* keep writing until the client stops reading */
          }
          if (!res.destroyed) res.once('drain', pump)
        }
        res.on('close', () => hanging.delete(res))
        hanging.add(res)
        pump()
        return
      }
      case '/hang':
        hanging.add(res)
        res.on('close', () => hanging.delete(res))
        return // never answers
      case '/redirect': {
        const n = Number(url.searchParams.get('n') ?? '1')
        res.statusCode = 302
        res.setHeader('location', n > 1 ? `/redirect?n=${n - 1}` : '/text')
        res.end()
        return
      }
      case '/to-file':
        res.statusCode = 301
        res.setHeader('location', 'file:///etc/passwd')
        res.end()
        return
      case '/to-data':
        res.statusCode = 307
        res.setHeader('location', 'data:text/plain,hi')
        res.end()
        return
      case '/missing':
        res.statusCode = 404
        res.setHeader('content-type', 'text/html')
        res.end('<h1>Not here</h1>')
        return
      case '/image':
        res.setHeader('content-type', 'image/png')
        res.end(Buffer.from('89504e470d0a1a0a', 'hex'))
        return
      default:
        res.statusCode = 500
        res.end()
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
})

afterEach(() => {
  vi.restoreAllMocks()
})

afterAll(async () => {
  for (const res of hanging) res.destroy()
  await new Promise((r) => server.close(r))
})

let sb: Sandbox
let ctx: TestCtx
beforeEach(() => {
  sb = makeSandbox()
  // the test server is on 127.0.0.1: these tests opt in to loopback (the policy tests below do not)
  ctx = makeCtx(sb.ws, { webFetch: { maxBytes: 200_000, timeoutMs: 3000, allowLoopback: true } })
})
afterEach(() => sb.cleanup())

const fetchText = async (url: string, extra: Record<string, unknown> = {}, c: TestCtx = ctx) =>
  textOf(await run(c, 'web_fetch', { url, ...extra }))

describe('web_fetch', () => {
  it('extracts readable text from HTML', async () => {
    const t = await fetchText(`${base}/page`)
    expect(t).toContain(`URL: ${base}/page`)
    expect(t).toContain('Status: 200')
    expect(t).toContain('Title: My & Page')
    expect(t).toContain('Hello World')
    expect(t).toContain('First paragraph with bold <tag> © 😀')
    expect(t).toContain('• one\n• two')
    for (const hidden of ['do not show', 'color:red', 'hidden comment', 'noscript text', '<p>', '&lt;']) expect(t).not.toContain(hidden)
  })

  it('a hostile 2 MB page comes back in seconds, not after blocking the main thread', async () => {
    const big = makeCtx(sb.ws, { webFetch: { maxBytes: 2_000_000, timeoutMs: 10_000, allowLoopback: true } })
    const t0 = performance.now()
    const t = textOf(await run(big, 'web_fetch', { url: `${base}/hostile` }))
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(t).toContain('Status: 200')
  }, 300_000)

  it('a deeply nested 2 MB JSON page is pretty-printed only as far as it is shown', async () => {
    const big = makeCtx(sb.ws, { webFetch: { maxBytes: 2_000_000, timeoutMs: 10_000, allowLoopback: true } })
    const t0 = performance.now()
    const t = textOf(await run(big, 'web_fetch', { url: `${base}/deepjson` }))
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(t).toContain('[\n  [\n    [')
    expect(t).toContain('[text truncated to 50000 characters]')
  }, 120_000)

  it('passes JSON (pretty-printed) and text through, decoding the charset', async () => {
    expect(await fetchText(`${base}/json`)).toContain('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}')
    expect(await fetchText(`${base}/text`)).toMatch(/plain {2}text\n {2}kept as is$/)
    expect(await fetchText(`${base}/latin1`)).toMatch(/café$/)
  })

  it('stops downloading at the byte cap', async () => {
    const small = makeCtx(sb.ws, { webFetch: { maxBytes: 50_000, timeoutMs: 5000, allowLoopback: true } })
    const r = await run(small, 'web_fetch', { url: `${base}/infinite`, maxChars: 500_000 })
    expect(r.details).toMatchObject({ bytes: 50_000, truncated: true })
    expect(textOf(r)).toMatch(/download stopped at the 48\.8 KB size limit/)
    await new Promise((res) => setTimeout(res, 200))
    expect(hanging.size).toBe(0) // the server saw the connection close
  })

  it('limits returned characters with maxChars', async () => {
    const r = await run(ctx, 'web_fetch', { url: `${base}/infinite`, maxChars: 1000 })
    expect(textOf(r)).toMatch(/text truncated to 1000 characters/)
    expect(textOf(r).length).toBeLessThan(1400)
  })

  it('follows up to 5 redirects and refuses more', async () => {
    expect(await fetchText(`${base}/redirect?n=5`)).toContain(`URL: ${base}/text`)
    await expect(run(ctx, 'web_fetch', { url: `${base}/redirect?n=6` })).rejects.toThrow(/Too many redirects/)
  })

  it('refuses redirects to non-http schemes', async () => {
    await expect(run(ctx, 'web_fetch', { url: `${base}/to-file` })).rejects.toThrow(/Redirect to file: URL refused/)
    await expect(run(ctx, 'web_fetch', { url: `${base}/to-data` })).rejects.toThrow(/Redirect to data: URL refused/)
  })

  it('refuses non-http URLs and invalid URLs', async () => {
    await expect(run(ctx, 'web_fetch', { url: 'file:///etc/passwd' })).rejects.toThrow(/file: URL refused/)
    await expect(run(ctx, 'web_fetch', { url: 'data:text/plain,hello' })).rejects.toThrow(/data: URL refused/)
    await expect(run(ctx, 'web_fetch', { url: 'ftp://example.com/x' })).rejects.toThrow(/ftp: URL refused/)
    await expect(run(ctx, 'web_fetch', { url: 'javascript:alert(1)' })).rejects.toThrow(/refused/)
    await expect(run(ctx, 'web_fetch', { url: 'not a url' })).rejects.toThrow(/Invalid URL/)
  })

  it('times out on a server that never answers', async () => {
    const quick = makeCtx(sb.ws, { webFetch: { maxBytes: 1000, timeoutMs: 300, allowLoopback: true } })
    const started = Date.now()
    await expect(run(quick, 'web_fetch', { url: `${base}/hang` })).rejects.toThrow(/timed out after 300 ms/)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('honours the abort signal', async () => {
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 100)
    await expect(run(ctx, 'web_fetch', { url: `${base}/hang` }, { signal: ac.signal })).rejects.toThrow(/aborted/)
  })

  it('reports HTTP errors, unreachable hosts and binary content', async () => {
    await expect(run(ctx, 'web_fetch', { url: `${base}/missing` })).rejects.toThrow(/HTTP 404 Not Found .*Not here/)
    await expect(run(ctx, 'web_fetch', { url: `${base}/image` })).rejects.toThrow(/Unsupported content type "image\/png"/)
    const closed = http.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    await expect(run(ctx, 'web_fetch', { url: `http://127.0.0.1:${port}/` })).rejects.toThrow(/could not reach/)
  })
})

describe('web_fetch network policy', () => {
  const strict = () => makeCtx(sb.ws, { webFetch: { maxBytes: 100_000, timeoutMs: 3000 } })
  const REFUSED = /web_fetch refused .*blocked/

  it('refuses loopback in every spelling by default, before any connection is made', async () => {
    const before = hits
    const c = strict()
    const cases: Array<[string, RegExp]> = [
      [`${base}/text`, /127\.0\.0\.1 is a loopback \(this machine\) address/],
      [`http://localhost:${port}/text`, /"localhost" is this machine/],
      [`http://app.localhost:${port}/text`, /is this machine/],
      [`http://[::1]:${port}/text`, /::1 is a loopback/],
      [`http://0.0.0.0:${port}/text`, /0\.0\.0\.0 is an unspecified address/],
      [`http://2130706433:${port}/text`, /127\.0\.0\.1 is a loopback/], // decimal IPv4, normalized by the URL parser
      [`http://0x7f.1:${port}/text`, /127\.0\.0\.1 is a loopback/],
      [`http://[::ffff:127.0.0.1]:${port}/text`, /is a loopback/],
    ]
    for (const [url, why] of cases) {
      const err = (await run(c, 'web_fetch', { url }).catch((e) => e)) as Error
      expect(err, url).toBeInstanceOf(Error)
      expect(err.message, url).toMatch(REFUSED)
      expect(err.message, url).toMatch(why)
    }
    expect(hits).toBe(before)
  })

  it('refuses private, link-local (cloud metadata) and unique-local targets even with loopback allowed', async () => {
    const c = makeCtx(sb.ws, { webFetch: { maxBytes: 1000, timeoutMs: 20_000, allowLoopback: true } })
    const started = Date.now()
    for (const [url, why] of [
      ['http://10.0.0.1/', /private network/],
      ['http://172.16.5.4:8080/', /private network/],
      ['http://192.168.1.1/admin', /private network/],
      ['http://100.64.0.7/', /private network/],
      ['http://169.254.169.254/latest/meta-data/', /link-local address \(e\.g\. the cloud metadata service\)/],
      ['http://[fd12:3456::1]/', /unique-local/],
      ['http://[fe80::1]/', /link-local/],
      ['http://[::ffff:10.1.2.3]/', /private network/],
      ['http://224.0.0.251/', /multicast/],
    ] as const) {
      await expect(run(c, 'web_fetch', { url }), url).rejects.toThrow(why)
    }
    // refused without trying to connect (a connect to these would hang until the 20 s timeout)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('checks every redirect hop: a public-looking start cannot bounce into metadata or the LAN', async () => {
    const c = makeCtx(sb.ws, { webFetch: { maxBytes: 1000, timeoutMs: 20_000, allowLoopback: true } })
    const to = (u: string) => `${base}/to?u=${encodeURIComponent(u)}`
    await expect(run(c, 'web_fetch', { url: to('http://169.254.169.254/latest/meta-data/iam/') })).rejects.toThrow(
      /refused http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/: 169\.254\.169\.254 is a link-local/,
    )
    await expect(run(c, 'web_fetch', { url: to('http://192.168.0.10/') })).rejects.toThrow(/192\.168\.0\.10 is a private network address/)
  })

  it('a name is resolved once and the socket is pinned to the checked address (DNS rebinding)', async () => {
    // first answer: loopback (allowed here), every later answer: a private address
    const lookup = vi.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string) => {
      if (host !== 'rebind.test') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
      return lookup.mock.calls.length <= 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.9', family: 4 }]
    }) as never)
    const c = makeCtx(sb.ws, { webFetch: { maxBytes: 1000, timeoutMs: 3000, allowLoopback: true } })
    const t = textOf(await run(c, 'web_fetch', { url: `http://rebind.test:${port}/host` }))
    // the request went to the checked address (the OS resolver does not know rebind.test) with the original Host
    expect(t).toContain(`host=rebind.test:${port}`)
    expect(lookup).toHaveBeenCalledTimes(1)
    // the next resolution points into the LAN: refused, for a first hop and for a redirect hop alike
    await expect(run(c, 'web_fetch', { url: `http://rebind.test:${port}/host` })).rejects.toThrow(
      /rebind\.test resolves to 10\.0\.0\.9, a private network address/,
    )
    await expect(run(c, 'web_fetch', { url: `${base}/to?u=${encodeURIComponent(`http://rebind.test:${port}/host`)}` })).rejects.toThrow(
      /rebind\.test resolves to 10\.0\.0\.9/,
    )
  })

  it('a name with any blocked address among its answers is refused', async () => {
    vi.spyOn(dns.promises, 'lookup').mockImplementation((async () => [
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::5', family: 6 },
    ]) as never)
    await expect(run(strict(), 'web_fetch', { url: 'http://mixed.test/' })).rejects.toThrow(/mixed\.test resolves to fd00::5, a unique-local/)
  })

  it('decodes a gzip body', async () => {
    expect(await fetchText(`${base}/gzip`)).toMatch(/squeezed text$/)
  })

  it('classifies addresses', () => {
    expect(classifyAddress('8.8.8.8')).toBe('public')
    expect(classifyAddress('2606:4700::1111')).toBe('public')
    expect(classifyAddress('172.32.0.1')).toBe('public')
    expect(classifyAddress('64:ff9b::a00:1')).toBe('private') // NAT64 of 10.0.0.1
    expect(classifyAddress('2002:a9fe:a9fe::')).toBe('link-local') // 6to4 of 169.254.169.254
    expect(classifyAddress('fe80::1%eth0')).toBe('link-local')
    expect(classifyAddress('nope')).toBeUndefined()
    expect(blockReason('127.0.0.1', { allowLoopback: true })).toBeUndefined()
    expect(blockReason('10.0.0.1', { allowLoopback: true })).toBe('a private network address')
    expect(blockReason('10.0.0.1', { allowPrivateNetwork: true })).toBeUndefined()
    expect(blockReason('169.254.169.254', { allowLoopback: true, allowPrivateNetwork: true })).toMatch(/link-local/)
  })
})

describe('web_fetch through the environment\'s proxy', () => {
  let proxy: ForwardProxy
  const strict = () => makeCtx(sb.ws, { webFetch: { maxBytes: 100_000, timeoutMs: 3000 } })
  beforeAll(async () => {
    proxy = await startForwardProxy()
  })
  beforeEach(async () => {
    proxy.seen.length = 0
    proxy.refuseConnect = undefined
    await applyProxyEnv({ HTTP_PROXY: proxy.url.replace('http://', 'http://carol:pw@'), HTTPS_PROXY: proxy.url })
  })
  afterAll(async () => {
    await applyProxyEnv({})
    await proxy.close()
  })

  it('fetches a page only the proxy can reach (a name this machine does not resolve), with the credentials', async () => {
    const text = await fetchText(`http://site.test:${port}/text`, {}, strict())
    expect(text).toMatch(/plain {2}text\n {2}kept as is$/)
    expect(proxy.seen).toEqual([{ line: `GET http://site.test:${port}/text`, auth: `Basic ${Buffer.from('carol:pw').toString('base64')}` }])
  })

  it('the address policy still holds: blocked targets are refused before the proxy sees them', async () => {
    const c = strict()
    await expect(run(c, 'web_fetch', { url: `${base}/text` })).rejects.toThrow(/127\.0\.0\.1 is a loopback/)
    await expect(run(c, 'web_fetch', { url: 'http://10.0.0.1/' })).rejects.toThrow(/private network/)
    await expect(run(c, 'web_fetch', { url: 'http://169.254.169.254/latest/meta-data/' })).rejects.toThrow(/link-local/)
    // a name this machine resolves to a private address
    vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address: '192.168.7.7', family: 4 }] as never)
    await expect(run(c, 'web_fetch', { url: 'http://intranet.example/' })).rejects.toThrow(/resolves to 192\.168\.7\.7/)
    expect(proxy.seen).toEqual([])
  })

  it('https goes through a CONNECT tunnel; a proxy that refuses it is named in the error', async () => {
    proxy.refuseConnect = 407
    const err = (await run(strict(), 'web_fetch', { url: `https://site.test:${port}/text` }).catch((e) => e)) as Error
    expect(proxy.seen[0].line).toBe(`CONNECT site.test:${port}`)
    expect(err.message).toBe(
      `web_fetch could not fetch https://site.test:${port}/text: the proxy ${proxy.url} refused the connection to site.test:${port} (HTTP 407: proxy authentication required — put the credentials in the proxy URL)`,
    )
  })

  it('a proxy that is not running is named', async () => {
    const closed = http.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    await new Promise((r) => closed.close(r))
    await applyProxyEnv({ HTTP_PROXY: dead })
    await expect(run(strict(), 'web_fetch', { url: `http://site.test:${port}/text` })).rejects.toThrow(
      `web_fetch could not reach http://site.test:${port}/text through the proxy ${dead}: connect ECONNREFUSED`,
    )
  })
})

describe('html-text', () => {
  it('converts hostile pages in linear time (unclosed tags, comments, elements; long whitespace in <pre>)', () => {
    // each of these took 20 s and more at this size (≈ 1.4 s at 40 kB, growing with the square of the size): a
    // page the model fetched froze the main process; at web_fetch's 2 MB, for most of an hour
    const N = 200_000
    const pages = {
      lt: '<'.repeat(N),
      li: '<li'.repeat(N / 3),
      tags: '<a'.repeat(N / 2),
      svg: '<svg'.repeat(N / 4),
      comments: '<!--'.repeat(N / 4),
      scripts: '<script>'.repeat(N / 8),
      titles: '<title>'.repeat(N / 7),
      preSpaces: '<pre>' + ' '.repeat(N) + 'x</pre>',
    }
    for (const [name, html] of Object.entries(pages)) {
      const t0 = performance.now()
      htmlToText(html)
      extractTitle(html)
      expect({ name, slow: performance.now() - t0 > 2000 }).toEqual({ name, slow: false })
    }
  }, 300_000)

  it('keeps what the regex version did for ordinary markup', () => {
    expect(htmlToText('a<!-- c1 -->b<!--c2-->c<SCRIPT type="x">alert(1)</script >d<svg><g></g></svg>e<style>p{}</style>')).toBe('a b c d e')
    expect(htmlToText('<ul><li>one<li class="x">two</ul><!-- unclosed')).toBe('• one\n• two\n\n<!-- unclosed')
    expect(htmlToText('<pre>\n\n  kept\n   </pre>')).toBe('kept'.padStart(6))
    expect(extractTitle('<head><TITLE lang="en"> My &amp;\n Page </title><title>second</title>')).toBe('My & Page')
    expect(extractTitle('<title>never closed')).toBeUndefined()
  })

  it('decodes named and numeric entities, leaves unknown ones', () => {
    expect(decodeEntities('&amp;&lt;&gt;&quot;&#39;&#x41;&hellip;&bogus;&#0;')).toBe('&<>"\'A…&bogus;\uFFFD')
  })
  it('keeps block structure and collapses whitespace', () => {
    expect(htmlToText('<div>a\n\n\n   b</div><p>c</p><br>d<table><tr><td>x</td><td>y</td></tr></table>')).toBe('a b\n\nc\n\nd\n\nx y')
    expect(htmlToText('<p>before</p><pre>  line 1\n    line 2 &amp; <b>x</b></pre><p>after</p>')).toBe('before\n\n  line 1\n    line 2 & x\n\nafter')
  })
})
