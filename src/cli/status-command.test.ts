// `loopdesk status`: the gateway's state in a few lines. In-process CLI against the real runtime + gateway.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'

const TOKEN = 'status-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN)

/** the runtime re-reads loopdesk.json (these tests run it without the file watcher) */
const reloadConfig = () => (env.stack.rt.runtime.core.config as unknown as { load(): void }).load()

const cli = (args: string[]) =>
  runCliCaptured(['status', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-status-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk status', () => {
  it('says what the gateway is doing, in a few lines; --json for scripts', async () => {
    const r = await cli([])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^loopdesk \S+ — up \d+ s\n/)
    expect(r.out).toContain(`state dir  ${env.stack.rt.stateDir}\n`)
    // the count is OpenClaw's sessions.count (status.sessions is an object on the wire)
    const count = (await env.stack.rt.runtime.handlers.status({}, { transport: 'local' })).sessions.count
    expect(r.out).toContain(`\nruns       0 running; ${count} session${count === 1 ? '' : 's'}\n`)
    expect(r.out).toContain('\nnetwork    direct (no proxy set)\n')
    expect(r.out).toMatch(/\nconfig {5}valid\n$/)
    const json = JSON.parse((await cli(['--json'])).out)
    expect(json).toMatchObject({ ok: true, activeRuns: 0, configIssues: [] })
  })

  it('a broken config is named, with exit 1 (the last good config still runs)', async () => {
    const file = path.join(env.stack.rt.stateDir, 'loopdesk.json')
    const good = fs.readFileSync(file, 'utf8')
    try {
      fs.writeFileSync(file, '{ agents: { defaults: { timeoutSeconds: "soon" } } }')
      reloadConfig()
      const r = await cli([])
      expect(r.code).toBe(1)
      expect(r.out).toMatch(/\nconfig {5}1 problem \(the last good config is in use\):\n {2}agents\.defaults\.timeoutSeconds: .+\n$/)
    } finally {
      fs.writeFileSync(file, good)
      reloadConfig()
    }
  })

  it('a default model runs cannot use (unknown provider or id) is named, with exit 1, though the config is valid', async () => {
    const file = path.join(env.stack.rt.stateDir, 'loopdesk.json')
    const good = fs.readFileSync(file, 'utf8')
    try {
      const cfg = JSON.parse(good)
      cfg.agents = { ...cfg.agents, defaults: { ...cfg.agents?.defaults, model: { primary: 'nope/zz' } }, list: [{ id: 'ops', model: 'mock/not-served' }] }
      fs.writeFileSync(file, JSON.stringify(cfg))
      reloadConfig()
      const r = await cli([])
      expect(r.code).toBe(1)
      expect(r.out).toContain('\nconfig     valid\n')
      expect(r.out).toMatch(/\nmodels {5}2 configured models cannot be used \(runs that need them fail\):\n {2}agents\.defaults\.model\.primary: unknown model provider "nope"[^\n]*\n {2}agents\.list\[0\]\.model \(ops\): unknown model "not-served" for provider "mock"/)
      expect(JSON.parse((await cli(['--json'])).out).modelProblems).toHaveLength(2)
    } finally {
      fs.writeFileSync(file, good)
      reloadConfig()
    }
    expect((await cli([])).code).toBe(0)
  })

  it('warns when loopdesk.json holds a key and other users can read it (no secret printed); exit stays 0', async () => {
    const file = path.join(env.stack.rt.stateDir, 'loopdesk.json')
    const good = fs.readFileSync(file, 'utf8')
    const mode = fs.statSync(file).mode & 0o777
    const config = env.stack.rt.runtime.core.config as unknown as { load(): void; reload(): void }
    try {
      const cfg = JSON.parse(good)
      cfg.models = { ...cfg.models, providers: { ...cfg.models?.providers, x: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-status-secret-42' } } }
      fs.writeFileSync(file, JSON.stringify(cfg))
      fs.chmodSync(file, 0o644)
      config.reload() // a hand edit while running: the runtime does not chmod behind the user's back
      const r = await cli([])
      expect(r.code).toBe(0)
      expect(r.out).toContain(`\nwarning    ${file} holds secrets (models.providers.x.apiKey) and other users can read it (mode 0644): run chmod 600 ${file}\n`)
      expect(r.out).not.toContain('sk-status-secret-42')
      expect(JSON.parse((await cli(['--json'])).out).configFileExposed).toEqual({ path: file, mode: '0644', secrets: ['models.providers.x.apiKey'] })
      config.load() // as at start: narrowed
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect((await cli([])).out).not.toContain('warning')
    } finally {
      fs.writeFileSync(file, good)
      fs.chmodSync(file, mode)
      config.load()
    }
  })
})
