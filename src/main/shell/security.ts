// Security baseline for every web contents and the default session (Electron security checklist items
// 5, 7, 11–15): strict CSP header, no navigation away from the app, no new windows, no webviews,
// permission requests denied, external links only as parsed http(s) URLs handed to the OS browser.
import { app, shell, type Session, type WebContents } from 'electron'
import { isAppUrl, type OriginPolicy } from './origin'

/** CSP for app content. No 'unsafe-eval', no remote script/connect sources, no frames, no plugins. */
export function contentSecurityPolicy(policy: OriginPolicy = {}): string {
  const dev = policy.devOrigin
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    // The dev server injects an inline React refresh preamble; only an unpackaged dev run gets it.
    'script-src': dev ? ["'self'", "'unsafe-inline'", dev] : ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'], // blob: attachment thumbnails (object URLs of picked files)
    'font-src': ["'self'", 'data:'],
    'connect-src': dev ? ["'self'", dev, dev.replace(/^http/, 'ws')] : ["'self'"],
    'worker-src': ["'self'"],
    'object-src': ["'none'"],
    'frame-src': ["'none'"],
    'base-uri': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'none'"],
  }
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ')
}

/** Headers every app response carries (the custom protocol sets them too, see protocol.ts). */
export function securityHeaders(policy: OriginPolicy = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(policy),
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
  }
}

/** Replaces any CSP the response had (any header casing) with ours. */
export function withSecurityHeaders(
  headers: Record<string, string[]> | undefined,
  policy: OriginPolicy = {},
): Record<string, string[]> {
  const ours = securityHeaders(policy)
  const oursLower = new Set(Object.keys(ours).map((k) => k.toLowerCase()))
  const out: Record<string, string[]> = {}
  for (const [k, v] of Object.entries(headers ?? {})) {
    const lower = k.toLowerCase()
    if (oursLower.has(lower) || lower === 'content-security-policy-report-only') continue
    out[k] = v
  }
  for (const [k, v] of Object.entries(ours)) out[k] = [v]
  return out
}

/** Permissions granted to app content; everything else (camera, geolocation, notifications, …) is denied. */
const ALLOWED_PERMISSIONS = new Set<string>([
  // navigator.clipboard.writeText for the "copy" buttons (sanitized write only; reading stays denied).
  'clipboard-sanitized-write',
])

export function isPermissionAllowed(permission: string, requestingUrl: string, policy: OriginPolicy): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl, policy)
}

/** CSP on every response and the permission handlers of a session. */
export function secureSession(session: Session, policy: OriginPolicy = {}): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withSecurityHeaders(details.responseHeaders, policy) })
  })
  session.setPermissionRequestHandler((_wc, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl, policy))
  })
  session.setPermissionCheckHandler((_wc, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, policy),
  )
  session.setDevicePermissionHandler(() => false)
}

/**
 * Opens a link in the OS browser only when it parses as an http(s) URL without credentials.
 * Returns whether it was opened. Other schemes (file:, javascript:, smb:, custom handlers) are refused
 * because openExternal would hand them to arbitrary OS handlers.
 */
export function openExternalSafely(raw: string): boolean {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return false
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || !u.hostname) return false
  void shell.openExternal(u.href).catch(() => {})
  return true
}

/** Navigation, popup and webview guards for one web contents. */
export function guardWebContents(contents: WebContents, policy: OriginPolicy = {}): void {
  contents.on('will-navigate', (event) => {
    if (event.isMainFrame && isAppUrl(event.url, policy)) return
    event.preventDefault()
    // A clicked plain link should still work: hand it to the browser instead of navigating the app.
    if (event.isMainFrame) openExternalSafely(event.url)
  })
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame && isAppUrl(event.url, policy)) return
    event.preventDefault()
  })
  contents.on('will-redirect', (event) => {
    if (isAppUrl(event.url, policy)) return
    event.preventDefault()
  })
  contents.setWindowOpenHandler(({ url }) => {
    openExternalSafely(url)
    return { action: 'deny' }
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}

/** Applies the guards to every web contents ever created (the main window and anything unexpected). */
export function guardAllWebContents(policy: OriginPolicy = {}): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, policy))
}
