// loopdesk.config.renameProvider on a real runtime and a real loopdesk.json (JSON with comments) in a temp
// state dir: the entry moves with its models, settings and comments, the stored key follows it (never in a
// reply), model refs follow, the form's edits land in the same write; every refusal leaves the file and the
// keys as they were. One rename goes over a real gateway WebSocket.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import JSON5 from 'json5'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { startGateway } from '../gateway/server'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(() => server.close())

const annotated = (baseUrl: string) => `// my models — edited by hand
{
  "models": {
    "providers": {
      // the box under the desk
      "local": {
        "baseUrl": "${baseUrl}", // LAN address fixed in the router
        "api": "openai-completions",
        "headers": { "X-Team": "core" },
        "models": [
          { "id": "m1", "contextWindow": 32000, "maxTokens": 1024 }, // the fast one
          { "id": "m2", "reasoning": true },
        ],
      },
      "other": { "baseUrl": "http://127.0.0.1:9/v1", "models": [{ "id": "x" }] },
    },
  },
  "agents": {
    "defaults": { "model": { "primary": "local/m1" } }, // default
    "list": [
      { "id": "main", "default": true },
      { "id": "work", "model": "local/m2" },
      { "id": "lab", "model": "other/x" },
    ],
  },
}
`

let t: TestRuntime
let stateDir: string
let file: string
beforeEach(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-rename-'))
  file = path.join(stateDir, 'loopdesk.json')
  fs.writeFileSync(file, annotated(server.openaiBaseUrl))
  t = await startTestRuntime(server, { stateDir, runtime: { mediaGc: false } })
  t.runtime.core.credentials.set('local', 'sk-local-secret')
})
afterEach(async () => {
  await t.close()
  fs.rmSync(stateDir, { recursive: true, force: true })
})

const keys = () => ({ local: t.runtime.core.credentials.get('local'), lab: t.runtime.core.credentials.get('lab') })

