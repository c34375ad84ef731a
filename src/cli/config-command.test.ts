// `loopdesk config`: get / set / unset / path through the running gateway. In-process CLI against the real
// runtime + gateway.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { startGateway } from '../main/gateway/server'
import { parseValue, patchAt, pathKeys } from './commands/config'

const TOKEN = 'config-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN)

// each call is its own device: the gateway allows a device 3 config writes a minute (OpenClaw's limit)
const cli = (args: string[], stdin?: string) =>
  runCliCaptured(['config', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-config-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN }, stdin)
const onDisk = () => JSON.parse(fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8'))

describe('loopdesk config', () => {
  it('get prints a value (strings bare, the rest as JSON), or says it is not set', async () => {
    expect(await cli(['get', 'agents.defaults.model.primary'])).toMatchObject({ code: 0, out: 'mock/m1\n' })
    const whole = await cli(['get', '--json'])
    expect(JSON.parse(whole.out)).toMatchObject({ agents: { defaults: { model: { primary: 'mock/m1' } } } })
    expect(await cli(['get', 'agents.defaults.timeoutSeconds'])).toMatchObject({ code: 1, err: 'loopdesk: agents.defaults.timeoutSeconds is not set (defaults apply)\n' })
    // a number steps into a list
    expect(await cli(['get', 'models.providers.mock.models.0.id'])).toMatchObject({ code: 0, out: 'm1\n' })
    expect((await cli(['path'])).out).toBe(`${env.stack.rt.stateDir}/loopdesk.json\n`)
  })

  it('--json: get of a path that is not set prints a JSON error on stdout; set, unset and path refuse --json (their lines are text)', async () => {
    const r = await cli(['get', 'agents.defaults.timeoutSeconds', '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.out)).toEqual({ ok: false, error: { message: 'agents.defaults.timeoutSeconds is not set (defaults apply)', exitCode: 1 } })
    const before = fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8')
    for (const args of [['set', 'agents.defaults.timeoutSeconds', '30'], ['unset', 'agents.defaults.model'], ['path']]) {
      const refused = await cli([...args, '--json'])
      expect(refused.code, args.join(' ')).toBe(2)
      expect(JSON.parse(refused.out).error.message).toBe(`config ${args[0]} takes no --json (see: loopdesk --help)`)
    }
    expect(fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8')).toBe(before)
  })

  it('unset of a path that is not set says so at once and writes nothing', async () => {
    const before = fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8')
    const started = Date.now()
    expect(await cli(['unset', 'no.such'])).toMatchObject({ code: 1, err: 'loopdesk: no.such is not set; nothing to unset\n' })
    expect(Date.now() - started).toBeLessThan(10_000) // no wait for a write slot
    expect(fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8')).toBe(before)
  })

  it('path without a gateway: the file a gateway of that state dir reads (LOOPDESK_CONFIG_PATH included); not for a --url elsewhere', async () => {
    const dir = tempDir('loopdesk-cli-config-nogw-')
    // a port nothing listens on, from the state dir's own config
    fs.writeFileSync(`${dir}/loopdesk.json`, JSON.stringify({ gateway: { port: 1 } }))
    const r = await runCliCaptured(['config', 'path', '--state-dir', dir], {})
    expect(r).toMatchObject({ code: 0, out: `${dir}/loopdesk.json\n`, err: 'loopdesk: note: no gateway running; that is the file one started with this state dir reads\n' })
    const moved = await runCliCaptured(['config', 'path', '--state-dir', dir], { LOOPDESK_CONFIG_PATH: `${dir}/elsewhere.json5` })
    expect(moved.out).toBe(`${dir}/elsewhere.json5\n`)
    const remote = await runCliCaptured(['config', 'path', '--state-dir', dir, '--url', 'ws://127.0.0.1:1', '--token', 'x'.repeat(20)], {})
    expect(remote).toMatchObject({ code: 3, out: '' })
  })

  it('set writes a validated value (JSON when it parses), applied at once; a bad one is refused with its path and nothing is written', async () => {
    expect(await cli(['set', 'agents.defaults.timeoutSeconds', '120'])).toMatchObject({ code: 0, out: 'set agents.defaults.timeoutSeconds\n' })
    expect(onDisk().agents.defaults.timeoutSeconds).toBe(120)
    expect(env.stack.rt.runtime.core.config.current.raw.agents?.defaults?.timeoutSeconds).toBe(120)
    const before = fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8')
    const bad = await cli(['set', 'agents.defaults.timeoutSeconds', 'soon'])
    expect(bad.code).toBe(1)
    expect(bad.err).toContain('agents.defaults.timeoutSeconds: must be integer >= 0')
    expect(fs.readFileSync(`${env.stack.rt.stateDir}/loopdesk.json`, 'utf8')).toBe(before)
    expect(await cli(['unset', 'agents.defaults.timeoutSeconds'])).toMatchObject({ code: 0, out: 'unset agents.defaults.timeoutSeconds\n' })
    expect(onDisk().agents.defaults.timeoutSeconds).toBeUndefined()
  })

  it('a default model the runtime cannot run is written (valid config) with a note saying why', async () => {
    const r = await cli(['set', 'agents.defaults.model.primary', 'nope/zz'])
    expect(r).toMatchObject({ code: 0, out: 'set agents.defaults.model.primary\n' })
    expect(r.err).toBe('loopdesk: note: agents.defaults.model.primary: unknown model provider "nope" in "nope/zz"\n')
    const back = await cli(['set', 'agents.defaults.model.primary', 'mock/m1'])
    expect(back).toMatchObject({ code: 0, err: '' })
  })

  it('set on a file with problems: written when it adds none, and says which remain (not applied until fixed)', async () => {
    const file = `${env.stack.rt.stateDir}/loopdesk.json`
    const good = fs.readFileSync(file, 'utf8')
    const cfg = env.stack.rt.runtime.core.config as unknown as { reload(): void }
    try {
      const broken = JSON.parse(good)
      broken.gateway = { ...broken.gateway, bind: 'moon' }
      broken.agents.defaults.timeoutSecs = 5
      fs.writeFileSync(file, JSON.stringify(broken))
      cfg.reload()
      const r = await cli(['set', 'gateway.bind', 'loopback'])
      expect(r).toMatchObject({ code: 0, out: 'set gateway.bind\n' })
      expect(r.err).toBe('loopdesk: the file still has 1 problem(s); the last good config stays in use until they are fixed:\n  agents.defaults.timeoutSecs: unknown key\n')
      expect(onDisk().gateway.bind).toBe('loopback')
      // get shows the value in use and says what the file holds instead, not a value that looks lost
      expect(await cli(['get', 'gateway.bind'])).toMatchObject({
        code: 1,
        err: 'loopdesk: gateway.bind is not set (defaults apply)\nloopdesk: the file says gateway.bind = "loopback", not in use until its 1 problem(s) are fixed (loopdesk config get)\n',
      })
      expect(await cli(['get', 'agents.defaults.model.primary'])).toMatchObject({ code: 0, out: 'mock/m1\n', err: '' })
      expect(await cli(['get', 'agents.defaults.timeoutSecs'])).toMatchObject({ code: 1, err: expect.stringContaining('the file says agents.defaults.timeoutSecs = 5') })
      expect(await cli(['unset', 'agents.defaults.timeoutSecs'])).toMatchObject({ code: 0, err: '' })
      expect(env.stack.rt.runtime.core.config.issues).toEqual([])
    } finally {
      fs.writeFileSync(file, good)
      cfg.reload()
    }
  })

  it('allow-listing a build/test runner is written, with a warning per runner entry (it runs what the agent writes)', async () => {
    const r = await cli(['set', 'tools.exec.allowlist', '["git status*", "npm test", "make*"]'])
    expect(r).toMatchObject({ code: 0, out: 'set tools.exec.allowlist\n' })
    expect(r.err).toBe(
      'loopdesk: warning: "npm test" runs code the agent can write (package.json scripts): the agent may run anything through it without asking\n' +
        'loopdesk: warning: "make*" runs code the agent can write (the Makefile): the agent may run anything through it without asking\n',
    )
    expect(onDisk().tools.exec.allowlist).toEqual(['git status*', 'npm test', 'make*'])
    expect((await cli(['set', 'tools.exec.allowlist', '["git status*"]'])).err).toBe('')
    await cli(['unset', 'tools'])
  })

  it('an object is merged into the section (its other keys stay); a list replaces the list', async () => {
    await cli(['set', 'agents.defaults', '{"timeoutSeconds": 300}'])
    expect(onDisk().agents.defaults).toMatchObject({ timeoutSeconds: 300, model: { primary: 'mock/m1' } })
    await cli(['set', 'gateway.allowedOrigins', '["http://a.example"]'])
    await cli(['set', 'gateway.allowedOrigins', '["http://b.example"]'])
    expect(onDisk().gateway.allowedOrigins).toEqual(['http://b.example'])
    await cli(['unset', 'agents.defaults.timeoutSeconds'])
    await cli(['unset', 'gateway'])
  })

  it('a secret from stdin is stored write-only: never echoed, never in the file as given', async () => {
    const secret = 'sk-cli-SECRET-0123456789'
    const r = await cli(['set', 'models.providers.openai.apiKey', '--stdin'], `${secret}\n`)
    expect(r).toMatchObject({ code: 0, out: 'set models.providers.openai.apiKey\n', err: '' })
    expect((await env.stack.rt.call('config.get', {})).secrets.openai).toBe('set')
    expect((await cli(['get', 'models.providers.openai.apiKey'])).out).toBe('__REDACTED__\n')
    expect(JSON.stringify((await cli(['get', '--json'])).out)).not.toContain(secret)
    // on the command line it works too, with a note about the shell history
    const argv = await cli(['set', 'models.providers.openai.apiKey', secret])
    expect(argv.err).toContain('--stdin keeps it out')
    await cli(['unset', 'models.providers.openai.apiKey'])
  })

  it('a stored key shows in the object views of its provider too, as the placeholder', async () => {
    const secret = 'sk-mock-SECRET-0123456789'
    expect((await cli(['set', 'models.providers.mock.apiKey', '--stdin'], `${secret}\n`)).code).toBe(0)
    for (const path of ['models.providers.mock', 'models.providers', 'models']) {
      const out = (await cli(['get', path, '--json'])).out
      expect(out, path).toContain('"apiKey":"__REDACTED__"')
      expect(out).not.toContain(secret)
    }
    expect(JSON.parse((await cli(['get', '--json'])).out).models.providers.mock.apiKey).toBe('__REDACTED__')
    await cli(['unset', 'models.providers.mock.apiKey'])
    expect((await cli(['get', 'models.providers.mock', '--json'])).out).not.toContain('apiKey')
  })

  it('rename-provider moves a provider of your own, its stored key and the refs to it; a taken or built-in name is refused', async () => {
    const core = env.stack.rt.runtime.core
    core.credentials.set('mockant', 'sk-cli-rename')
    const taken = await cli(['rename-provider', 'mockant', 'openai'])
    expect(taken).toMatchObject({ code: 1, out: '' })
    expect(taken.err).toContain('“openai” is the name of a built-in provider: pick another name')
    expect(await cli(['rename-provider', 'mockant'])).toMatchObject({ code: 2 })
    await core.config.patch({ agents: { list: [{ id: 'main', default: true, model: 'mockant/c1' }] } })
    expect(await cli(['rename-provider', 'mockant', 'lab'])).toMatchObject({ code: 0, out: 'renamed provider mockant to lab\nnow naming lab: agents.list[0].model\n' })
    // in its place among the providers (earlier tests added others after it)
    expect(Object.keys(onDisk().models.providers).slice(0, 2)).toEqual(['mock', 'lab'])
    expect(onDisk().models.providers.mockant).toBeUndefined()
    expect(onDisk().agents.list[0].model).toBe('lab/c1')
    expect(core.credentials.get('lab')).toBe('sk-cli-rename')
    expect(core.credentials.get('mockant')).toBeUndefined()
    // and back, as the other tests expect it
    expect((await cli(['rename-provider', 'lab', 'mockant'])).code).toBe(0)
    await core.config.patch({ agents: { list: null } })
    core.credentials.delete('mockant')
  })

  it('unset of a provider names the sessions that use it and what becomes of them (it removes it all the same)', async () => {
    const { rt } = env.stack
    const addProvider = async (id: string) =>
      rt.call('config.patch', { patch: { models: { providers: { [id]: { baseUrl: env.server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'x' }, { id: 'y' }] } } } }, baseHash: (await rt.call('config.get', {})).hash })
    await addProvider('lab2')
    const pinned = await rt.call('sessions.create', { label: 'Pinned', model: 'lab2/x' })
    const ran = await rt.call('sessions.create', { label: 'Ran', model: 'lab2/y' })
    await rt.call('sessions.patch', { key: ran.key, model: null }) // back to the default; its row still names lab2
    const r = await cli(['unset', 'models.providers.lab2'])
    expect(r).toMatchObject({ code: 0, out: 'unset models.providers.lab2\n' })
    expect(r.err).toBe(
      `loopdesk: warning: 1 session chose a model of “lab2” (${pinned.key}): its messages fail until another model is chosen (the model name in the conversation header, or /model).\n` +
        `loopdesk: warning: 1 session last ran on “lab2” (${ran.key}): from its next message it uses the default model, mock/m1.\n`,
    )
    expect(onDisk().models.providers.lab2).toBeUndefined()
    // nothing uses the one unset next: no warning
    await addProvider('lab3')
    expect(await cli(['unset', 'models.providers.lab3'])).toMatchObject({ code: 0, err: '' })
  })

  it('refuses what is not a config command, before connecting', async () => {
    for (const args of [[], ['frob'], ['set', 'a.b'], ['set', 'a[0].b', '1'], ['get', 'a..b'], ['set', 'x', '1', '--stdin'], ['path', 'x']]) {
      expect((await cli(args)).code, args.join(' ')).toBe(2)
    }
  })

  it('paths, patches and values', () => {
    expect(pathKeys('a.b.c')).toEqual(['a', 'b', 'c'])
    expect(patchAt(['a', 'b'], 1)).toEqual({ a: { b: 1 } })
    expect(parseValue('true')).toBe(true)
    expect(parseValue('["x"]')).toEqual(['x'])
    expect(parseValue('openai/gpt-5')).toBe('openai/gpt-5')
  })
})

describe('loopdesk config set under the gateway\'s write limit', () => {
  it('waits once for the next write slot and then writes', async () => {
    // a gateway of its own with a short window: one config write per 1.5 s per device
    const gw = await startGateway({ host: env.stack.rt.runtime, port: 0, token: TOKEN, stateDir: env.stack.rt.stateDir, staticDir: null, writeInfo: false, limits: { controlPlaneWrites: 1, controlPlaneWindowMs: 1500 } })
    try {
      const device = tempDir('loopdesk-cli-config-limit-')
      const set = (v: string) => runCliCaptured(['config', 'set', 'agents.defaults.timeoutSeconds', v, '--url', gw.url, '--state-dir', device], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
      expect(await set('61')).toMatchObject({ code: 0 })
      const second = await set('62')
      expect(second).toMatchObject({ code: 0, out: 'set agents.defaults.timeoutSeconds\n', err: expect.stringMatching(/waiting 2 s/) })
      expect(onDisk().agents.defaults.timeoutSeconds).toBe(62)
    } finally {
      await gw.close()
      await cli(['unset', 'agents.defaults.timeoutSeconds'])
    }
  })
})
