// One gateway per state dir: a second `loopdesk gateway run` on it is refused (exit 1, one line) while the
// first serves, unless --allow-second; a stale gateway.json (dead pid, pid reused, nothing on its port)
// never blocks a start. Real processes, as `gateway run` is used.
import { spawnSync } from 'node:child_process'
import net from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { testConfig } from '../../test/fixtures/test-runtime'
import { readGatewayInfo, writeGatewayInfo } from '../main/gateway/state-files'
import { processStartTime } from '../main/runtime/sessions/process-info'
import { servingGateway } from '../main/gateway/gateway-in-use'
import { runBin, startGatewayProcess } from './test-support'

let server: ModelServer
let stateDir: string
// LOOPDESK_V8_POOL=0: the process that serves is the one started (no relaunch)
const env = () => ({ LOOPDESK_STATE_DIR: stateDir, LOOPDESK_V8_POOL: '0' })

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  stateDir = mkdtempSync(join(tmpdir(), 'loopdesk-gw-single-'))
  writeFileSync(join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server), null, 2))
})
afterAll(async () => {
  await server?.close()
  rmSync(stateDir, { recursive: true, force: true })
})

/** a port nothing listens on (bound, then closed) */
async function freePort(): Promise<number> {
  const s = net.createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as net.AddressInfo).port
  await new Promise((r) => s.close(r))
  return port
}

/** a pid that existed and is gone */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!
}

describe('gateway run: one gateway per state dir', () => {
  it('a second one is refused with one line and exit 1; --allow-second starts it and the first gets gateway.json back', async () => {
    const first = await startGatewayProcess(env())
    try {
      const info = readGatewayInfo(stateDir)!
      expect(info.pid).toBe(first.child.pid)
      const second = await runBin(['gateway', 'run', '--port', '0'], env())
      expect(second.code).toBe(1)
      expect(second.stdout).toBe('')
      expect(second.stderr).toBe(
        `loopdesk: another gateway (pid ${info.pid}, port ${info.port}) already serves this state dir — stop it or use --state-dir (--allow-second starts one anyway)\n`,
      )
      expect(readGatewayInfo(stateDir)).toEqual(info)

      const allowed = await startGatewayProcess(env(), { args: ['--allow-second'] })
      try {
        expect(readGatewayInfo(stateDir)?.pid).toBe(allowed.child.pid)
        expect(allowed.output()).toContain(`another gateway (pid ${info.pid}, port ${info.port}) also serves this state dir`)
      } finally {
        allowed.child.kill('SIGTERM')
      }
      expect(await allowed.exited).toBe(0)
      expect(readGatewayInfo(stateDir)).toEqual(info)
    } finally {
      first.child.kill('SIGTERM')
      await first.exited
    }
  }, 120_000)

  it('two started at the same moment: one serves, the other gives way (exit 1) and leaves gateway.json to it', async () => {
    // the runtime records' claim is one locked step, so the later one sees the first's and gives way
    const runs = [runBin(['gateway', 'run', '--port', '0'], env()), runBin(['gateway', 'run', '--port', '0'], env())]
    const said = ['', '']
    runs.forEach((r, i) => r.child.stdout!.on('data', (d) => (said[i] += String(d))))
    let timer: NodeJS.Timeout | undefined
    // bounded: when neither gives way (both serve) the test says so instead of hanging to its timeout
    const neither = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        for (const r of runs) r.child.kill('SIGKILL')
        reject(new Error('neither gateway gave way within 60 s: both serve this state dir'))
      }, 60_000)
    })
    const first = await Promise.race([...runs.map((r, i) => r.then((x) => ({ ...x, i }))), neither]).finally(() => clearTimeout(timer))
    try {
      expect(first.code).toBe(1)
      // the later one sees the first's claim (its runtime record, before gateway.json) or, later still, its gateway.json
      expect(first.stderr).toMatch(/^loopdesk: (another gateway \(pid \d+, port \d+\) already serves|a `loopdesk gateway run` \(pid \d+\) already uses) this state dir/)
      expect(first.stderr.trim().split('\n')).toHaveLength(1)
      // the loser may give way before the winner listens: wait (bounded) for it
      const winner = runs[1 - first.i]!.child.pid
      await vi.waitFor(() => expect(said[1 - first.i]).toContain('listening on'), { timeout: 30_000, interval: 50 })
      expect(readGatewayInfo(stateDir)?.pid).toBe(winner)
      const info = readGatewayInfo(stateDir)!
      expect(await servingGateway(stateDir, info)).toEqual(info)
    } finally {
      runs[1 - first.i]!.child.kill('SIGTERM')
    }
    expect((await runs[1 - first.i]).code).toBe(0)
  }, 120_000)

  it('a stale record never blocks: dead pid, pid reused by another process, live pid with nothing on its port', async () => {
    const base = { url: 'ws://127.0.0.1:1', startedAt: 1 }
    // the parent of this test process: alive, and not this process
    const parent = process.ppid
    const listening = net.createServer()
    await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r))
    try {
      const port = (listening.address() as net.AddressInfo).port
      // an earlier version's record (no start time) counts when written after its process started
      expect(await servingGateway(stateDir, { ...base, pid: parent, port, startedAt: Date.now() })).toBeDefined()
      const start = processStartTime(parent)
      if (start) {
        // ...and not when its process started after it: the pid was reused
        expect(await servingGateway(stateDir, { ...base, pid: parent, port })).toBeUndefined()
        expect(await servingGateway(stateDir, { ...base, pid: parent, port, pidStart: start })).toBeDefined()
        // the pid now belongs to another process than the one recorded (its start time differs)
        expect(await servingGateway(stateDir, { ...base, pid: parent, port, pidStart: 'not-its-start' })).toBeUndefined()
      }
      expect(await servingGateway(stateDir, { ...base, pid: deadPid(), port })).toBeUndefined()
      expect(await servingGateway(stateDir, { ...base, pid: parent, port: await freePort() })).toBeUndefined()
    } finally {
      await new Promise((r) => listening.close(r))
    }

    // a real start over a record whose pid was reused (the parent of this test: alive, but another process)
    writeGatewayInfo(stateDir, { ...base, pid: parent, port: await freePort(), pidStart: 'not-its-start' })
    const gw = await startGatewayProcess(env())
    try {
      expect(readGatewayInfo(stateDir)?.pid).toBe(gw.child.pid)
      expect(gw.output()).not.toContain('also serves')
    } finally {
      gw.child.kill('SIGTERM')
    }
    // SIGTERM right after the "listening" line drains (exit 0): the handlers are in place before it is printed
    expect(await gw.exited).toBe(0)
    // the stale record is not put back when it stops
    expect(readGatewayInfo(stateDir)).toBeUndefined()

    // nor does it keep `agent --local` from running embedded (which checks the process, not the port)
    if (processStartTime(parent)) {
      writeGatewayInfo(stateDir, { ...base, pid: parent, port: await freePort(), pidStart: 'not-its-start' })
      const local = await runBin(['agent', '--local', '-m', 'hi', '--session-key', 'agent:main:local'], env())
      expect([local.code, local.stdout]).toEqual([0, 'ok\n'])
    }
  }, 120_000)
})
