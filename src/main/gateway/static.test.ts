import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveInside } from './static'
import { startTestGateway, type TestGateway } from './test-support'

let t: TestGateway
let site: string
let secretDir: string

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'loopdesk-site-'))
  secretDir = mkdtempSync(join(tmpdir(), 'loopdesk-secret-'))
  writeFileSync(join(secretDir, 'secret.txt'), 'TOP SECRET')
  mkdirSync(join(site, 'assets'))
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>Loopdesk</title>')
  writeFileSync(join(site, 'assets', 'app-abc123.js'), 'console.log(1)')
  writeFileSync(join(site, 'assets', 'style.css'), 'body{}')
  symlinkSync(join(secretDir, 'secret.txt'), join(site, 'link.txt'))
  t = await startTestGateway({}, { staticDir: site })
})
afterAll(async () => {
  await t.stop()
  rmSync(site, { recursive: true, force: true })
  rmSync(secretDir, { recursive: true, force: true })
})

function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    // raw path (no URL normalization) so traversal attempts reach the server as written
    const req = request({ host: '127.0.0.1', port: t.gw.port, path, method, headers: { Host: `127.0.0.1:${t.gw.port}`, ...headers } }, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('browser mode static serving', () => {
  it('serves index.html with a strict CSP and nosniff', async () => {
    const r = await get('/')
    expect(r.status).toBe(200)
    expect(r.body).toContain('<title>Loopdesk</title>')
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
    const csp = String(r.headers['content-security-policy'])
    const port = t.gw.port
    expect(csp).toBe(
      `default-src 'self'; connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}; img-src 'self' data: blob:; ` +
        "style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'",
    )
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect(r.headers['x-frame-options']).toBe('DENY')
    expect(r.headers['referrer-policy']).toBe('no-referrer')
    expect(r.headers['cache-control']).toBe('no-store')
  })

  it('serves assets with their content type and long caching', async () => {
    const js = await get('/assets/app-abc123.js')
    expect(js.status).toBe(200)
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(js.headers['cache-control']).toContain('immutable')
    expect((await get('/assets/style.css')).headers['content-type']).toBe('text/css; charset=utf-8')
  })

  it('falls back to index.html for client routes but 404s missing assets', async () => {
    const route = await get('/sessions/agent:main:main')
    expect(route.status).toBe(200)
    expect(route.body).toContain('Loopdesk')
    expect((await get('/assets/missing.js')).status).toBe(404)
  })

  it('refuses path traversal (plain, encoded, double-encoded, backslash, NUL) and symlinks out of the root', async () => {
    for (const p of ['/../secret.txt', '/assets/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd', '/%252e%252e/etc/passwd', '/..\\..\\etc\\passwd', '/index.html%00.js', '/%E0%A4%A']) {
      const r = await get(p)
      // either refused, or (double-encoded: a literal "%2e%2e" name) answered with the SPA's index
      if (r.status === 200) expect(r.body, p).toContain('<title>Loopdesk</title>')
      else expect(r.status, p).toBeGreaterThanOrEqual(400)
      expect(r.body).not.toContain('root:')
    }
    const link = await get('/link.txt')
    expect(link.status).toBe(403)
    expect(link.body).not.toContain('TOP SECRET')
  })

  it('rejects unknown Host headers (DNS rebinding) and non-GET methods', async () => {
    expect((await get('/', { Host: 'evil.example:80' })).status).toBe(421)
    expect((await get('/', { Host: `localhost:${t.gw.port}` })).status).toBe(200)
    expect((await get('/', {}, 'POST')).status).toBe(405)
    const head = await get('/', {}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
  })

  it('/healthz answers without auth and without details', async () => {
    const r = await get('/healthz')
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ ok: true })
  })

  it('resolveInside keeps paths inside the root', () => {
    expect(resolveInside('/srv/site', '/a/b.js')).toBe('/srv/site/a/b.js')
    expect(resolveInside('/srv/site', '/../x')).toBeUndefined()
    expect(resolveInside('/srv/site', '/%2e%2e/x')).toBeUndefined()
    expect(resolveInside('/srv/site', '/a%00b')).toBeUndefined()
    expect(resolveInside('/srv/site', '/%zz')).toBeUndefined()
  })
})

describe('static serving without a built renderer', () => {
  it('explains that the UI is not built', async () => {
    const g = await startTestGateway({}, { staticDir: join(tmpdir(), 'does-not-exist-loopdesk') })
    try {
      const res = await fetch(`${g.gw.httpUrl}/`)
      expect(res.status).toBe(404)
      expect(await res.text()).toMatch(/not built/)
    } finally {
      await g.stop()
    }
  })
})
