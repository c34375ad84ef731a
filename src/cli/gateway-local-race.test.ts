// `gateway run` and `agent --local` started at the same moment: exactly one runs a runtime on the state dir. The
// gateway used to check the folder, build its runtime and only then write gateway.json, so a `--local` run starting
// in between read "none" everywhere and both ran. Now `gateway run` records itself (gateway/runtimes/) in the same
// locked step as its check, before its runtime is built. Real processes, every wait bounded.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'
import { liveEmbeddedRuntime } from '../main/gateway/embedded-runtimes'
import { readGatewayInfo } from '../main/gateway/state-files'
import { runBin } from './test-support'

let server: ModelServer
const started: ReturnType<typeof runBin>[] = []

beforeAll(async () => {
  // a --local run's reply waits before its first word: it still holds the folder while the gateway starts
  server = await startModelServer({ fallback: { text: 'done', headerDelayMs: 5_000 } })
})
afterAll(async () => {
  await server?.close()
})
afterEach(() => {
  for (const r of started.splice(0)) r.child.kill('SIGKILL')
})

function stateDir(): string {
  const dir = tempDir('loopdesk-gw-local-race-')
  fs.writeFileSync(path.join(dir, 'loopdesk.json'), JSON.stringify(testConfig(server), null, 2))
  return dir
}

/** the CLI, killed after `ms` if it has not ended (a process that hangs fails the test instead of stalling it) */
function run(args: string[], dir: string, ms = 60_000) {
  const r = runBin(args, { LOOPDESK_STATE_DIR: dir, LOOPDESK_V8_POOL: '0' })
  started.push(r)
  const timer = setTimeout(() => r.child.kill('SIGKILL'), ms)
  void r.then(() => clearTimeout(timer))
  return r
}

/** resolves once `gateway run` says it listens (true), or with false when it ended without */
function listening(r: ReturnType<typeof runBin>): Promise<boolean> {
  return new Promise((resolve) => {
    let out = ''
    r.child.stdout!.on('data', (d) => {
      out += String(d)
      if (out.includes('listening on')) resolve(true)
    })
    void r.then(() => resolve(out.includes('listening on')))
  })
}

describe('gateway run and agent --local on one state dir', () => {
  it('gateway run claims the folder before its runtime is built: a --local run started then is refused in one line', async () => {
    const dir = stateDir()
    const gw = run(['gateway', 'run', '--port', '0'], dir)
    const serving = listening(gw)
    // its record is there from the claim on, before gateway.json and for as long as it serves
    await vi.waitFor(() => expect(liveEmbeddedRuntime(dir)?.launchedBy).toBe('gateway'), { timeout: 30_000, interval: 20 })
    const pid = gw.child.pid
    const local = await run(['agent', '--local', '-m', 'hi'], dir)
    expect(local.code).toBe(1)
    expect(local.stdout).toBe('')
    // either line names the gateway: its record (still starting) or gateway.json (already listening)
    expect(local.stderr).toMatch(
      new RegExp(`^loopdesk: a gateway \\((\`loopdesk gateway run\`, pid ${pid}|pid ${pid}, ws://127\\.0\\.0\\.1:\\d+)\\) owns ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; run without --local to use it, or stop it first\\n$`),
    )
    expect(await serving).toBe(true)
    gw.child.kill('SIGTERM')
    expect((await gw).code).toBe(0)
    // gone with it: nothing blocks the next start
    expect(liveEmbeddedRuntime(dir)).toBeUndefined()
    expect(readGatewayInfo(dir)).toBeUndefined()
  }, 90_000)

  it('started at the same moment: exactly one of them runs, the other says why in one line (exit 1)', async () => {
    const dir = stateDir()
    const gw = run(['gateway', 'run', '--port', '0'], dir)
    const serving = listening(gw)
    const locals = [run(['agent', '--local', '-m', 'hi'], dir)]
    const results = await Promise.all(locals)
    const gwServed = await Promise.race([serving, new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))])
    const ran = results.filter((r) => r.code === 0)
    for (const r of results.filter((x) => x.code !== 0)) {
      expect(r.code).toBe(1)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^loopdesk: (a gateway .* owns .*; run without --local to use it, or stop it first|a `loopdesk agent --local` run \(pid \d+\) already uses .*; wait for it or stop it first)\n$/)
    }
    if (gwServed) {
      expect(ran.map((r) => r.stdout)).toEqual([])
      gw.child.kill('SIGTERM')
      expect((await gw).code).toBe(0)
    } else {
      const g = await gw
      expect(g.code).toBe(1)
      expect(g.stderr).toMatch(/^loopdesk: a `loopdesk agent --local` run \(pid \d+\) already uses this state dir — wait for it or stop it/)
      expect(g.stderr.trim().split('\n')).toHaveLength(1)
      expect(ran).toHaveLength(1)
      expect(ran[0]!.stdout).toBe('done\n')
    }
  }, 120_000)
})
