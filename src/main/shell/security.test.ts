import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import {
  contentSecurityPolicy,
  guardAllWebContents,
  guardWebContents,
  isPermissionAllowed,
  openExternalSafely,
  secureSession,
  withSecurityHeaders,
} from './security'
import { fake, FakeWebContents, resetFake } from './testing/fake-electron'

beforeEach(() => resetFake())

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((p) => p[0])
      .map(([name, ...values]) => [name, values]),
  )
}

describe('Content-Security-Policy', () => {
  it('is strict in production', () => {
    const d = directives(contentSecurityPolicy())
    expect(d.get('default-src')).toEqual(["'self'"])
    expect(d.get('script-src')).toEqual(["'self'"])
    expect(d.get('connect-src')).toEqual(["'self'"])
    expect(d.get('object-src')).toEqual(["'none'"])
    expect(d.get('base-uri')).toEqual(["'none'"])
    expect(d.get('frame-ancestors')).toEqual(["'none'"])
    expect(d.get('form-action')).toEqual(["'none'"])
    expect(d.get('frame-src')).toEqual(["'none'"])
    const all = [...d.values()].flat()
    expect(all).not.toContain("'unsafe-eval'")
    expect(all).not.toContain("'wasm-unsafe-eval'")
    expect(all.filter((v) => /^(https?:|wss?:|\*)/.test(v) || v === 'https:' || v === '*')).toEqual([])
    // 'unsafe-inline' only for styles (React inline style props), never for scripts
    expect(d.get('script-src')).not.toContain("'unsafe-inline'")
  })

  it('only widens for the loopback dev server in dev', () => {
    const d = directives(contentSecurityPolicy({ devOrigin: 'http://localhost:5173' }))
    expect(d.get('script-src')).toContain('http://localhost:5173')
    expect(d.get('connect-src')).toContain('ws://localhost:5173')
    expect([...d.values()].flat()).not.toContain("'unsafe-eval'")
  })

  it('replaces any CSP of a response (any header casing) with ours', () => {
    const out = withSecurityHeaders({
      'content-security-policy': ["default-src *; script-src * 'unsafe-eval'"],
      'Content-Security-Policy-Report-Only': ['default-src *'],
      'X-Other': ['kept'],
    })
    const cspKeys = Object.keys(out).filter((k) => k.toLowerCase().startsWith('content-security-policy'))
    expect(cspKeys).toEqual(['Content-Security-Policy'])
    expect(out['Content-Security-Policy']).toEqual([contentSecurityPolicy()])
    expect(out['X-Other']).toEqual(['kept'])
    expect(out['X-Content-Type-Options']).toEqual(['nosniff'])
  })

  it('is set on every response of the default session', () => {
    secureSession(fake.session.defaultSession as any)
    const listener = fake.session.defaultSession.webRequest.onHeadersReceived.mock.calls[0][0] as any
    for (const url of ['app://loopdesk/index.html', 'https://example.com/x.js', 'http://127.0.0.1:5173/']) {
      const cb = vi.fn()
      listener({ url, responseHeaders: { 'Content-Type': ['text/html'] } }, cb)
      const headers = cb.mock.calls[0][0].responseHeaders
      expect(headers['Content-Security-Policy']).toEqual([contentSecurityPolicy()])
      expect(headers['Content-Type']).toEqual(['text/html'])
    }
  })
})

