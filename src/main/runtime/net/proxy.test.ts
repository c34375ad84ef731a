import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startForwardProxy, type ForwardProxy } from '../../../../test/fixtures/forward-proxy'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig } from '../../../../test/fixtures/test-runtime'
import { applyProxyEnv, describeProxySettings, noProxyMatches, proxyFor, proxyFromEnv } from './proxy'

const settingsOf = (env: NodeJS.ProcessEnv) => proxyFromEnv(env).settings

describe('proxy settings from the environment', () => {
  it('reads lower-case names first, and https falls back to the http proxy', () => {
    const s = settingsOf({ http_proxy: 'http://low:1', HTTP_PROXY: 'http://up:2' })!
    expect(s.http?.host).toBe('low:1')
    expect(s.https?.host).toBe('low:1')
    expect(s.source).toEqual({ http: 'http_proxy', https: 'http_proxy' })
    const both = settingsOf({ HTTPS_PROXY: 'http://secure:3', HTTP_PROXY: 'http://plain:4' })!
    expect([both.https?.host, both.http?.host]).toEqual(['secure:3', 'plain:4'])
    // only an https proxy: http goes direct
    const onlyHttps = settingsOf({ HTTPS_PROXY: 'http://secure:3' })!
    expect(onlyHttps.http).toBeUndefined()
    expect(proxyFor(new URL('http://example.com/'), onlyHttps)).toBeUndefined()
  })

  it('takes ALL_PROXY, a bare host:port and socks5; reports what it cannot use', () => {
    expect(settingsOf({ ALL_PROXY: 'socks5://s:1080' })!.https?.href).toBe('socks5://s:1080')
    expect(settingsOf({ HTTPS_PROXY: 'proxy.corp:3128' })!.https?.href).toBe('http://proxy.corp:3128/')
    expect(settingsOf({})).toBeUndefined()
    expect(settingsOf({ HTTPS_PROXY: '  ' })).toBeUndefined()
    const bad = proxyFromEnv({ HTTPS_PROXY: 'http://[nope', HTTP_PROXY: 'ftp://f:21' })
    expect(bad.settings).toBeUndefined()
    expect(bad.problems.map((p) => p.message)).toEqual([
      'HTTP_PROXY: ftp proxies are not supported (http, https or socks5); requests go direct',
      'HTTPS_PROXY is not a URL; requests go direct',
    ])
  })

  it('NO_PROXY: hosts with their subdomains, ports, IPs, and * for all', () => {
    const no = 'example.com, .corp.net,*.internal ,10.0.0.7,[::2]:8080,api.x:8443'
    expect(noProxyMatches(no, 'example.com', 443)).toBe(true)
    expect(noProxyMatches(no, 'api.example.com', 443)).toBe(true)
    expect(noProxyMatches(no, 'notexample.com', 443)).toBe(false)
    expect(noProxyMatches(no, 'corp.net', 443)).toBe(true)
    expect(noProxyMatches(no, 'git.corp.net', 443)).toBe(true)
    expect(noProxyMatches(no, 'a.internal', 80)).toBe(true)
    expect(noProxyMatches(no, '10.0.0.7', 80)).toBe(true)
    expect(noProxyMatches(no, '10.0.0.8', 80)).toBe(false)
    expect(noProxyMatches(no, '[::2]', 8080)).toBe(true)
    expect(noProxyMatches(no, '[::2]', 80)).toBe(false)
    expect(noProxyMatches(no, 'api.x', 8443)).toBe(true)
    expect(noProxyMatches(no, 'api.x', 443)).toBe(false)
    expect(noProxyMatches('*', 'anything', 1)).toBe(true)
    expect(noProxyMatches('', 'anything', 1)).toBe(false)
  })

  it('never proxies loopback: a proxy would reach its own machine, not this one', () => {
    const s = settingsOf({ HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1' })!
    for (const u of ['http://localhost:11434/v1', 'http://127.0.0.1:1234/', 'http://127.8.9.1/', 'https://[::1]:8443/', 'http://ollama.localhost/']) {
      expect(proxyFor(new URL(u), s), u).toBeUndefined()
    }
    expect(proxyFor(new URL('https://api.openai.com/v1'), s)?.host).toBe('p:1')
    expect(proxyFor(new URL('http://192.168.1.5:11434/'), s)?.host).toBe('p:1')
  })

  it('describes the settings without the credentials', () => {
    const s = settingsOf({ HTTPS_PROXY: 'http://alice:s3cret@proxy.corp:3128', NO_PROXY: 'intranet' })!
    const line = describeProxySettings(s)
    expect(line).toBe('model requests: https via http://proxy.corp:3128 (HTTPS_PROXY), http via direct; direct for loopback and NO_PROXY (intranet)')
    expect(line).not.toContain('s3cret')
  })
})

// ------------------------------------------------------------------ through a real proxy on loopback

describe('model requests through a proxy', () => {
  let model: ModelServer
  let proxy: ForwardProxy
  beforeAll(async () => {
    model = await startModelServer()
    proxy = await startForwardProxy()
  })
  afterAll(async () => {
    await applyProxyEnv({})
    await proxy.close()
    await model.close()
  })

  /** a provider whose host name only the proxy can resolve (`.test` is reserved: it never resolves here) */
  const remoteConfig = (scheme: 'http' | 'https') => {
    const port = new URL(model.url).port
    return testConfig(model, {
      models: {
        providers: {
          remote: {
            baseUrl: scheme === 'http' ? `http://model.test:${port}/v1` : `https://model.test:${port}/v1`,
            api: 'openai-completions',
            apiKey: 'test-key',
            models: [{ id: 'r1', contextWindow: 32000, maxTokens: 1024 }],
          },
        },
      },
      agents: { defaults: { model: { primary: 'remote/r1' } } },
    })
  }

  async function runOnce(env: NodeJS.ProcessEnv, scheme: 'http' | 'https', text = 'via proxy') {
    model.script([{ text }])
    const rt = await startTestRuntime(model, { config: remoteConfig(scheme), runtime: { env } })
    try {
      const { runId } = await rt.call('agent', { message: 'hello', idempotencyKey: `k-${Math.random()}`, sessionKey: 'agent:main:proxy' })
      return await rt.call('agent.wait', { runId, timeoutMs: 15_000 })
    } finally {
      await rt.close()
    }
  }

  it('sends a run to a provider the machine cannot reach itself, with the proxy credentials', async () => {
    proxy.seen.length = 0
    const before = model.requests.length
    const r = await runOnce({ HTTP_PROXY: proxy.url.replace('http://', 'http://alice:s%40cret@') }, 'http', 'answer through the proxy')
    expect(r).toMatchObject({ status: 'ok' })
    expect(model.requests.length).toBe(before + 1)
    expect(proxy.seen[0].line).toMatch(/^POST http:\/\/model\.test:\d+\/v1\/chat\/completions$/)
    expect(proxy.seen[0].auth).toBe(`Basic ${Buffer.from('alice:s@cret').toString('base64')}`)
  })

  it('status says which proxy is in use, without its credentials', async () => {
    const rt = await startTestRuntime(model, { runtime: { env: { HTTPS_PROXY: proxy.url.replace('http://', 'http://eve:hunter2@'), NO_PROXY: '.corp' } } })
    try {
      const status = await rt.call('status', {})
      expect(status.proxy).toEqual({ https: proxy.url, source: { https: 'HTTPS_PROXY' }, noProxy: '.corp' })
      expect(JSON.stringify(status)).not.toContain('hunter2')
    } finally {
      await rt.close()
    }
    const direct = await startTestRuntime(model)
    try {
      expect((await direct.call('status', {})).proxy).toBeUndefined()
    } finally {
      await direct.close()
    }
  })

  it('a local model server stays direct while a proxy is set', async () => {
    proxy.seen.length = 0
    model.script([{ text: 'local answer' }])
    const rt = await startTestRuntime(model, { runtime: { env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url } } })
    try {
      const { runId } = await rt.call('agent', { message: 'hi', idempotencyKey: 'local-1', sessionKey: 'agent:main:local' })
      expect(await rt.call('agent.wait', { runId, timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
    } finally {
      await rt.close()
    }
    expect(proxy.seen).toEqual([])
  })

  it('NO_PROXY sends the request direct (here: a name that does not resolve, said so)', async () => {
    proxy.seen.length = 0
    const r = await runOnce({ HTTP_PROXY: proxy.url, NO_PROXY: '.test' }, 'http')
    expect(proxy.seen).toEqual([])
    expect(r).toMatchObject({ status: 'error' })
    expect((r as { error?: string }).error).toMatch(/^Connection error: could not reach model\.test:\d+ \(provider remote\): the name model\.test could not be resolved/)
  })

  it('https goes through a CONNECT tunnel; a proxy that wants credentials is named in the error', async () => {
    proxy.seen.length = 0
    proxy.refuseConnect = 407
    try {
      const r = await runOnce({ HTTPS_PROXY: proxy.url }, 'https')
      expect(proxy.seen[0].line).toMatch(/^CONNECT model\.test:\d+$/)
      expect((r as { error?: string }).error).toBe(
        `Connection error: the proxy ${proxy.url} refused the connection to model.test:${new URL(model.url).port} (provider remote): proxy authentication required — put the credentials in the proxy URL.`,
      )
    } finally {
      proxy.refuseConnect = undefined
    }
  })

  it('a proxy that is not running is named as the one to check', async () => {
    const closed = net.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const dead = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}`
    await new Promise<void>((r) => closed.close(() => r()))
    const r = await runOnce({ HTTP_PROXY: dead }, 'http')
    expect((r as { error?: string }).error).toMatch(
      new RegExp(`^Connection error: could not reach model\\.test:\\d+ \\(provider remote\\) through the proxy ${dead.replace(/\./g, '\\.')}: connection refused — is the proxy running\\?$`),
    )
  })
})
