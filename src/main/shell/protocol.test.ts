import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import { createAppProtocolHandler, registerAppScheme, resolveAppPath, serveAppProtocol } from './protocol'
import { contentSecurityPolicy } from './security'
import { fake, resetFake } from './testing/fake-electron'

let base: string
let root: string

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'loopdesk-proto-'))
  root = join(base, 'renderer')
  mkdirSync(join(root, 'assets'), { recursive: true })
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Loopdesk</title>')
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(base, 'secret.txt'), 'SECRET')
  symlinkSync(join(base, 'secret.txt'), join(root, 'assets', 'link.txt'))
})
afterAll(() => rmSync(base, { recursive: true, force: true }))
beforeEach(() => resetFake())

describe('app:// scheme', () => {
  it('is registered as a privileged standard, secure scheme and handled from the renderer dir', () => {
    registerAppScheme()
    const [schemes] = fake.protocol.registerSchemesAsPrivileged.mock.calls[0] as any
    expect(schemes).toEqual([expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) })])
    expect(schemes[0].privileges.bypassCSP).toBeUndefined()
    expect(schemes[0].privileges.corsEnabled).toBeUndefined()
    serveAppProtocol(root)
    expect(fake.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function))
  })
})

describe('resolveAppPath', () => {
  it('maps app URLs into the root', () => {
    expect(resolveAppPath(root, 'app://loopdesk/')).toBe(join(root, 'index.html'))
    expect(resolveAppPath(root, 'app://loopdesk/assets/app.js')).toBe(join(root, 'assets', 'app.js'))
    expect(resolveAppPath(root, 'app://loopdesk/assets/app.js?v=1#x')).toBe(join(root, 'assets', 'app.js'))
  })

  it('refuses anything that escapes the root or is not our host', () => {
    for (const url of [
      'app://loopdesk/../secret.txt',
      'app://loopdesk/%2e%2e/secret.txt',
      'app://loopdesk/assets/%2e%2e/%2e%2e/secret.txt',
      'app://loopdesk/..%2fsecret.txt',
      'app://loopdesk/..%5csecret.txt',
      'app://loopdesk/%2fetc%2fpasswd',
      'app://loopdesk/index.html%00.js',
      'app://loopdesk/%E0%A4%A',
      'app://other/index.html',
      'app://loopdesk:8080/index.html',
      'https://loopdesk/index.html',
      'not a url',
    ]) {
      const p = resolveAppPath(root, url)
      if (p !== undefined) expect(p.startsWith(root + '/'), url).toBe(true)
      expect(p, url).not.toBe(join(base, 'secret.txt'))
    }
    expect(resolveAppPath(root, 'app://other/index.html')).toBeUndefined()
    expect(resolveAppPath(root, 'app://loopdesk/..%2fsecret.txt')).toBeUndefined()
    expect(resolveAppPath(root, 'app://loopdesk/index.html%00.js')).toBeUndefined()
  })
})

describe('protocol handler', () => {
  const get = (url: string, method = 'GET') => createAppProtocolHandler(root)(new Request(url, { method }))

  it('serves files with MIME type and the strict CSP', async () => {
    const res = await get('app://loopdesk/index.html')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await res.text()).toContain('<title>Loopdesk</title>')
    const js = await get('app://loopdesk/assets/app.js')
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect((await get('app://loopdesk/')).status).toBe(200)
  })

  it('404s for traversal, missing files, directories and symlinks leading outside', async () => {
    for (const url of ['app://loopdesk/../secret.txt', 'app://loopdesk/%2e%2e/secret.txt', 'app://loopdesk/nope.js', 'app://loopdesk/assets', 'app://loopdesk/assets/link.txt']) {
      const res = await get(url)
      expect(res.status, url).toBe(404)
      expect(await res.text()).not.toContain('SECRET')
      expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
    }
  })

  it('only allows GET and HEAD', async () => {
    expect((await get('app://loopdesk/index.html', 'POST')).status).toBe(405)
    const head = await get('app://loopdesk/index.html', 'HEAD')
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })
})
