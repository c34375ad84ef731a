// `loopdesk gateway run` from the CLI's bundle (bin/cli-bundle.mjs) with the socket thread: the bundle ships its
// worker beside the chunks, so the gateway serves from the thread — no "this build has no socket-thread worker"
// warning and fallback to the main thread. A cache of its own (LOOPDESK_CLI_CACHE): the test builds the bundle
// even where node_modules is shared (a worktree's symlink) or LOOPDESK_CLI_TSX=1 is set for the suite.
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../test/fixtures/temp-dir'
import { runBin, startGatewayProcess } from './test-support'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// under node_modules, as the real cache is: the bundle's package imports resolve from there
const cache = join(ROOT, 'node_modules', '.cache', `loopdesk-test-thread-${process.pid}`)
afterAll(() => rmSync(cache, { recursive: true, force: true }))

describe('gateway run from the CLI bundle, LOOPDESK_SOCKET_THREAD=1', () => {
  it('serves `gateway call health` from the socket thread, its worker shipped beside the bundle', async () => {
    // LOOPDESK_V8_POOL=0: the process that serves is the one started (no relaunch)
    const env = { LOOPDESK_CLI_TSX: '', LOOPDESK_CLI_CACHE: cache, LOOPDESK_SOCKET_THREAD: '1', LOOPDESK_STATE_DIR: tempDir('loopdesk-cli-thread-'), LOOPDESK_V8_POOL: '0' }
    const gw = await startGatewayProcess(env)
    try {
      const [bundle] = readdirSync(cache).filter((d) => /^cli-[0-9a-f]+$/.test(d))
      expect(existsSync(join(cache, bundle, 'main.mjs'))).toBe(true)
      expect(existsSync(join(cache, bundle, 'socket-thread-worker.mjs'))).toBe(true)
      const health = await runBin(['gateway', 'call', 'health', '--url', gw.url], env)
      expect([health.code, health.stderr]).toEqual([0, ''])
      expect(JSON.parse(health.stdout)).toMatchObject({ ok: true })
      expect(gw.output()).not.toMatch(/socket-thread worker|not part of this build|socket thread failed/)
    } finally {
      gw.child.kill('SIGTERM')
      await gw.exited
    }
  }, 120_000)
})
