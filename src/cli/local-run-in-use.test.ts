// A runtime without a gateway on a state dir — `loopdesk agent --local` — is seen by whatever would start a second
// runtime there: `gateway run` and another `--local` refuse with one line (exit 1), the desktop app's check asks;
// `restore` names it; once it ended, its record is gone and nothing blocks. A stale record (its process gone)
// never blocks. Real processes, as these commands are used.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'
import { liveEmbeddedRuntime } from '../main/gateway/embedded-runtimes'
import { claimDataFolder } from '../main/shell/data-folder-in-use'
import { stateDirUsers } from './commands/restore'
import { runBin } from './test-support'

let server: ModelServer
let stateDir: string
const env = () => ({ LOOPDESK_STATE_DIR: stateDir, LOOPDESK_V8_POOL: '0' })
const records = () => path.join(stateDir, 'gateway', 'runtimes')

beforeAll(async () => {
  // every reply waits a while before its first word: the --local run is still going while the others try
  server = await startModelServer({ fallback: { text: 'done', headerDelayMs: 6_000 } })
  stateDir = tempDir('loopdesk-local-inuse-')
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server), null, 2))
})
afterAll(async () => {
  await server?.close()
})

describe('agent --local: the state dir is in use while it runs', () => {
  it('gateway run and a second --local refuse with one line; the app asks; after it ended nothing blocks', async () => {
    const local = runBin(['agent', '--local', '-m', 'take your time'], env())
    await vi.waitFor(() => expect(liveEmbeddedRuntime(stateDir)?.launchedBy).toBe('local'), { timeout: 30_000, interval: 50 })
    const pid = liveEmbeddedRuntime(stateDir)!.pid

    const gw = await runBin(['gateway', 'run', '--port', '0'], env())
    expect(gw.code).toBe(1)
    expect(gw.stderr).toBe(
      `loopdesk: a \`loopdesk agent --local\` run (pid ${pid}) already uses this state dir — wait for it or stop it, or use --state-dir (--allow-second starts one anyway)\n`,
    )
    const second = await runBin(['agent', '--local', '-m', 'me too'], env())
    expect(second.code).toBe(1)
    expect(second.stderr).toBe(`loopdesk: a \`loopdesk agent --local\` run (pid ${pid}) already uses ${stateDir}; wait for it or stop it first\n`)

    const asked: string[] = []
    const claim = await claimDataFolder(stateDir, {
      serving: async () => undefined,
      ask: async (q) => (asked.push(q.message), 'quit'),
    })
    expect(claim).toBe('quit')
    expect(asked).toEqual([`A \`loopdesk agent --local\` run (pid ${pid}) already uses this data folder`])

    // restore refuses while it runs (gateway/ is never replaced, so its record would outlive the restore)
    expect(await stateDirUsers(stateDir)).toContain(`a \`loopdesk agent --local\` run (pid ${pid}) uses it`)

    const done = await local
    expect(done.stdout).toContain('done')
    expect(done.code).toBe(0)
    expect(fs.readdirSync(records())).toEqual([])
    expect(liveEmbeddedRuntime(stateDir)).toBeUndefined()
    expect(await claimDataFolder(stateDir, { serving: async () => undefined, ask: async () => 'quit' })).toBe('start')
  }, 90_000)

  it('a stale record (its process gone) never blocks, and is removed', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!
    fs.mkdirSync(records(), { recursive: true })
    const file = path.join(records(), `${gone}.json`)
    fs.writeFileSync(file, JSON.stringify({ pid: gone, launchedBy: 'app', startedAt: Date.now() }))
    expect(liveEmbeddedRuntime(stateDir)).toBeUndefined()
    expect(fs.existsSync(file)).toBe(false)
    // a pid reused by another process: its start time differs
    fs.writeFileSync(path.join(records(), `${process.ppid}.json`), JSON.stringify({ pid: process.ppid, pidStart: '1', launchedBy: 'local', startedAt: Date.now() }))
    expect(liveEmbeddedRuntime(stateDir)).toBeUndefined()
    const r = await runBin(['agent', '--local', '-m', 'quick'], { ...env() })
    expect(r.stderr).not.toContain('already uses')
  }, 60_000)
})
