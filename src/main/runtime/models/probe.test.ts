import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startForwardProxy } from '../../../../test/fixtures/forward-proxy'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { applyProxyEnv } from '../net/proxy'
import { modelListUrl, modelsOf, probeModels } from './probe'
import { createProvider } from '@earendil-works/pi-ai'

let server: http.Server
let base: string
const seen: Array<{ url: string; headers: http.IncomingHttpHeaders }> = []
beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers })
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    switch (req.url) {
      case '/ollama/v1/models':
        return json(200, { object: 'list', data: [{ id: 'qwen3:8b' }, { id: 'llama3.1:8b' }, { id: 'llama3.1:8b' }] })
      case '/ollama/models':
      case '/plain/v1/models':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('Ollama is running')
      case '/sso/v1/models':
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html>\n<html><head><title>Sign in – Acme SSO</title></head><body></body></html>')
      case '/vllm/v1/models':
        return json(200, { data: [{ id: 'big', max_model_len: 131072 }, { id: 'tiny', context_length: 12 }] })
      case '/tags/models':
        return json(200, { models: [{ name: 'gemma3:4b' }] })
      case '/keyed/v1/models':
        return req.headers.authorization === 'Bearer right' ? json(200, { data: [{ id: 'k' }] }) : json(401, { error: { message: 'Invalid API key' } })
      case '/anthropic-as-openai/v1/models':
        return json(401, { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } })
      case '/anthropic/v1/models':
        return req.headers['x-api-key'] === 'ak' && req.headers['anthropic-version'] ? json(200, { data: [{ id: 'claude-x', type: 'model' }] }) : json(401, { error: { message: 'bad key' } })
      case '/google/v1beta/models?pageSize=1000':
        return req.headers['x-goog-api-key'] === 'gk'
          ? json(200, { models: [{ name: 'models/gemini-x', inputTokenLimit: 1048576 }, { name: 'models/embedding-1' }] })
          : json(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } })
      case '/mistral/v1/models':
        return req.headers.authorization === 'Bearer mk' ? json(200, { object: 'list', data: [{ id: 'mistral-small', max_context_length: 32768 }] }) : json(401, { message: 'Unauthorized' })
      case '/or/api/v1/key':
        return req.headers.authorization === 'Bearer right' ? json(200, { data: { label: 'k' } }) : json(401, { error: { message: 'User not found.' } })
      case '/or/api/v1/models':
        return json(200, { data: [{ id: 'openai/gpt-x', context_length: 400000 }] }) // public: says nothing about the key
      case '/moved/v1/models':
        return res.writeHead(301, { location: 'https://elsewhere.example/v1/models' }).end()
      case '/huge/v1/models':
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"data":[')
        for (let i = 0; i < 5000; i++) res.write(`{"id":"${'x'.repeat(1000)}${i}"},`)
        return res.end('{"id":"last"}]}')
      case '/gzip/v1/models':
        return res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(zlib.gzipSync(JSON.stringify({ data: [{ id: 'zipped' }] })))
      case '/slow/v1/models':
        return // never answers
      default:
        return json(404, { error: { message: `no route ${req.url}` } })
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

const probe = (path: string, extra: Partial<Parameters<typeof probeModels>[0]> = {}) =>
  probeModels({ baseUrl: `${base}${path}`, api: 'openai-completions', ...extra })

describe('probeModels', () => {
  it('lists a server’s models, sorted and once each, with the context sizes it states', async () => {
    expect(await probe('/ollama/v1')).toMatchObject({ ok: true, url: `${base}/ollama/v1/models`, models: [{ id: 'llama3.1:8b' }, { id: 'qwen3:8b' }] })
    expect(await probe('/vllm/v1/')).toMatchObject({ ok: true, models: [{ id: 'big', contextWindow: 131072 }, { id: 'tiny' }] })
    expect(await probe('/tags')).toMatchObject({ ok: true, models: [{ id: 'gemma3:4b' }] })
    expect(await probe('/gzip/v1')).toMatchObject({ ok: true, models: [{ id: 'zipped' }] })
  })

  it('a base URL without /v1 is found one level down and offered as the fix', async () => {
    const r = await probe('/ollama')
    expect(r).toMatchObject({ ok: true, suggestedBaseUrl: `${base}/ollama/v1`, url: `${base}/ollama/v1/models` })
  })

  it("a login proxy's HTML page: its title and what it means, not the markup", async () => {
    expect(await probe('/sso/v1')).toMatchObject({ ok: false, error: 'the server answered with an HTML page (“Sign in – Acme SSO”) — a web server or proxy answered, not the model API: check the base URL' })
  })

  it('an Anthropic-compatible server checked as OpenAI-compatible: says which API to choose', async () => {
    const r = await probe('/anthropic-as-openai/v1', { apiKey: 'k' })
    expect(r).toMatchObject({ ok: false, status: 401 })
    expect((r as { error: string }).error).toMatch(/x-api-key header is required — the server wants its key in x-api-key, as Anthropic's API does: set the endpoint's API to anthropic-messages/)
  })

  it('a pasted endpoint URL is checked at its base and the base offered as the fix', async () => {
    const r = await probe('/ollama/v1/chat/completions')
    expect(r).toMatchObject({ ok: true, suggestedBaseUrl: `${base}/ollama/v1`, url: `${base}/ollama/v1/models` })
    // Anthropic's base with or without its /v1 is the same list: nothing to fix
    expect(await probe('/anthropic/v1/', { api: 'anthropic-messages', apiKey: 'ak' })).not.toHaveProperty('suggestedBaseUrl')
  })

  it('keys: Bearer for OpenAI-style servers, x-api-key + version for Anthropic; a refusal says which case it is', async () => {
    expect(await probe('/keyed/v1', { apiKey: 'right' })).toMatchObject({ ok: true, models: [{ id: 'k' }] })
    expect(await probe('/keyed/v1', { apiKey: 'wrong' })).toMatchObject({ ok: false, status: 401, error: 'the server refused the key (HTTP 401): Invalid API key' })
    expect(await probe('/keyed/v1')).toMatchObject({ ok: false, status: 401, error: 'the server wants an API key (HTTP 401): Invalid API key' })
    expect(modelListUrl(`${base}/anthropic`, 'anthropic-messages')).toBe(`${base}/anthropic/v1/models`)
    expect(modelListUrl(`${base}/anthropic/v1/`, 'anthropic-messages')).toBe(`${base}/anthropic/v1/models`)
    expect(await probe('/anthropic', { api: 'anthropic-messages', apiKey: 'ak' })).toMatchObject({ ok: true, models: [{ id: 'claude-x' }] })
  })

  it('says what is wrong: not a list, no route, a redirect (not followed: it would carry the key), too big, too slow', async () => {
    expect(await probe('/ollama/v2')).toMatchObject({ ok: false, status: 404, error: `no model list at /ollama/v2/models (HTTP 404): no route /ollama/v2/models` })
    expect(await probe('/plain/v1')).toMatchObject({ ok: false, error: 'the server answered, but not with a model list (“Ollama is running”)' })
    const n = seen.length
    expect(await probe('/moved/v1', { apiKey: 'secret' })).toMatchObject({ ok: false, status: 301, error: 'the server redirects to https://elsewhere.example/v1/models: use that address as the base URL' })
    expect(seen.length).toBe(n + 1)
    expect(await probe('/huge/v1')).toMatchObject({ ok: false, error: 'the answer is larger than 4 MB: not a model list' })
    expect(await probe('/slow/v1', { timeoutMs: 200 })).toMatchObject({ ok: false, error: /^no answer from 127\.0\.0\.1:\d+ within 0 s$/ })
  })

  it('a server that is not there, and a URL that is not one', async () => {
    const closed = http.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    expect(await probeModels({ baseUrl: `http://127.0.0.1:${port}/v1`, api: 'openai-completions', provider: 'local' })).toMatchObject({
      ok: false,
      error: `could not connect: could not reach 127.0.0.1:${port} (provider local): connection refused — is the server running?`,
    })
    expect(await probeModels({ baseUrl: 'not a url', api: 'openai-completions' })).toMatchObject({ ok: false, error: 'the base URL is not a valid URL' })
    expect(await probeModels({ baseUrl: 'ftp://x/v1', api: 'openai-completions' })).toMatchObject({ ok: false, error: 'the base URL must start with http:// or https://' })
    // a port fetch would refuse outright ("bad port") is tried like any other, as model requests do
    expect(await probeModels({ baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions' })).toMatchObject({ ok: false, error: /connection refused/ })
  })

  it('goes through the environment\'s proxy as model requests do', async () => {
    const proxy = await startForwardProxy()
    try {
      await applyProxyEnv({ HTTP_PROXY: proxy.url })
      const port = new URL(base).port
      expect(await probe('', { baseUrl: `http://models.test:${port}/ollama/v1` })).toMatchObject({ ok: true, models: [{ id: 'llama3.1:8b' }, { id: 'qwen3:8b' }] })
      expect(proxy.seen.map((x) => x.line)).toEqual([`GET http://models.test:${port}/ollama/v1/models`])
    } finally {
      await applyProxyEnv({})
      await proxy.close()
    }
  })

  it("Google's list (x-goog-api-key, `models/` names, inputTokenLimit) and Mistral's (the SDK's /v1)", async () => {
    expect(modelListUrl('https://generativelanguage.googleapis.com/v1beta', 'google-generative-ai')).toBe('https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000')
    expect(modelListUrl('https://api.mistral.ai', 'mistral-conversations')).toBe('https://api.mistral.ai/v1/models')
    expect(await probe('/google/v1beta', { api: 'google-generative-ai', apiKey: 'gk' })).toMatchObject({
      ok: true,
      models: [{ id: 'embedding-1' }, { id: 'gemini-x', contextWindow: 1048576 }],
    })
    expect(seen.at(-1)!.headers.authorization).toBeUndefined()
    // Google answers a wrong key with 400, not 401; the check says what Google said
    expect(await probe('/google/v1beta', { api: 'google-generative-ai', apiKey: 'wrong' })).toMatchObject({ ok: false, status: 400, error: expect.stringContaining('API key not valid') })
    expect(await probe('/mistral', { api: 'mistral-conversations', apiKey: 'mk' })).toMatchObject({ ok: true, models: [{ id: 'mistral-small', contextWindow: 32768 }] })
  })

  it('a key check path asked first, for a list that answers without a key (OpenRouter)', async () => {
    expect(await probe('/or/api/v1', { apiKey: 'wrong', keyCheckPath: '/key' })).toMatchObject({
      ok: false,
      status: 401,
      error: 'the server refused the key (HTTP 401): User not found.',
      url: `${base}/or/api/v1/key`,
    })
    expect(await probe('/or/api/v1', { apiKey: 'right', keyCheckPath: '/key' })).toMatchObject({ ok: true, models: [{ id: 'openai/gpt-x' }] })
  })

  it('modelsOf: only lists are lists', () => {
    expect(modelsOf('{"data":"no"}')).toBeUndefined()
    expect(modelsOf('[1,2]')).toBeUndefined()
    expect(modelsOf('{"data":[{"nope":1},{"id":"a"}]}')).toEqual([{ id: 'a' }])
  })
})

describe('loopdesk.models.probe (the runtime method)', () => {
  let model: ModelServer
  let rt: TestRuntime
  beforeAll(async () => {
    model = await startModelServer({ models: [{ id: 'm1', context_length: 32000 }, { id: 'm2' }] })
    const cfg = testConfig(model)
    cfg.models!.providers!.mock.apiKey = 'saved-secret'
    rt = await startTestRuntime(model, { config: cfg })
  })
  afterAll(async () => {
    await rt.close()
    await model.close()
  })

  it('checks a saved provider with its own key', async () => {
    expect(await rt.call('loopdesk.models.probe', { provider: 'mock' })).toMatchObject({ ok: true, models: [{ id: 'm1', contextWindow: 32000 }, { id: 'm2' }] })
    expect(model.listRequests.at(-1)!.headers.authorization).toBe('Bearer saved-secret')
    // the same URL spelled with a trailing slash is still its own
    await rt.call('loopdesk.models.probe', { provider: 'mock', baseUrl: `${model.openaiBaseUrl}/` })
    expect(model.listRequests.at(-1)!.headers.authorization).toBe('Bearer saved-secret')
  })

  it('never sends a saved key to another URL', async () => {
    // the same server under another name: for all the runtime knows, another server
    const other = model.openaiBaseUrl.replace('127.0.0.1', 'localhost')
    const n = model.listRequests.length
    expect(await rt.call('loopdesk.models.probe', { provider: 'mock', baseUrl: other })).toMatchObject({ ok: true })
    expect(model.listRequests.length).toBe(n + 1)
    expect(model.listRequests.at(-1)!.headers.authorization).toBeUndefined()
  })

  it('an unsaved endpoint from the settings form, and the params it refuses', async () => {
    expect(await rt.call('loopdesk.models.probe', { baseUrl: model.openaiBaseUrl })).toMatchObject({ ok: true })
    await expect(rt.call('loopdesk.models.probe', {})).rejects.toThrow('INVALID_REQUEST: give a baseUrl or a configured provider')
    await expect(rt.call('loopdesk.models.probe', { provider: 'nope' })).rejects.toThrow('provider "nope" is not configured: give its baseUrl')
    await expect(rt.call('loopdesk.models.probe', { baseUrl: model.openaiBaseUrl, extra: 1 } as never)).rejects.toThrow(/INVALID_REQUEST/)
  })
})

describe('loopdesk.models.probe for a built-in provider (no base URL saved)', () => {
  it('checks its own API with the key its runs would use (here its environment variable)', async () => {
    const model = await startModelServer()
    const rt = await startTestRuntime(model, { runtime: { env: { GEMINI_API_KEY: 'gk' } } })
    try {
      // the built-in Google provider, its API moved to the test server (the check must use the provider's own URL)
      const registry = rt.runtime.core.models()
      const google = registry.models.getProvider('google')!
      registry.models.setProvider(
        createProvider({ id: 'google', name: google.name, auth: google.auth, models: google.getModels().map((m) => ({ ...m, baseUrl: `${base}/google/v1beta` })), api: {} }),
      )
      const r = await rt.call('loopdesk.models.probe', { provider: 'google' })
      expect(r).toMatchObject({ ok: true, url: `${base}/google/v1beta/models?pageSize=1000`, models: [{ id: 'embedding-1' }, { id: 'gemini-x' }] })
      expect(seen.at(-1)!.headers['x-goog-api-key']).toBe('gk')
      await expect(rt.call('loopdesk.models.probe', { provider: 'no-such-provider' })).rejects.toThrow('is not configured')
    } finally {
      await rt.close()
      await model.close()
    }
  })
})
