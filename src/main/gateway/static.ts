// Browser mode: serves the built renderer from the gateway's own origin with a strict CSP.
// The page reads the token from the URL fragment (never sent to the server) and connects back over WS.
import { createReadStream, realpathSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { mimeType } from './mime'


export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "img-src 'self' data: blob:",
    "style-src 'self' 'unsafe-inline'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ')
}

export function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(port),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  }
}

export interface StaticOptions {
  /** built renderer directory; undefined = browser mode unavailable */
  staticDir?: string
  port: () => number
  /** Host header values accepted (DNS-rebinding guard); undefined = any */
  allowedHosts: () => Set<string> | undefined
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>) {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}

/** Resolves a URL path inside root; undefined when it would escape (.., encoded separators, NUL, symlinks). */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined
  const segments = decoded.split('/')
  if (segments.some((s) => s === '..')) return undefined
  const target = resolve(root, '.' + (decoded.startsWith('/') ? decoded : '/' + decoded))
  const rel = relative(root, target)
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined
  return target
}

function insideRealRoot(realRoot: string, file: string): boolean {
  try {
    const real = realpathSync(file)
    return real === realRoot || real.startsWith(realRoot + sep)
  } catch {
    return false
  }
}

export function createStaticHandler(opts: StaticOptions) {
  let realRoot: string | undefined
  if (opts.staticDir) {
    try {
      realRoot = realpathSync(opts.staticDir)
    } catch {
      realRoot = undefined
    }
  }

  return function handle(req: IncomingMessage, res: ServerResponse) {
    const headers = securityHeaders(opts.port())
    const hosts = opts.allowedHosts()
    if (hosts && !hosts.has((req.headers.host ?? '').toLowerCase())) {
      return send(res, 421, 'misdirected request: unknown Host\n', headers)
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(res, 405, 'method not allowed\n', { ...headers, Allow: 'GET, HEAD' })
    }
    const rawPath = (req.url ?? '/').split('?')[0].split('#')[0] || '/'
    if (rawPath === '/healthz') {
      const body = '{"ok":true}\n'
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': body.length })
      return res.end(req.method === 'HEAD' ? undefined : body)
    }
    if (!realRoot) return send(res, 404, 'the browser UI is not built (run `npm run build`)\n', headers)

    const target = resolveInside(realRoot, rawPath)
    if (!target) return send(res, 400, 'bad path\n', headers)

    let file = target
    let st = statOrUndefined(file)
    if (st?.isDirectory()) {
      file = join(file, 'index.html')
      st = statOrUndefined(file)
    }
    if (!st || !st.isFile()) {
      // SPA fallback: client-side routes (no extension) get index.html; missing assets stay 404.
      if (extname(rawPath) !== '') return send(res, 404, 'not found\n', headers)
      file = join(realRoot, 'index.html')
      st = statOrUndefined(file)
      if (!st || !st.isFile()) return send(res, 404, 'not found\n', headers)
    }
    if (!insideRealRoot(realRoot, file)) return send(res, 403, 'forbidden\n', headers)

    const type = mimeType(extname(file))
    const isHtml = type.startsWith('text/html')
    const immutable = !isHtml && relative(realRoot, file).startsWith('assets' + sep)
    res.writeHead(200, {
      ...headers,
      'Content-Type': type,
      'Content-Length': st.size,
      'Cache-Control': isHtml ? 'no-store' : immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    })
    if (req.method === 'HEAD') return res.end()
    const stream = createReadStream(file)
    stream.on('error', () => res.destroy())
    stream.pipe(res)
  }
}

function statOrUndefined(p: string) {
  try {
    return statSync(p)
  } catch {
    return undefined
  }
}
