import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LoopdeskConfig, ResolvedConfig } from '../contracts'
import { ApiError } from '../../api/errors'
import { memoryCredentials } from '../../../../test/fixtures/memory-credentials'
import { resolvedConfig } from '../../../../test/fixtures/resolved-config'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { createModelRegistry, DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, envRefName, LOCAL_DUMMY_KEY } from './registry'

const cfg = (raw: LoopdeskConfig, model?: string): ResolvedConfig => resolvedConfig(raw, { model, workspace: '/tmp/ws' })

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

const localProvider = () => ({
  baseUrl: server.openaiBaseUrl,
  api: 'openai-completions' as const,
  models: [{ id: 'm1', contextWindow: 8000, maxTokens: 256, cost: { input: 1, output: 1 } }],
})

describe('model registry', () => {
  it('resolves configured models and errors clearly for unknown refs', async () => {
    const reg = await createModelRegistry(cfg({ models: { providers: { local: localProvider() } } }, 'local/m1'), memoryCredentials(), {})
    expect(reg.resolve().ref).toBe('local/m1')
    expect(reg.resolve('local/m1').model.baseUrl).toBe(server.openaiBaseUrl)
    expect(() => reg.resolve('nope/m1')).toThrow(/unknown model provider "nope"/)
    expect(() => reg.resolve('local/zzz')).toThrow(/unknown model "zzz".*known: m1/)
    expect(() => reg.resolve('noslash')).toThrow(ApiError)
    // built-in catalog works by ref too
    expect(reg.resolve('anthropic/claude-sonnet-4-5').provider).toBe('anthropic')
  })

  it('a configured model without contextWindow / maxTokens gets the defaults (maxTokens never above the window)', async () => {
    const models = [{ id: 'bare' }, { id: 'small', contextWindow: 4096 }, { id: 'capped', maxTokens: 100 }]
    const reg = await createModelRegistry(cfg({ models: { providers: { local: { ...localProvider(), models } } } }), memoryCredentials(), {})
    expect(reg.resolve('local/bare').model).toMatchObject({ contextWindow: DEFAULT_CONTEXT_WINDOW, maxTokens: DEFAULT_MAX_TOKENS })
    expect(reg.resolve('local/small').model).toMatchObject({ contextWindow: 4096, maxTokens: 4096 })
    expect(reg.resolve('local/capped').model).toMatchObject({ contextWindow: DEFAULT_CONTEXT_WINDOW, maxTokens: 100 })
    expect(reg.list().find((m) => m.ref === 'local/bare')).toMatchObject({ contextWindow: DEFAULT_CONTEXT_WINDOW, maxTokens: DEFAULT_MAX_TOKENS, configured: true })
  })

  it('keyless servers on this machine or the local network get a dummy key and are configured; remote ones need a key', async () => {
    const m = [{ id: 'r', contextWindow: 1000, maxTokens: 10 }]
    const lan = {
      lan4: 'http://192.168.1.20:11434/v1',
      tailnet: 'http://100.101.102.103:11434/v1',
      ula: 'http://[fd12:3456::7]:1234/v1',
      mdns: 'http://gpu-box.local:11434/v1',
      single: 'http://gpu-box:11434/v1',
      homearpa: 'http://llm.home.arpa/v1',
      v6loop: 'http://[::1]:8080/v1',
    }
    const reg = await createModelRegistry(
      cfg({
        models: {
          providers: {
            local: localProvider(),
            remote: { baseUrl: 'https://example.invalid/v1', models: m },
            publicIp: { baseUrl: 'http://8.8.8.8/v1', models: m },
            ...Object.fromEntries(Object.entries(lan).map(([id, baseUrl]) => [id, { baseUrl, models: m }])),
          },
        },
      }),
      memoryCredentials(),
      {},
    )
    expect(reg.getApiKey('local')).toBe(LOCAL_DUMMY_KEY)
    expect(reg.isConfigured('local')).toBe(true)
    for (const id of Object.keys(lan)) {
      expect(reg.isConfigured(id), id).toBe(true)
      expect(reg.getApiKey(id), id).toBe(LOCAL_DUMMY_KEY)
    }
    expect(reg.isConfigured('publicIp')).toBe(false)
    expect(reg.isConfigured('remote')).toBe(false)
    expect(reg.authProblem('remote')).toMatch(/no API key/)
    expect(reg.isConfigured('anthropic')).toBe(false)
  })

  it('key order: credential store > apiKeyEnv > apiKey (env refs resolved)', async () => {
    const creds = memoryCredentials()
    const raw: LoopdeskConfig = {
      models: {
        providers: {
          a: { baseUrl: 'https://a.invalid', apiKeyEnv: 'A_KEY', apiKey: 'literal', models: [{ id: 'x', contextWindow: 1, maxTokens: 1 }] },
          b: { baseUrl: 'https://b.invalid', apiKey: '${B_KEY}', models: [{ id: 'x', contextWindow: 1, maxTokens: 1 }] },
        },
      },
    }
    const reg = await createModelRegistry(cfg(raw), creds, { A_KEY: 'from-env', B_KEY: 'b-env' })
    expect(reg.getApiKey('a')).toBe('from-env')
    expect(reg.getApiKey('b')).toBe('b-env')
    creds.set('a', 'stored')
    expect(reg.getApiKey('a')).toBe('stored')
    expect(envRefName('env:FOO')).toBe('FOO')
    expect(envRefName('sk-123')).toBeUndefined()
  })

  it('built-in providers work with just an env var or a stored credential', async () => {
    const creds = memoryCredentials()
    const reg = await createModelRegistry(cfg({}), creds, { OPENAI_API_KEY: 'sk-test' })
    expect(reg.isConfigured('openai')).toBe(true)
    expect(reg.isConfigured('anthropic')).toBe(false)
    creds.set('anthropic', 'sk-ant')
    await reg.refreshAuth()
    expect(reg.isConfigured('anthropic')).toBe(true)
    const list = reg.list()
    expect(list.find((m) => m.provider === 'anthropic')?.configured).toBe(true)
    // unconfigured featured providers are listed with configured:false; others are hidden
    expect(list.some((m) => m.provider === 'google' && !m.configured)).toBe(true)
    expect(list.some((m) => m.provider === 'groq')).toBe(false)
  })

  it('a built-in provider pointed at another endpoint streams through the real client with the stored key', async () => {
    const creds = memoryCredentials({ anthropic: 'sk-ant-stored' })
    const reg = await createModelRegistry(
      cfg({ models: { providers: { anthropic: { baseUrl: server.anthropicBaseUrl } } } }),
      creds,
      {},
    )
    server.script([{ text: 'hi from claude' }])
    const { model } = reg.resolve('anthropic/claude-sonnet-4-5')
    const stream = reg.streamFn(model, { messages: [{ role: 'user', content: 'x', timestamp: 1 }] } as any, {})
    const msg = await stream.result()
    expect(msg.stopReason).toBe('stop')
    expect(msg.content[0]).toMatchObject({ text: 'hi from claude' })
    expect(server.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-stored')
  })

  it('a pasted endpoint URL or an Anthropic base ending in /v1 reaches the real endpoint, not a doubled path', async () => {
    const m = [{ id: 'm1' }]
    const reg = await createModelRegistry(
      cfg({
        models: {
          providers: {
            pasted: { baseUrl: ` ${server.openaiBaseUrl}/chat/completions/ `, api: 'openai-completions', models: m },
            claude: { baseUrl: `${server.url}/v1/`, api: 'anthropic-messages', models: m },
          },
        },
      }),
      memoryCredentials(),
      {},
    )
    for (const ref of ['pasted/m1', 'claude/m1']) {
      server.script([{ text: 'ok' }])
      const msg = await reg.streamFn(reg.resolve(ref).model, { messages: [{ role: 'user', content: 'x', timestamp: 1 }] } as any, {}).result()
      expect(msg.stopReason).toBe('stop')
    }
    expect(server.requests.slice(-2).map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/messages'])
    expect(reg.resolve('pasted/m1').model.baseUrl).toBe(server.openaiBaseUrl)
  })

  it('retries a 429 with retry-after (maxRetries set explicitly) and caps long waits', async () => {
    const reg = await createModelRegistry(cfg({ models: { providers: { local: localProvider() } } }), memoryCredentials(), {}, { maxRetries: 2, maxRetryDelayMs: 2000 })
    const { model } = reg.resolve('local/m1')
    const n = server.requests.length
    server.script([{ status: 429, retryAfter: 0 }, { status: 429, retryAfter: 0 }, { text: 'third time' }])
    const msg = await reg.streamFn(model, { messages: [{ role: 'user', content: 'x', timestamp: 1 }] } as any, {}).result()
    expect(msg.content[0]).toMatchObject({ text: 'third time' })
    expect(server.requests.length - n).toBe(3)
    // a retry-after beyond the cap fails at once with a clear message
    server.script([{ status: 429, retryAfter: 3600 }])
    const t0 = Date.now()
    const failed = await reg.streamFn(model, { messages: [{ role: 'user', content: 'x', timestamp: 1 }] } as any, {}).result()
    expect(failed.stopReason).toBe('error')
    expect(failed.errorMessage).toMatch(/retry delay/)
    expect(Date.now() - t0).toBeLessThan(1500)
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${LOCAL_DUMMY_KEY}`)
  })

  it('reports unsupported apis as a provider problem', async () => {
    const reg = await createModelRegistry(
      cfg({ models: { providers: { weird: { baseUrl: 'http://127.0.0.1:1', api: 'smoke-signals', models: [{ id: 'x', contextWindow: 1, maxTokens: 1 }] } } } }),
      memoryCredentials(),
      {},
    )
    expect(() => reg.resolve('weird/x')).toThrow(/unsupported api "smoke-signals"/)
  })
})
