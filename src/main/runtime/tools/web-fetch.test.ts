import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { decodeEntities, htmlToText } from './html-text'
import { makeCtx, makeSandbox, run, textOf, type Sandbox, type TestCtx } from './test-helpers'

let server: http.Server
let base: string
const hanging = new Set<http.ServerResponse>()

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    switch (url.pathname) {
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
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const res of hanging) res.destroy()
  await new Promise((r) => server.close(r))
})

let sb: Sandbox
let ctx: TestCtx
beforeEach(() => {
  sb = makeSandbox()
  ctx = makeCtx(sb.ws, { webFetch: { maxBytes: 200_000, timeoutMs: 3000 } })
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

  it('passes JSON (pretty-printed) and text through, decoding the charset', async () => {
    expect(await fetchText(`${base}/json`)).toContain('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}')
    expect(await fetchText(`${base}/text`)).toMatch(/plain {2}text\n {2}kept as is$/)
    expect(await fetchText(`${base}/latin1`)).toMatch(/café$/)
  })

  it('stops downloading at the byte cap', async () => {
    const small = makeCtx(sb.ws, { webFetch: { maxBytes: 50_000, timeoutMs: 5000 } })
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
    const quick = makeCtx(sb.ws, { webFetch: { maxBytes: 1000, timeoutMs: 300 } })
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

describe('html-text', () => {
  it('decodes named and numeric entities, leaves unknown ones', () => {
    expect(decodeEntities('&amp;&lt;&gt;&quot;&#39;&#x41;&hellip;&bogus;&#0;')).toBe('&<>"\'A…&bogus;\uFFFD')
  })
  it('keeps block structure and collapses whitespace', () => {
    expect(htmlToText('<div>a\n\n\n   b</div><p>c</p><br>d<table><tr><td>x</td><td>y</td></tr></table>')).toBe('a b\n\nc\n\nd\n\nx y')
    expect(htmlToText('<p>before</p><pre>  line 1\n    line 2 &amp; <b>x</b></pre><p>after</p>')).toBe('before\n\n  line 1\n    line 2 & x\n\nafter')
  })
})
