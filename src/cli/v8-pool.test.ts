// `gateway run` relaunched with a sized V8 worker pool: the rules, and the real launcher + gateway
// processes — the pool flag reaches the serving process, signals are neither lost nor doubled (a second
// SIGINT would skip the drain), and a launcher that dies takes the gateway down cleanly.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { testConfig } from '../../test/fixtures/test-runtime'
import { infoPath, readGatewayInfo } from '../main/gateway/state-files'
import { killGroup, runBin, startGatewayProcess } from './test-support'
import { poolSizeFor, relaunchIfWanted, relaunchPoolSize } from './v8-pool'

describe('the pool size', () => {
  it('is one less than the cores, at least 1, at most Node\'s 4', () => {
    expect([1, 2, 3, 4, 5, 16].map(poolSizeFor)).toEqual([1, 1, 2, 3, 4, 4])
  })

  it('relaunches only `gateway run`, once, when the size differs from Node\'s and none was given', () => {
    const run = ['gateway', 'run', '--port', '0']
    expect(relaunchPoolSize(run, [], {}, 2)).toBe(1)
    expect(relaunchPoolSize(run, [], {}, 4)).toBe(3)
    expect(relaunchPoolSize(run, [], {}, 8)).toBeUndefined() // Node's default already
    expect(relaunchPoolSize(['gateway', 'call', 'health'], [], {}, 2)).toBeUndefined()
    expect(relaunchPoolSize(['agent', '-m', 'x'], [], {}, 2)).toBeUndefined()
    expect(relaunchPoolSize(run, [], { LOOPDESK_RELAUNCHED: '1' }, 2)).toBeUndefined()
    expect(relaunchPoolSize(run, ['--v8-pool-size=2'], {}, 2)).toBeUndefined()
    expect(relaunchPoolSize(run, [], { NODE_OPTIONS: '--max-old-space-size=512 --v8-pool-size=3' }, 2)).toBeUndefined()
    expect(relaunchPoolSize(run, [], { LOOPDESK_V8_POOL: '0' }, 2)).toBeUndefined()
    expect(relaunchPoolSize(run, [], { LOOPDESK_V8_POOL: '2' }, 16)).toBe(2)
    expect(relaunchPoolSize(run, [], { LOOPDESK_V8_POOL: 'lots' }, 2)).toBeUndefined()
  })
})

describe('the relaunched gateway', () => {
  it('knows it was relaunched and does not pass the marker on to the processes it starts (exec tools)', () => {
    process.env.LOOPDESK_RELAUNCHED = '1'
    try {
      expect(relaunchIfWanted('/nowhere', ['gateway', 'run'])).toBeUndefined()
      expect(process.env.LOOPDESK_RELAUNCHED).toBeUndefined()
    } finally {
      delete process.env.LOOPDESK_RELAUNCHED
    }
  })
})

const dirs: string[] = []
let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(async () => {
  await server?.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** `loopdesk agent` as a process against the gateway of `stateDir` */
const agent = (stateDir: string, message: string) => runBin(['agent', '-m', message, '--session-key', 'agent:main:pool'], { LOOPDESK_STATE_DIR: stateDir })

/** pids whose parent is `pid` (Linux /proc) */
function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return out
}

/** the launcher in its own process group (so a test can signal the group, as a terminal's Ctrl-C does) */
async function startLauncher() {
  const stateDir = mkdtempSync(join(tmpdir(), 'loopdesk-pool-'))
  dirs.push(stateDir)
  writeFileSync(join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server), null, 2))
  const gw = await startGatewayProcess({ LOOPDESK_STATE_DIR: stateDir, LOOPDESK_V8_POOL: '1', LOOPDESK_RELAUNCHED: '' }, { detached: true })
  return { ...gw, stateDir }
}

const onLinux = process.platform === 'linux'

describe.skipIf(!onLinux)('bin/loopdesk.mjs gateway run, relaunched', () => {
  it('serves from a child with the pool flag; Ctrl-C to the whole group drains a run in flight once and exits 0', async () => {
    const l = await startLauncher()
    try {
      const info = readGatewayInfo(l.stateDir)!
      expect(childrenOf(l.child.pid!)).toContain(info.pid) // the recorded pid is the serving child
      expect(readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').split('\0')).toContain('--v8-pool-size=1')
      // a run that outlasts the launcher's wait: a SIGINT passed on again would be a second one (no drain)
      server.push({ text: 'finished while draining', chunks: 6, delayMs: 250 })
      const inflight = agent(l.stateDir, 'slow')
      await server.waitForRequests(server.requests.length + 1, 30_000)
      process.kill(-l.child.pid!, 'SIGINT')
      expect(await inflight).toMatchObject({ code: 0, stdout: 'finished while draining\n' })
      expect(await l.exited).toBe(0)
      expect(l.output().match(/SIGINT: draining/g)).toHaveLength(1)
      expect(l.output()).not.toMatch(/second SIGINT/)
      expect(l.output()).toMatch(/gateway stopped/)
      expect(existsSync(infoPath(l.stateDir))).toBe(false)
    } finally {
      killGroup(l.child.pid)
    }
  }, 60_000)

  it('a SIGTERM sent to the launcher alone is passed on once', async () => {
    const l = await startLauncher()
    try {
      l.child.kill('SIGTERM')
      expect(await l.exited).toBe(0)
      expect(l.output().match(/SIGTERM: draining/g)).toHaveLength(1)
      expect(l.output()).not.toMatch(/second SIGTERM/)
    } finally {
      killGroup(l.child.pid)
    }
  }, 60_000)

  it('a gateway killed from outside (kill -9, the OOM killer) is reported by its launcher, with the code a shell gives', async () => {
    const l = await startLauncher()
    try {
      const served = readGatewayInfo(l.stateDir)!.pid
      process.kill(served, 'SIGKILL')
      expect(await l.exited).toBe(137)
      expect(l.output()).toContain(`loopdesk: the gateway (pid ${served}) was killed by SIGKILL`)
    } finally {
      killGroup(l.child.pid)
    }
  }, 60_000)

  it('when the launcher is killed, the gateway drains and exits (no orphan holding the port)', async () => {
    const l = await startLauncher()
    try {
      const served = readGatewayInfo(l.stateDir)!.pid
      l.child.kill('SIGKILL')
      await l.exited
      const deadline = Date.now() + 15_000
      while (Date.now() < deadline && existsSync(`/proc/${served}`)) await new Promise((r) => setTimeout(r, 100))
      expect(existsSync(`/proc/${served}`)).toBe(false)
      expect(existsSync(infoPath(l.stateDir))).toBe(false)
    } finally {
      killGroup(l.child.pid)
    }
  }, 60_000)
})
