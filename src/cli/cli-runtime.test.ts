// The CLI as real processes over the real runtime and the scripted model server:
// `gateway run` (headless), `gateway call`, `agent` through it, SIGTERM drain, and `agent --local`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { testConfig } from '../../test/fixtures/test-runtime'
import { infoPath, readGatewayInfo } from '../main/gateway/state-files'
import { runBin, startGatewayProcess as startGateway } from './test-support'

let server: ModelServer
let stateDir: string

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runBin(args, { LOOPDESK_STATE_DIR: stateDir, ...env })
// LOOPDESK_V8_POOL=0: this process serves itself (the relaunch is v8-pool.test.ts's)
const startGatewayProcess = () => startGateway({ LOOPDESK_STATE_DIR: stateDir, LOOPDESK_V8_POOL: '0' })

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  stateDir = mkdtempSync(join(tmpdir(), 'loopdesk-cli-rt-'))
  writeFileSync(join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server), null, 2))
})
afterAll(async () => {
  await server?.close()
  rmSync(stateDir, { recursive: true, force: true })
})

describe('loopdesk CLI over the real runtime', () => {
  it('gateway run → gateway call / agent / --local refusal → SIGTERM drains and exits 0', async () => {
    const gw = await startGatewayProcess()
    try {
      expect(readGatewayInfo(stateDir)).toMatchObject({ url: gw.url, pid: gw.child.pid })
      // the CLI runs from a bundle elsewhere (bin/cli-bundle.mjs): it still serves this package's built UI
      if (existsSync(join(fileURLToPath(new URL('../../out/renderer', import.meta.url)), 'index.html'))) {
        const page = await fetch(gw.url.replace('ws://', 'http://') + '/')
        expect(page.status).toBe(200)
        expect(await page.text()).toMatch(/<html/i)
      }

      const health = await run(['gateway', 'call', 'health', '--json'])
      expect(health.stderr).toBe('')
      expect(health.code).toBe(0)
      expect(JSON.parse(health.stdout)).toMatchObject({ ok: true })

      server.push({ text: 'Streaming hello from the CLI', chunks: 4 })
      const agent = await run(['agent', '-m', 'say hello', '--session-key', 'agent:main:cli'])
      expect(agent.stderr).toBe('')
      expect(agent.code).toBe(0)
      expect(agent.stdout).toBe('Streaming hello from the CLI\n')

      server.push({ text: 'json reply', chunks: 1 })
      const json = await run(['agent', '-m', 'json please', '--json'])
      expect(json.code).toBe(0)
      expect(JSON.parse(json.stdout)).toMatchObject({ status: 'ok', result: { payloads: [{ text: 'json reply' }] } })

      // the headless runtime retries a 5xx twice: fail all three attempts
      for (let i = 0; i < 3; i++) server.push({ status: 500, message: 'upstream exploded' })
      const failed = await run(['agent', '-m', 'fail please', '--session-key', 'agent:main:clifail'])
      expect(failed.code).toBe(1)
      expect(failed.stderr).toMatch(/error: .*upstream exploded/)

      const local = await run(['agent', '--local', '-m', 'x'])
      expect(local.code).toBe(1)
      expect(local.stderr).toMatch(/owns .* run without --local/)

      // a slow run in flight when SIGTERM arrives still completes (drain) before the gateway exits
      server.push({ text: 'slow but finished', chunks: 5, delayMs: 100 })
      const inflight = run(['agent', '-m', 'slow', '--session-key', 'agent:main:drain'])
      await server.waitForRequests(server.requests.length + 1, 10_000)
      gw.child.kill('SIGTERM')
      const drained = await inflight
      expect(drained.code).toBe(0)
      expect(drained.stdout).toBe('slow but finished\n')
      expect(await gw.exited).toBe(0)
      expect(existsSync(infoPath(stateDir))).toBe(false)
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL')
    }
  }, 180_000)

  it('agent --local runs embedded without a gateway', async () => {
    server.push({ text: 'local reply', chunks: 2 })
    const r = await run(['agent', '--local', '-m', 'hi', '--session-key', 'agent:main:local'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('local reply\n')
  }, 60_000)

  it('no gateway: agent and dashboard fail with exit 3 and one line', async () => {
    const a = await run(['agent', '-m', 'hi'])
    expect(a.code).toBe(3)
    expect(a.stderr.trim().split('\n')).toHaveLength(1)
    const d = await run(['dashboard'])
    expect(d.code).toBe(3)
  }, 60_000)
})
