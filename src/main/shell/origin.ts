// The app's own origin. Production content is served from a privileged custom scheme (never file:// or a
// remote URL), so the renderer has a real, stable origin that CSP 'self' and sender checks can rely on.
export const APP_SCHEME = 'app'
export const APP_HOST = 'loopdesk'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`

export interface OriginPolicy {
  /** dev server origin (http://localhost:5173) when running unpackaged under electron-vite dev */
  devOrigin?: string
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * True when `url` belongs to the app: app://loopdesk/... or, in dev only, the dev server origin.
 * Compared field by field on a parsed URL (Node reports origin "null" for non-special schemes, and a
 * prefix test would accept app://loopdesk.evil or http://localhost:5173@evil).
 */
export function isAppUrl(url: string, policy: OriginPolicy = {}): boolean {
  const u = parse(url)
  if (!u || u.username || u.password) return false
  if (u.protocol === `${APP_SCHEME}:`) return u.hostname === APP_HOST && u.port === ''
  if (policy.devOrigin && (u.protocol === 'http:' || u.protocol === 'https:')) return u.origin === policy.devOrigin
  return false
}

/**
 * The dev server origin, only for an unpackaged app with ELECTRON_RENDERER_URL set to an http(s) URL on
 * a loopback host; anything else is ignored so a packaged build can never be pointed at a remote page.
 */
export function devServerOrigin(env: NodeJS.ProcessEnv, isPackaged: boolean): string | undefined {
  const raw = env.ELECTRON_RENDERER_URL
  if (isPackaged || !raw) return undefined
  const u = parse(raw)
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) return undefined
  if (!['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) return undefined
  return u.origin
}
