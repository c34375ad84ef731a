import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig } from '../../../../test/fixtures/test-runtime'
import { describeNetworkFailure, recordingFetch, type NetworkFailure } from './network-failure'

const failure = (code: string | undefined, extra: Partial<NetworkFailure> = {}, message = 'boom'): NetworkFailure => ({
  url: new URL('https://api.example.com/v1/chat/completions'),
  error: new TypeError('fetch failed', { cause: Object.assign(new Error(message), code ? { code } : {}) }),
  ...extra,
})

describe('describeNetworkFailure', () => {
  it('names the usual socket failures', () => {
    expect(describeNetworkFailure(failure('ECONNREFUSED'), 'openai')).toBe('could not reach api.example.com (provider openai): connection refused — is the server running?')
    // a port only one local server uses by default names it
    const lmstudio = failure('ECONNREFUSED', { url: new URL('http://127.0.0.1:1234/v1/chat/completions') })
    expect(describeNetworkFailure(lmstudio, 'lmstudio')).toBe("could not reach 127.0.0.1:1234 (provider lmstudio): connection refused — is LM Studio's local server running?")
    expect(describeNetworkFailure(failure('ENOTFOUND'))).toBe('could not reach api.example.com: the name api.example.com could not be resolved')
    expect(describeNetworkFailure(failure('EAI_AGAIN'))).toMatch(/could not be resolved \(DNS did not answer\)$/)
    expect(describeNetworkFailure(failure('UND_ERR_CONNECT_TIMEOUT'))).toMatch(/: timed out while connecting$/)
    expect(describeNetworkFailure(failure('ECONNRESET'))).toMatch(/: the connection was reset$/)
    expect(describeNetworkFailure(failure('EHOSTUNREACH'))).toMatch(/: the network cannot reach it$/)
    expect(describeNetworkFailure(failure('CERT_HAS_EXPIRED'))).toMatch(/: its TLS certificate was not accepted \(CERT_HAS_EXPIRED\)$/)
    expect(describeNetworkFailure(failure('DEPTH_ZERO_SELF_SIGNED_CERT'))).toMatch(/not accepted \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/)
    expect(describeNetworkFailure(failure('EWHATEVER'))).toMatch(/: EWHATEVER$/)
    // https:// to a plain-http server, as fetch (undici) and node:https say it: no certificate problem
    for (const f of [failure('ERR_SSL_WRONG_VERSION_NUMBER'), failure('EPROTO', {}, 'C0:error:0A00010B:SSL routines:ssl3_get_record:wrong version number')])
      expect(describeNetworkFailure(f)).toBe('could not reach api.example.com: the server does not speak TLS on port 443 — if it serves plain http, the base URL should start with http://, not https://')
    expect(describeNetworkFailure(failure(undefined, {}, 'socket hang up'))).toMatch(/: socket hang up$/)
  })

  it('several addresses tried: the last one tells', () => {
    const agg = Object.assign(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })]), {})
    const f: NetworkFailure = { url: new URL('http://localhost:11434/v1'), error: new TypeError('fetch failed', { cause: agg }) }
    expect(describeNetworkFailure(f, 'ollama')).toBe('could not reach localhost:11434 (provider ollama): connection refused — is Ollama (`ollama serve`) running?')
  })

  it('through a proxy: the proxy is named, never its credentials', () => {
    const proxy = new URL('http://bob:pw@proxy.corp:3128')
    expect(describeNetworkFailure(failure('ECONNREFUSED', { proxy }))).toBe('could not reach api.example.com through the proxy http://proxy.corp:3128: connection refused — is the proxy running?')
    expect(describeNetworkFailure(failure('ENOTFOUND', { proxy }))).toMatch(/the name proxy\.corp could not be resolved$/)
    const refused = failure(undefined, { proxy }, 'Proxy response (403) !== 200 when HTTP Tunneling')
    expect(describeNetworkFailure(refused)).toBe('the proxy http://proxy.corp:3128 refused the connection to api.example.com: HTTP 403')
  })
})

describe('recordingFetch', () => {
  it('reports a failed request with its URL, not an abort, and passes both on', async () => {
    const seen: NetworkFailure[] = []
    const failing = recordingFetch(async () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })), (f) => seen.push(f))
    await expect(failing('http://127.0.0.1:9/v1/chat/completions')).rejects.toThrow('fetch failed')
    expect(seen.map((f) => f.url.host)).toEqual(['127.0.0.1:9'])
    const aborting = recordingFetch(async () => Promise.reject(new DOMException('aborted', 'AbortError')), (f) => seen.push(f))
    await expect(aborting('http://127.0.0.1:9/')).rejects.toThrow('aborted')
    expect(seen).toHaveLength(1)
  })
})

describe('a run whose model server is not there says so, whatever the API', () => {
  it('openai-completions, anthropic-messages, openai-responses and mistral-conversations', async () => {
    const closed = http.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    const server = await startModelServer()
    const apis = ['openai-completions', 'anthropic-messages', 'openai-responses', 'mistral-conversations'] as const
    const providers = Object.fromEntries(
      apis.map((api, i) => [`down${i}`, { baseUrl: `http://127.0.0.1:${port}/v1`, api, models: [{ id: 'x', contextWindow: 4096, maxTokens: 100 }] }]),
    )
    const rt = await startTestRuntime(server, { config: testConfig(server, { models: { providers } }) })
    try {
      for (const [i, api] of apis.entries()) {
        const { runId } = await rt.call('agent', { message: 'hi', idempotencyKey: `down-${api}`, sessionKey: `agent:main:down-${i}`, model: `down${i}/x` })
        const r = await rt.call('agent.wait', { runId, timeoutMs: 15_000 })
        expect((r as { error?: string }).error, api).toBe(`Connection error: could not reach 127.0.0.1:${port} (provider down${i}): connection refused — is the server running?`)
      }
    } finally {
      await rt.close()
      await server.close()
    }
  })
})
