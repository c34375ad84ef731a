import { afterEach, describe, expect, it, vi } from 'vitest'
import { proxyUrlFromPac, withSystemProxy } from './system-proxy'

afterEach(() => vi.restoreAllMocks())

describe('proxyUrlFromPac', () => {
  it('takes the first usable entry of a PAC answer', () => {
    expect(proxyUrlFromPac('PROXY proxy.corp:3128; DIRECT')).toBe('http://proxy.corp:3128')
    expect(proxyUrlFromPac('HTTPS secure.corp:443')).toBe('https://secure.corp:443')
    expect(proxyUrlFromPac('SOCKS5 127.0.0.1:1080')).toBe('socks5://127.0.0.1:1080')
    expect(proxyUrlFromPac('SOCKS4 old:1080; PROXY p:8080')).toBe('http://p:8080')
    expect(proxyUrlFromPac('PROXY [fd00::5]:3128')).toBe('http://[fd00::5]:3128')
  })
  it('DIRECT, empty or unusable answers mean no proxy', () => {
    expect(proxyUrlFromPac('DIRECT')).toBeUndefined()
    expect(proxyUrlFromPac('DIRECT; PROXY p:1')).toBeUndefined()
    expect(proxyUrlFromPac('')).toBeUndefined()
    expect(proxyUrlFromPac('PROXY not a host')).toBeUndefined()
    expect(proxyUrlFromPac('SOCKS4 s:1080')).toBeUndefined()
  })
})

describe('withSystemProxy', () => {
  const pac = (answers: Record<string, string>) => vi.fn(async (url: string) => answers[new URL(url).protocol] ?? 'DIRECT')

  it('adds the system proxy per scheme to a copy of the environment', async () => {
    const env = { PATH: '/bin' }
    const out = await withSystemProxy(env, pac({ 'https:': 'PROXY corp:3128; DIRECT', 'http:': 'PROXY corp:3128' }))
    expect(out).toEqual({ PATH: '/bin', HTTPS_PROXY: 'http://corp:3128', HTTP_PROXY: 'http://corp:3128' })
    expect(env).toEqual({ PATH: '/bin' })
    expect(await withSystemProxy(env, pac({}))).toBe(env)
  })

  it('an environment proxy wins: the system is not even asked', async () => {
    const ask = pac({ 'https:': 'PROXY corp:3128' })
    for (const env of [{ https_proxy: 'http://mine:1' }, { HTTP_PROXY: 'http://mine:1' }, { ALL_PROXY: 'socks5://s:1' }]) {
      expect(await withSystemProxy(env, ask)).toBe(env)
    }
    expect(ask).not.toHaveBeenCalled()
    // an empty variable names nothing
    expect((await withSystemProxy({ HTTPS_PROXY: ' ' }, ask)).HTTPS_PROXY).toBe('http://corp:3128')
  })

  it('a failing or hanging lookup leaves the environment as it was, with one warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const env = { PATH: '/bin' }
    expect(await withSystemProxy(env, async () => Promise.reject(new Error('no session')))).toBe(env)
    expect(await withSystemProxy(env, () => new Promise<string>(() => {}), 20)).toBe(env)
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      '[network] could not read the system proxy settings (no session); requests go direct',
      '[network] could not read the system proxy settings (timed out); requests go direct',
    ])
  })
})
