// `loopdesk models`: what the gateway can run, and --check of each configured endpoint. In-process CLI
// against the real runtime + gateway + scripted model env.server.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createProvider } from '@earendil-works/pi-ai'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'

const TOKEN = 'models-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { models: [{ id: 'm1' }, { id: 'c1' }] })

const cli = (args: string[]) =>
  runCliCaptured(['models', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-models-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk models', () => {
  it('lists the models that can run, the default marked; --all adds those without a key', async () => {
    const r = await cli([])
    expect(r.code).toBe(0)
    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ {2}MODEL\s+NAME\s+CONTEXT\s+STATUS$/)
    // listed from the config, not asked: not called "ready" (the server may be down)
    expect(lines).toContainEqual(expect.stringMatching(/^\* mock\/m1\s+Mock\s+32k\s+configured \(not checked\)$/))
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}mockant\/c1\s+c1\s+32k\s+configured \(not checked\)$/))
    expect(r.out).not.toContain('no key')
    const all = await cli(['--all'])
    expect(all.out).toMatch(/anthropic\/\S+\s+.*no key/)
  })

  it('--check asks each endpoint for its models and exits 1 when one does not answer', async () => {
    const ok = await cli(['--check'])
    expect(ok.code).toBe(0)
    expect(ok.out).toContain(`✓ mock: ${env.server.openaiBaseUrl}/models answers — 2 models`)
    expect(ok.out).toContain('✓ mockant:')
    // asked and answered: ready
    expect(ok.out).toMatch(/^\* mock\/m1\s+Mock\s+32k\s+ready$/m)
    // an endpoint whose server is gone
    const closed = http.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    await env.stack.rt.call('config.patch', { patch: { models: { providers: { gone: { baseUrl: `http://127.0.0.1:${port}/v1`, models: [{ id: 'g', contextWindow: 4096, maxTokens: 100 }] } } } } })
    const bad = await cli(['--check'])
    expect(bad.code).toBe(1)
    expect(bad.out).toContain(`✗ gone: could not connect: could not reach 127.0.0.1:${port} (provider gone): connection refused — is the server running?`)
    expect(bad.out).toMatch(/^ {2}gone\/g\s+g\s+4k\s+not answering$/m)
    // a configured model the endpoint does not serve (a typo, a model not pulled)
    await env.stack.rt.call('config.patch', { patch: { models: { providers: { gone: null, mock: { models: [{ id: 'm1-typo', contextWindow: 4096, maxTokens: 100 }] } } } } })
    const typo = await cli(['--check'])
    expect(typo.code).toBe(1)
    expect(typo.out).toContain(`! mock: ${env.server.openaiBaseUrl}/models answers — 2 models`)
    expect(typo.out).toContain('  configured but not served: m1-typo (runs with mock/m1-typo will fail)\n')
    expect(typo.out).toMatch(/mock\/m1-typo\s+m1-typo\s+4k\s+not served$/m)
    const json = JSON.parse((await cli(['--check', '--json'])).out)
    expect(json.checks.find((c: { provider: string }) => c.provider === 'mock')).toMatchObject({ result: { ok: true }, missing: ['m1-typo'] })
    expect(json.defaultModel).toBe('mock/m1')
  })

  it("--check also checks a built-in provider's key at its own API", async () => {
    const api = http.createServer((req, res) => {
      const good = req.url === '/v1beta/models?pageSize=1000' && req.headers['x-goog-api-key'] === 'g-key'
      res.writeHead(good ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(good ? { models: [{ name: 'models/gemini-x' }] } : { error: { message: 'API key not valid.' } }))
    })
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r))
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1beta`
    try {
      // (the earlier test left a typo in mock's models: the list is replaced, not merged)
      await env.stack.rt.call('config.patch', {
        patch: { models: { providers: { mock: { models: [{ id: 'm1', contextWindow: 4096, maxTokens: 100 }] }, google: { apiKey: 'g-key' } } } },
        replacePaths: ['models.providers.mock.models'],
      })
      // Google's API, moved to this machine (the check must use the provider's own URL, not a configured one)
      const registry = env.stack.rt.runtime.core.models()
      const google = registry.models.getProvider('google')!
      registry.models.setProvider(createProvider({ id: 'google', name: google.name, auth: google.auth, models: google.getModels().map((m) => ({ ...m, baseUrl: base })), api: {} }))
      const ok = await cli(['--check'])
      expect(ok.out).toContain(`✓ google: the key works — 1 model at ${base}/models?pageSize=1000`)
      expect(ok.code, ok.out).toBe(0)
      await env.stack.rt.call('config.patch', { patch: { models: { providers: { google: { apiKey: 'wrong' } } } } })
      const registry2 = env.stack.rt.runtime.core.models()
      const google2 = registry2.models.getProvider('google')!
      registry2.models.setProvider(createProvider({ id: 'google', name: google2.name, auth: google2.auth, models: google2.getModels().map((m) => ({ ...m, baseUrl: base })), api: {} }))
      const bad = await cli(['--check'])
      expect(bad.out).toContain('✗ google key: HTTP 400 Bad Request: API key not valid.')
      expect(bad.code).toBe(1)
    } finally {
      await env.stack.rt.call('config.patch', { patch: { models: { providers: { google: null } } } })
      api.close()
    }
  })

  it('agent --model runs one run on the model named (listed here), and refuses what is not PROVIDER/MODEL', async () => {
    const base = ['--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-models-'), '--session-key', 'agent:main:model-pick']
    const agent = (model: string) => runCliCaptured(['agent', '-m', 'hi', '--model', model, ...base], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
    env.server.push({ text: 'from the other model', chunks: 1 })
    const picked = await agent('mockant/c1')
    expect(picked.code).toBe(0)
    expect(env.server.requests.at(-1)!.api).toBe('anthropic')
    expect(picked.out).toBe('from the other model\n')
    const malformed = await agent('c1')
    expect(malformed.code).toBe(2)
    expect(malformed.err).toContain('--model is PROVIDER/MODEL, e.g. local/llama3.1:8b (see: loopdesk models)')
    // a model the gateway does not know: the call is refused, no run starts
    const before = env.server.requests.length
    const unknown = await agent('mock/nope')
    expect(unknown.code).toBe(1)
    expect(unknown.err).toMatch(/unknown model "nope" for provider "mock"/)
    expect(env.server.requests.length).toBe(before)
  })

  it('refuses stray arguments', async () => {
    const r = await cli(['extra'])
    expect(r.code).toBe(2)
    expect(r.err).toBe('loopdesk: unexpected argument: extra (see: loopdesk --help)\n')
  })
})
