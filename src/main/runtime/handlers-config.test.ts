// config.patch as OpenClaw clients send it: `raw` JSON5 text or our `patch` object (exactly one), lists
// merged by id with removals only where `replacePaths` allows, OpenClaw's restart fields accepted and
// inert. Every refusal leaves loopdesk.json byte for byte as it was. Schemas are checked against
// @openclaw/gateway-protocol's; one patch goes over a real gateway WebSocket.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { validateParams } from '../api/dispatch'
import { startGateway } from '../gateway/server'

const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const protocol = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as { definitions: Record<string, unknown> }
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(protocol, 'openclaw')
const packageAccepts = (v: unknown) => ajv.getSchema('openclaw#/definitions/ConfigPatchParams')!(v) === true

describe('config.patch params with raw fit the package schema exactly', () => {
  const raw = '{ agents: { defaults: { timeoutSeconds: 5 } } }'
  const cases: unknown[] = [
    { raw },
    { raw, baseHash: 'abc' },
    { raw: '' },
    { raw: 5 },
    { raw, replacePaths: ['agents.list', 'agents.list[].skills'] },
    { raw, replacePaths: [] },
    { raw, replacePaths: [''] },
    { raw, replacePaths: 'agents.list' },
    { raw, replacePaths: Array.from({ length: 257 }, (_, i) => `p${i}`) },
    { raw, note: 'changed the timeout', sessionKey: 'agent:main:main', restartDelayMs: 0 },
    { raw, restartDelayMs: -1 },
    { raw, restartDelayMs: 1.5 },
    { raw, deliveryContext: { channel: 'slack', to: 'C1', accountId: 'a', threadId: 12 } },
    { raw, deliveryContext: { threadId: 't-1' } },
    { raw, deliveryContext: { channel: 'slack', extra: 1 } },
    { raw, unknownField: true },
  ]
  it.each(cases)('%j', (params) => {
    expect(validateParams('config.patch', params) === undefined).toBe(packageAccepts(params))
  })
  it('our two extensions: patch instead of raw, and baseHash "" (no config file yet)', () => {
    for (const params of [{ patch: {} }, { raw, baseHash: '' }]) {
      expect(packageAccepts(params)).toBe(false)
      expect(validateParams('config.patch', params)).toBeUndefined()
    }
  })
})

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(() => server.close())

let t: TestRuntime
let file: string
const base = () =>
  testConfig(server, {
    agents: { list: [{ id: 'main', default: true }, { id: 'work', workspace: '/tmp/ld-work' }] },
    gateway: { allowedOrigins: ['http://a.test', 'http://b.test'] },
  })
beforeEach(async () => {
  t = await startTestRuntime(server, { config: base(), runtime: { mediaGc: false } })
  file = path.join(t.stateDir, 'loopdesk.json')
})
afterEach(() => t.close())

