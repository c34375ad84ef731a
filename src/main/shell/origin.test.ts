import { describe, expect, it } from 'vitest'
import { devServerOrigin, isAppUrl } from './origin'

describe('isAppUrl', () => {
  it('accepts only app://loopdesk', () => {
    expect(isAppUrl('app://loopdesk/index.html')).toBe(true)
    expect(isAppUrl('app://loopdesk')).toBe(true)
    for (const u of [
      'app://loopdesk.evil/index.html',
      'app://evil/loopdesk',
      'app://user@loopdesk/',
      'app://loopdesk:1/',
      'http://loopdesk/',
      'file:///index.html',
      'http://localhost:5173/',
      'about:blank',
      '',
      'garbage',
    ]) {
      expect(isAppUrl(u), u).toBe(false)
    }
  })

  it('accepts the dev origin only when configured, by exact origin', () => {
    const policy = { devOrigin: 'http://localhost:5173' }
    expect(isAppUrl('http://localhost:5173/src/main.tsx', policy)).toBe(true)
    expect(isAppUrl('http://localhost:5173@evil.example/', policy)).toBe(false)
    expect(isAppUrl('http://localhost:51730/', policy)).toBe(false)
    expect(isAppUrl('https://localhost:5173/', policy)).toBe(false)
  })
})

describe('devServerOrigin', () => {
  it('is used only unpackaged, for loopback http(s) URLs', () => {
    expect(devServerOrigin({ ELECTRON_RENDERER_URL: 'http://localhost:5173/' }, false)).toBe('http://localhost:5173')
    expect(devServerOrigin({ ELECTRON_RENDERER_URL: 'http://localhost:5173/' }, true)).toBeUndefined()
    expect(devServerOrigin({ ELECTRON_RENDERER_URL: 'https://evil.example/' }, false)).toBeUndefined()
    expect(devServerOrigin({ ELECTRON_RENDERER_URL: 'file:///x' }, false)).toBeUndefined()
    expect(devServerOrigin({}, false)).toBeUndefined()
  })
})