/** a refused rename: the file byte for byte as it was, the key still under the old name */
async function refused(params: unknown) {
  const before = fs.readFileSync(file, 'utf8')
  const r = await t.raw('loopdesk.config.renameProvider', params)
  expect(fs.readFileSync(file, 'utf8')).toBe(before)
  expect(keys()).toEqual({ local: 'sk-local-secret', lab: undefined })
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.data)}`)
  return r.error
}

describe('loopdesk.config.renameProvider', () => {
  it('moves the entry (models, settings, comments), its stored key and the model refs, with the form edits, in one write', async () => {
    const { hash } = await t.call('config.get', {})
    const r = await t.call('loopdesk.config.renameProvider', {
      from: 'local',
      to: 'lab',
      baseHash: hash,
      patch: { models: { providers: { lab: { models: [{ id: 'm1', contextWindow: 64000, maxTokens: 1024 }, { id: 'm3' }] } } } },
      replacePaths: ['models.providers.lab.models'],
    })
    const text = fs.readFileSync(file, 'utf8')
    const saved = JSON5.parse(text)
    expect(Object.keys(saved.models.providers)).toEqual(['lab', 'other'])
    expect(saved.models.providers.lab).toEqual({
      baseUrl: server.openaiBaseUrl,
      api: 'openai-completions',
      headers: { 'X-Team': 'core' },
      models: [{ id: 'm1', contextWindow: 64000, maxTokens: 1024 }, { id: 'm3' }],
    })
    expect(saved.agents.defaults.model.primary).toBe('lab/m1')
    expect(saved.agents.list.map((a: { model?: string }) => a.model)).toEqual([undefined, 'lab/m2', 'other/x'])
    expect(r.movedRefs).toEqual(['agents.defaults.model.primary', 'agents.list[1].model'])
    // the comments of the file, those inside the renamed entry included, are still there
    for (const comment of ['// my models — edited by hand', '// the box under the desk', '// LAN address fixed in the router', '// default']) {
      expect(text).toContain(comment)
    }
    expect(fs.existsSync(`${file}.bak`)).toBe(false)
    // the key moved inside the runtime: never in the file or the reply
    expect(keys()).toEqual({ local: undefined, lab: 'sk-local-secret' })
    expect(text).not.toContain('sk-local-secret')
    expect(JSON.stringify(r)).not.toContain('sk-local-secret')
    expect(r.secrets.lab).toBe('set')
    expect(r.secrets.local).toBeUndefined()
    expect(r.issues).toEqual([])
    expect(r.hash).toBe((await t.call('config.get', {})).hash)
    // the runtime uses it at once under its new name
    const models = await t.call('models.list', {})
    expect(models.defaultModel).toBe('lab/m1')
    expect(models.models.filter((m) => m.provider === 'lab').map((m) => m.ref)).toEqual(['lab/m1', 'lab/m3'])
    expect(models.models.some((m) => m.provider === 'local')).toBe(false)
  })

  it('the default model renamed with it (its id edited in the form): the patch sets it in the same write', async () => {
    const r = await t.call('loopdesk.config.renameProvider', {
      from: 'local',
      to: 'lab',
      patch: { models: { providers: { lab: { models: [{ id: 'm1-large' }, { id: 'm2' }] } } }, agents: { defaults: { model: { primary: 'lab/m1-large' } } } },
      replacePaths: ['models.providers.lab.models'],
    })
    expect(r.movedRefs).toContain('agents.defaults.model.primary')
    const saved = JSON5.parse(fs.readFileSync(file, 'utf8'))
    expect(saved.agents.defaults.model.primary).toBe('lab/m1-large')
    expect((await t.call('models.list', {})).defaultModel).toBe('lab/m1-large')
  })

  it("sessions whose model names the old provider follow it; others are left alone", async () => {
    await t.call('sessions.create', { key: 'agent:main:a', model: 'local/m2' })
    await t.call('sessions.create', { key: 'agent:main:b', model: 'other/x' })
    const r = await t.call('loopdesk.config.renameProvider', { from: 'local', to: 'lab' })
    expect(r.movedSessions).toBe(1)
    const rows = (await t.call('sessions.list', {})).sessions
    expect(rows.find((s) => s.key === 'agent:main:a')).toMatchObject({ modelProvider: 'lab', model: 'm2' })
    expect(rows.find((s) => s.key === 'agent:main:b')).toMatchObject({ modelProvider: 'other', model: 'x' })
    expect(t.runtime.core.store('main').get('agent:main:a')?.modelOverride).toBe('lab/m2')
  })

  it('in a file with problems: refused until they are fixed (the settings in use still name the old provider, its key stays)', async () => {
    const broken = fs.readFileSync(file, 'utf8').replace('"contextWindow": 32000', '"contextWindow": -1').replace('"agents": {', '"gateway": { "bind": "moon" },\n  "agents": {')
    fs.writeFileSync(file, broken)
    ;(t.runtime.core.config as unknown as { reload(): void }).reload()
    const e = await refused({ from: 'local', to: 'lab' })
    expect(e).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'CONFIG_INVALID' } })
    expect(e.message).toMatch(/^cannot rename “local” while the config file has problems \(.*gateway\.bind.*\): fix them first — the settings in use still name “local”$/)
    // fixed (one save at a time), the rename goes through; the entry's comments stay
    const fixed = await t.call('config.patch', { raw: '{ gateway: { bind: "loopback" }, models: { providers: { local: { models: [{ id: "m1", contextWindow: 32000, maxTokens: 1024 }, { id: "m2", reasoning: true }] } } } }', replacePaths: ['models.providers.local.models'] })
    expect(fixed.issues).toEqual([])
    await t.call('loopdesk.config.renameProvider', { from: 'local', to: 'lab' })
    expect(keys()).toEqual({ local: undefined, lab: 'sk-local-secret' })
    expect(fs.readFileSync(file, 'utf8')).toContain('// the box under the desk')
  })

  it('a provider without a stored key does not inherit an orphan key stored under the new name', async () => {
    t.runtime.core.credentials.delete('local')
    t.runtime.core.credentials.set('lab', 'sk-orphan')
    await t.call('loopdesk.config.renameProvider', { from: 'local', to: 'lab' })
    expect(keys()).toEqual({ local: undefined, lab: undefined })
  })

  it('refuses a taken name, a built-in name, a built-in provider, an unknown one, a bad name, a stray patch, a stale hash', async () => {
    expect(await refused({ from: 'local', to: 'other' })).toMatchObject({ code: 'INVALID_REQUEST', message: 'a provider named “other” exists already: pick another name', details: { code: 'NAME_TAKEN' } })
    expect(await refused({ from: 'local', to: 'openai' })).toMatchObject({ code: 'INVALID_REQUEST', message: '“openai” is the name of a built-in provider: pick another name' })
    expect(await refused({ from: 'anthropic', to: 'mine' })).toMatchObject({ message: '“anthropic” is a built-in provider: only providers of your own can be renamed' })
    expect(await refused({ from: 'nope', to: 'lab' })).toMatchObject({ code: 'NOT_FOUND', message: 'no provider named “nope” in the config' })
    expect(await refused({ from: 'local', to: 'local' })).toMatchObject({ message: 'the provider is named “local” already' })
    expect((await refused({ from: 'local', to: 'a b' })).message).toMatch(/^invalid loopdesk\.config\.renameProvider params: \/to/)
    expect((await refused({ from: 'local', to: 'lab', patch: { agents: { defaults: { timeoutSeconds: 1 } } } })).message).toBe(
      'loopdesk.config.renameProvider: patch may only change models.providers.lab and agents.defaults.model.primary',
    )
    expect((await refused({ from: 'local', to: 'lab', patch: { models: { providers: { other: null } } } })).message).toBe(
      'loopdesk.config.renameProvider: patch may only change models.providers.lab and agents.defaults.model.primary',
    )
    // a patch making the entry invalid, a list dropped without replacePaths
    expect((await refused({ from: 'local', to: 'lab', patch: { models: { providers: { lab: { baseUrl: 'ftp://x' } } } } })).message).toMatch(/^invalid config: models\.providers\.lab\.baseUrl/)
    expect((await refused({ from: 'local', to: 'lab', patch: { models: { providers: { lab: { models: [] } } } } })).details).toMatchObject({ path: 'models.providers.lab.models' })
    expect(await refused({ from: 'local', to: 'lab', baseHash: 'stale' })).toMatchObject({ details: { code: 'CONFLICT' } })
  })

  it('a stored key that cannot be read (the keychain changed) is not dropped by a rename: refused, with what to do', async () => {
    const store = t.runtime.core.credentials
    const get = store.get.bind(store)
    const spy = vi.spyOn(store, 'get').mockImplementation((id) => (id === 'local' ? undefined : get(id)))
    try {
      const before = fs.readFileSync(file, 'utf8')
      const r = await t.raw('loopdesk.config.renameProvider', { from: 'local', to: 'lab' })
      expect(r).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', details: { code: 'KEY_UNREADABLE' } } })
      expect(!r.ok && r.error.message).toBe('the key stored for “local” cannot be read (the system keychain changed?): save it again or remove it, then rename')
      expect(fs.readFileSync(file, 'utf8')).toBe(before)
    } finally {
      spy.mockRestore()
    }
    expect(keys()).toEqual({ local: 'sk-local-secret', lab: undefined })
  })

  it('a key that cannot be stored undoes the move: nothing written, the key stays with the old name', async () => {
    const store = t.runtime.core.credentials
    const set = store.set.bind(store)
    const spy = vi.spyOn(store, 'set').mockImplementation((id, key) => {
      if (key === 'sk-new') throw new Error('the keychain is locked')
      set(id, key)
    })
    try {
      const e = await refused({ from: 'local', to: 'lab', patch: { models: { providers: { lab: { apiKey: 'sk-new' } } } } })
      expect(e.message).toBe('the keychain is locked')
    } finally {
      spy.mockRestore()
    }
  })

  it('over the gateway: an admin client renames; the call counts against the config write limit', async () => {
    const TOKEN = 'rename-token-0123456789'
    const gw = await startGateway({ host: t.runtime, port: 0, token: TOKEN, stateDir: t.stateDir, staticDir: null, limits: { controlPlaneWrites: 2 } })
    const c = await connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    try {
      const r = (await c.request('loopdesk.config.renameProvider', { from: 'local', to: 'lab' })) as { ok: boolean; movedRefs: string[] }
      expect(r).toMatchObject({ ok: true, movedRefs: ['agents.defaults.model.primary', 'agents.list[1].model'] })
      expect(keys()).toEqual({ local: undefined, lab: 'sk-local-secret' })
      // a refused rename wrote nothing: its slot is given back
      await expect(c.request('loopdesk.config.renameProvider', { from: 'local', to: 'lab2' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'NOT_FOUND' } })
      await c.request('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 5 } } } })
      // two writes in the window: the third is refused, a rename like a config.patch
      await expect(c.request('loopdesk.config.renameProvider', { from: 'lab', to: 'lab3' })).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { code: 'RATE_LIMITED' } })
      expect(keys().lab).toBe('sk-local-secret')
    } finally {
      await c.close()
      await gw.close()
    }
  })
})