/** runs a refused patch and checks the file did not change */
async function refused(params: unknown) {
  const before = fs.readFileSync(file, 'utf8')
  const r = await t.raw('config.patch', params)
  expect(fs.readFileSync(file, 'utf8')).toBe(before)
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.data)}`)
  return r.error
}

describe('config.patch raw (JSON5)', () => {
  it('applies JSON5 text (comments, unquoted keys, trailing commas) like the same patch object', async () => {
    const { hash } = await t.call('config.get', {})
    const r = await t.call('config.patch', {
      raw: `{
        // the agent's default budget
        agents: { defaults: { timeoutSeconds: 321, }, },
      }`,
      baseHash: hash,
      note: 'inert here',
      sessionKey: 'agent:main:main',
      restartDelayMs: 1000,
      deliveryContext: { channel: 'cli' },
    })
    expect(r.ok).toBe(true)
    expect(t.runtime.core.config.current.defaults.timeoutSeconds).toBe(321)
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).agents.defaults.timeoutSeconds).toBe(321)
    // nothing else moved: the lists are intact
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).agents.list).toHaveLength(2)
  })

  it('refuses both or neither of patch and raw, a syntax error (with line and column), a non-object', async () => {
    expect(await refused({})).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('exactly one of patch') })
    expect(await refused({ raw: '{}', patch: {} })).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('exactly one of patch') })
    const syntax = await refused({ raw: '{\n  agents: { defaults: { timeoutSeconds: 5 }\n' })
    expect(syntax).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/config.patch raw: syntax error.*line \d+, column \d+/) })
    expect(await refused({ raw: '[1, 2]' })).toMatchObject({ code: 'INVALID_REQUEST', message: 'config.patch raw must be an object' })
    expect(await refused({ raw: '"text"' })).toMatchObject({ code: 'INVALID_REQUEST', message: 'config.patch raw must be an object' })
    // a schema-invalid value in raw is reported like one in patch
    expect(await refused({ raw: '{ agents: { defaults: { timeoutSeconds: "soon" } } }' })).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('timeoutSeconds'),
    })
  })

  it('a gateway token the gateway would not take is refused, naming the rule; a valid one and the placeholder are saved', async () => {
    for (const token of ['abc', 'has spaces in it but long', 'x'.repeat(513), 'ünïcode-token-0123456']) {
      const err = await refused({ patch: { gateway: { auth: { token } } } })
      expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('gateway.auth.token must be 16–512 printable ASCII') })
      expect(err.details).toMatchObject({ issues: [{ path: 'gateway.auth.token' }] })
    }
    expect(await refused({ raw: "{ gateway: { auth: { token: 'short' } } }" })).toMatchObject({ code: 'INVALID_REQUEST' })
    await t.call('config.patch', { patch: { gateway: { auth: { token: 'a-valid-token-0123456789' } } } })
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).gateway.auth.token).toBe('a-valid-token-0123456789')
    // what config.get shows, sent back with another change, keeps the token
    await t.call('config.patch', { patch: { gateway: { auth: { token: '__REDACTED__' } }, agents: { defaults: { timeoutSeconds: 77 } } } })
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).gateway.auth.token).toBe('a-valid-token-0123456789')
  })

  it('a provider key in raw is write-only: credential store, never the file or the reply', async () => {
    const r = await t.call('config.patch', { raw: "{ models: { providers: { openai: { apiKey: 'sk-raw-secret' } } } }" })
    expect(t.runtime.core.credentials.get('openai')).toBe('sk-raw-secret')
    expect(fs.readFileSync(file, 'utf8')).not.toContain('sk-raw-secret')
    expect(JSON.stringify(r)).not.toContain('sk-raw-secret')
    expect(r.secrets.openai).toBe('set')
  })

  it('a key pasted with quotes or "Bearer " is stored bare; one broken across lines is refused and nothing is written', async () => {
    await t.call('config.patch', { patch: { models: { providers: { openai: { apiKey: ' "sk-quoted" ' } } } } })
    expect(t.runtime.core.credentials.get('openai')).toBe('sk-quoted')
    await t.call('config.patch', { patch: { models: { providers: { openai: { apiKey: 'Bearer sk-bearer' } } } } })
    expect(t.runtime.core.credentials.get('openai')).toBe('sk-bearer')
    const before = fs.readFileSync(file, 'utf8')
    const err = await t.call('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 9 } }, models: { providers: { openai: { apiKey: 'sk-one\ntwo' } } } } }).catch((e: Error) => e)
    expect(String(err)).toMatch(/line break/)
    expect(t.runtime.core.credentials.get('openai')).toBe('sk-bearer')
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
  })

  it('a base URL pasted with spaces, a trailing slash or the endpoint path is saved as the SDK will use it; a model id without spaces', async () => {
    await t.call('config.patch', { patch: { models: { providers: { pasted: { baseUrl: ' http://127.0.0.1:8080/v1/chat/completions/ ', models: [{ id: 'm' }] } } } } })
    await t.call('config.patch', { raw: "{ models: { providers: { claude: { baseUrl: 'https://llm.example.com/v1/', api: 'anthropic-messages', models: [{ id: 'c' }] } } } }" })
    // the api already saved decides, when the patch does not name one
    await t.call('config.patch', { patch: { models: { providers: { claude: { baseUrl: 'https://llm2.example.com/v1/messages' } } } } })
    // typed without its scheme (loopdesk config set …baseUrl localhost:1234/v1)
    await t.call('config.patch', { patch: { models: { providers: { lms: { baseUrl: 'localhost:1234/v1', models: [{ id: ' qwen3:8b\n' }] } } } } })
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')).models.providers
    expect(saved.lms.baseUrl).toBe('http://localhost:1234/v1')
    expect(saved.lms.models).toEqual([{ id: 'qwen3:8b' }])
    expect(saved.pasted.baseUrl).toBe('http://127.0.0.1:8080/v1')
    expect(saved.claude.baseUrl).toBe('https://llm2.example.com')
  })

  it('removing a custom provider (null) removes its stored key too; a built-in keeps its key when its entry goes', async () => {
    await t.call('config.patch', { patch: { models: { providers: { mock: { apiKey: 'sk-mock-secret' }, openai: { apiKey: 'sk-openai', baseUrl: 'http://proxy.test/v1' } } } } })
    expect(t.runtime.core.credentials.get('mock')).toBe('sk-mock-secret')
    const r = await t.call('config.patch', { patch: { models: { providers: { mock: null, openai: null } } } })
    const providers = JSON.parse(fs.readFileSync(file, 'utf8')).models?.providers ?? {}
    expect(providers.mock).toBeUndefined()
    expect(providers.openai).toBeUndefined()
    // a new endpoint named "mock" later must not inherit the old one's key
    expect(t.runtime.core.credentials.get('mock')).toBeUndefined()
    expect(r.secrets.mock).toBeUndefined()
    expect(t.runtime.core.credentials.get('openai')).toBe('sk-openai')
    expect(r.secrets.openai).toBe('set')
  })

  it('the redaction placeholder sent back (a config.get round trip) keeps the key in the file, never stores the placeholder', async () => {
    await t.call('config.patch', { raw: "{ models: { providers: { openai: { apiKey: '${OPENAI_KEY}' } } } }" })
    const lit = JSON.parse(fs.readFileSync(file, 'utf8'))
    lit.models.providers.mock.apiKey = 'sk-literal-in-file'
    fs.writeFileSync(file, JSON.stringify(lit, null, 2))
    ;(t.runtime.core.config as unknown as { reload(): void }).reload() // the file was edited by hand (watchConfig is off)
    const got = await t.call('config.get', {})
    const mock = (got.config as any).models.providers.mock
    expect(mock.apiKey).toBe('__REDACTED__')
    // a client edits one field of the redacted config and sends the provider back as raw
    await t.call('config.patch', { raw: JSON.stringify({ models: { providers: { mock: { ...mock, headers: { 'x-a': '1' } } } } }), baseHash: got.hash })
    expect(t.runtime.core.credentials.get('mock')).toBeUndefined()
    const after = JSON.parse(fs.readFileSync(file, 'utf8')).models.providers.mock
    expect(after).toMatchObject({ apiKey: 'sk-literal-in-file', headers: { 'x-a': '1' } })
  })

  it('baseHash "" (config.get before any file existed) patches a missing file; once it exists it is stale', async () => {
    fs.rmSync(file)
    ;(t.runtime.core.config as unknown as { reload(): void }).reload()
    const got = await t.call('config.get', {})
    expect(got).toMatchObject({ exists: false, hash: '' })
    await t.call('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 11 } } }, baseHash: '' })
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).agents.defaults.timeoutSeconds).toBe(11)
    expect(await refused({ patch: { agents: { defaults: { timeoutSeconds: 12 } } }, baseHash: '' })).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'CONFLICT' } })
  })

  it('a stale baseHash is refused (details.code CONFLICT) and writes nothing', async () => {
    const { hash } = await t.call('config.get', {})
    await t.call('config.patch', { raw: '{ agents: { defaults: { timeoutSeconds: 9 } } }' })
    expect(await refused({ raw: '{ agents: { defaults: { timeoutSeconds: 10 } } }', baseHash: hash })).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'CONFLICT' } })
  })
})

describe('config.patch over a file with problems', () => {
  it('a save that adds no problem goes through and its reply lists what remains; the fixing save clears it', async () => {
    const broken = JSON.parse(fs.readFileSync(file, 'utf8'))
    broken.gateway.bind = 'moon'
    broken.agents.defaults = { ...broken.agents.defaults, timeoutSeconds: -5 }
    // a key typed without quotes (invalid: not a string) is a secret all the same
    broken.models.providers.mockant.apiKey = 987654321987
    fs.writeFileSync(file, JSON.stringify(broken, null, 2))
    ;(t.runtime.core.config as unknown as { reload(): void }).reload()
    let got = await t.call('config.get', {})
    expect(got).toMatchObject({ valid: false })
    expect(got.issues.map((i) => i.path).sort()).toEqual(['agents.defaults.timeoutSeconds', 'gateway.bind', 'models.providers.mockant.apiKey'])
    expect((got.fileConfig as any).models.providers.mockant.apiKey).toBe('__REDACTED__')
    expect(JSON.stringify(got)).not.toContain('987654321987')
    // config is the last good one; fileConfig what the file says (Settings edits that), secrets redacted
    expect((got.config as any).gateway?.bind).toBeUndefined()
    expect((got.fileConfig as any).gateway.bind).toBe('moon')
    expect((got.fileConfig as any).agents.defaults.timeoutSeconds).toBe(-5)
    // null removes the malformed key
    const r0 = await t.call('config.patch', { patch: { models: { providers: { mockant: { apiKey: null } } } }, baseHash: got.hash })
    expect(r0.issues?.map((i) => i.path).sort()).toEqual(['agents.defaults.timeoutSeconds', 'gateway.bind'])

    // what the window's Settings sends: an unrelated field, then the fix of one problem
    const r1 = await t.call('config.patch', { patch: { agents: { defaults: { thinkingDefault: 'high' } } }, baseHash: r0.hash })
    expect(r1.issues?.map((i) => i.path).sort()).toEqual(['agents.defaults.timeoutSeconds', 'gateway.bind'])
    // saved, not in effect: the reply's config still has the last good value, its fileConfig the new one
    expect((r1.config as any).agents.defaults.thinkingDefault).toBeUndefined()
    expect((r1.fileConfig as any).agents.defaults.thinkingDefault).toBe('high')
    const r2 = await t.call('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 60 } } }, baseHash: r1.hash })
    expect(r2.issues?.map((i) => i.path)).toEqual(['gateway.bind'])
    expect((r2.fileConfig as any).agents.defaults).toMatchObject({ thinkingDefault: 'high', timeoutSeconds: 60 })
    // a save adding a problem is still refused
    expect(await refused({ patch: { gateway: { port: -1 } }, baseHash: r2.hash })).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('gateway.port') })
    const r3 = await t.call('config.patch', { patch: { gateway: { bind: 'loopback' } }, baseHash: r2.hash })
    expect(r3.issues).toEqual([])
    expect(r3.fileConfig).toBeUndefined()
    got = await t.call('config.get', {})
    expect(got).toMatchObject({ valid: true, issues: [] })
    expect(got.fileConfig).toBeUndefined()
    expect((got.config as any).agents.defaults.thinkingDefault).toBe('high')
    expect(t.runtime.core.config.current.defaults.timeoutSeconds).toBe(60)
  })
})

describe('config.patch lists and replacePaths', () => {
  it('agents.list entries merge by id; a new id is appended', async () => {
    await t.call('config.patch', { patch: { agents: { list: [{ id: 'work', model: 'mock/m1' }, { id: 'ops' }] } } })
    expect(t.runtime.core.config.current.agents.map((a) => a.id)).toEqual(['main', 'work', 'ops'])
    expect(t.runtime.core.config.current.agents.find((a) => a.id === 'work')).toMatchObject({ model: 'mock/m1' })
  })

  it('dropping entries is refused (file untouched) until replacePaths names the list', async () => {
    // a shorter agents list merges by id: it removes nothing (a stale client cannot drop 'work' by accident)
    await t.call('config.patch', { patch: { agents: { list: [{ id: 'main', default: true }] } }, replacePaths: [] })
    expect(t.runtime.core.config.current.agents.map((a) => a.id)).toEqual(['main', 'work'])
    // a list without ids that forgets an entry would drop it: refused
    const origins = await refused({ raw: "{ gateway: { allowedOrigins: ['http://a.test'] } }" })
    expect(origins).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('gateway.allowedOrigins'), details: { path: 'gateway.allowedOrigins', removed: 1 } })
    await t.call('config.patch', { raw: "{ gateway: { allowedOrigins: ['http://a.test'] } }", replacePaths: ['gateway.allowedOrigins'] })
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).gateway.allowedOrigins).toEqual(['http://a.test'])
    // replacing the agents list wholesale drops 'work'
    await t.call('config.patch', { patch: { agents: { list: [{ id: 'main', default: true }] } }, replacePaths: ['agents.list'] })
    expect(t.runtime.core.config.current.agents.map((a) => a.id)).toEqual(['main'])
  })

  it('refuses malformed replacePaths tokens', async () => {
    expect(await refused({ raw: '{}', replacePaths: ['agents..list'] })).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('replacePaths: "agents..list" is not a config path'),
    })
  })
})

describe('config.patch over a real gateway', () => {
  it('an OpenClaw-shaped patch (raw + baseHash + replacePaths + restart fields) applies and answers with the new hash', async () => {
    const TOKEN = 'cfg-raw-token-0123456789'
    const gw = await startGateway({ host: t.runtime, port: 0, token: TOKEN, stateDir: t.stateDir, staticDir: null })
    const c = await connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    try {
      const got = (await c.request('config.get', {})) as { hash: string }
      const params = {
        raw: "{ gateway: { allowedOrigins: ['http://b.test'] }, agents: { defaults: { timeoutSeconds: 42 } } }",
        baseHash: got.hash,
        replacePaths: ['gateway.allowedOrigins'],
        note: 'from a client',
        restartDelayMs: 2000,
      }
      expect(packageAccepts(params)).toBe(true)
      const r = (await c.request('config.patch', params)) as { ok: boolean; hash: string }
      expect(r.ok).toBe(true)
      expect(r.hash).not.toBe(got.hash)
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).gateway.allowedOrigins).toEqual(['http://b.test'])
      await expect(c.request('config.patch', { raw: '[]', baseHash: r.hash })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'config.patch raw must be an object' })
    } finally {
      await c.close()
      await gw.close()
    }
  })
})
