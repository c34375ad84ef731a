// Serves the built renderer from app://loopdesk/ (a privileged standard scheme, so the page has a real
// origin, fetch works, and nothing is loaded from file:// or a remote URL in production).
import { realpath, readFile, stat } from 'node:fs/promises'
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { protocol } from 'electron'
import { APP_HOST, APP_SCHEME } from './origin'
import { securityHeaders } from './security'
import { mimeType } from '../gateway/mime'

/**
 * Must run before app 'ready' (Electron only accepts privileged schemes then). standard+secure give the
 * page a real origin in a secure context; supportFetchAPI lets it fetch its own files. corsEnabled (which
 * would make the scheme readable cross-origin) and bypassCSP are deliberately not granted.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ])
}


function plain(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders() },
  })
}

/**
 * Maps a request URL to a file inside rootDir, or undefined when the URL is not ours or would escape
 * rootDir (../, encoded %2e%2e, backslashes, NUL bytes, absolute paths).
 */
export function resolveAppPath(rootDir: string, url: string): string | undefined {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return undefined
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.hostname !== APP_HOST || u.port || u.username || u.password) return undefined
  let pathname: string
  try {
    pathname = decodeURIComponent(u.pathname)
  } catch {
    return undefined
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined
  if (pathname === '/' || pathname === '') pathname = '/index.html'
  const root = resolve(rootDir)
  const file = resolve(join(root, pathname))
  const rel = relative(root, file)
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) return undefined
  return file
}

/** The protocol.handle handler: GET/HEAD of files under rootDir with MIME type and security headers. */
export function createAppProtocolHandler(rootDir: string): (request: Request) => Promise<Response> {
  const rootReal = realpath(rootDir).catch(() => resolve(rootDir))
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed')
    const file = resolveAppPath(rootDir, request.url)
    if (!file) return plain(404, 'not found')
    try {
      // A symlink inside the bundle must not lead outside it either.
      const [real, root] = await Promise.all([realpath(file), rootReal])
      if (real !== root && !real.startsWith(root + sep)) return plain(404, 'not found')
      const st = await stat(real)
      if (!st.isFile()) return plain(404, 'not found')
      const body = request.method === 'HEAD' ? null : await readFile(real)
      return new Response(body, {
        status: 200,
        headers: {
          'Content-Type': mimeType(extname(real)),
          'Content-Length': String(st.size),
          'Cache-Control': 'no-cache',
          ...securityHeaders(),
        },
      })
    } catch {
      return plain(404, 'not found')
    }
  }
}

export function serveAppProtocol(rootDir: string): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rootDir))
}