describe('permissions', () => {
  it('denies every permission request and check (except sanitized clipboard write for the app itself)', () => {
    secureSession(fake.session.defaultSession as any)
    const request = fake.session.defaultSession.setPermissionRequestHandler.mock.calls[0][0] as any
    const check = fake.session.defaultSession.setPermissionCheckHandler.mock.calls[0][0] as any
    const device = fake.session.defaultSession.setDevicePermissionHandler.mock.calls[0][0] as any
    for (const perm of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen', 'midiSysex', 'hid', 'unknown']) {
      const cb = vi.fn()
      request({}, perm, cb, { requestingUrl: 'app://loopdesk/index.html' })
      expect(cb, perm).toHaveBeenCalledWith(false)
      expect(check({}, perm, 'app://loopdesk', {}), perm).toBe(false)
    }
    expect(device({ deviceType: 'usb', origin: 'app://loopdesk' })).toBe(false)
    const cb = vi.fn()
    request({}, 'clipboard-sanitized-write', cb, { requestingUrl: 'https://evil.example/' })
    expect(cb).toHaveBeenCalledWith(false)
    expect(check({}, 'clipboard-sanitized-write', 'https://evil.example', {})).toBe(false)
    expect(check({}, 'clipboard-sanitized-write', 'app://loopdesk', {})).toBe(true)
  })

  it('allow-list is per origin', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', 'app://loopdesk.evil', {})).toBe(false)
    expect(isPermissionAllowed('media', 'app://loopdesk', {})).toBe(false)
  })
})

describe('external links', () => {
  it('opens only parsed http(s) URLs with shell.openExternal', () => {
    expect(openExternalSafely('https://example.com/a?b=c')).toBe(true)
    expect(openExternalSafely('http://example.com')).toBe(true)
    for (const bad of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-msdt:/id',
      'vscode://x',
      'data:text/html,<b>',
      'https://user:pass@example.com/',
      'not a url',
      '',
      'app://loopdesk/index.html',
    ]) {
      expect(openExternalSafely(bad), bad).toBe(false)
    }
    expect(fake.shell.openExternal.mock.calls.map((c) => c[0])).toEqual(['https://example.com/a?b=c', 'http://example.com/'])
  })
})

describe('web contents guards', () => {
  let wc: FakeWebContents
  beforeEach(() => {
    wc = new FakeWebContents()
    guardWebContents(wc as any)
  })

  it('denies navigation away from the app origin', () => {
    expect(wc.navigate('will-navigate', 'https://evil.example/')).toBe(true)
    expect(wc.navigate('will-navigate', 'file:///etc/passwd')).toBe(true)
    expect(wc.navigate('will-navigate', 'app://loopdesk.evil/')).toBe(true)
    expect(wc.navigate('will-navigate', 'app://loopdesk/index.html')).toBe(false)
    expect(wc.navigate('will-redirect', 'https://evil.example/')).toBe(true)
    expect(wc.navigate('will-frame-navigate', 'https://evil.example/', false)).toBe(true)
    expect(wc.navigate('will-frame-navigate', 'app://loopdesk/index.html', false)).toBe(true)
    expect(wc.navigate('will-frame-navigate', 'app://loopdesk/index.html', true)).toBe(false)
  })

  it('hands a clicked http(s) link to the browser instead, and nothing else', () => {
    wc.navigate('will-navigate', 'https://docs.example/page')
    wc.navigate('will-navigate', 'file:///etc/passwd')
    wc.navigate('will-redirect', 'https://redirect.example/')
    expect(fake.shell.openExternal.mock.calls.map((c) => c[0])).toEqual(['https://docs.example/page'])
  })

  it('denies window.open, opening http(s) targets externally', () => {
    expect(wc.windowOpenHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' })
    expect(wc.windowOpenHandler!({ url: 'app://loopdesk/index.html' })).toEqual({ action: 'deny' })
    expect(wc.windowOpenHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' })
    expect(fake.shell.openExternal.mock.calls.map((c) => c[0])).toEqual(['https://example.com/'])
  })

  it('refuses to attach webviews', () => {
    expect(wc.attachWebview()).toBe(true)
  })

  it('applies to every web contents created later', () => {
    guardAllWebContents()
    const other = new FakeWebContents('about:blank')
    fake.app.emit('web-contents-created', {}, other)
    expect(other.navigate('will-navigate', 'https://evil.example/')).toBe(true)
    expect(other.windowOpenHandler!({ url: 'https://x.example/' })).toEqual({ action: 'deny' })
    expect(other.attachWebview()).toBe(true)
  })
})
