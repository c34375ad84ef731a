// A command in the first moments of `gateway run` — before the gateway process it relaunches with a sized V8 pool
// (v8-pool.ts) has even loaded — waits for the starting gateway instead of saying no gateway is running: the
// launcher claims the state dir for it at once (launcher-claim.ts), and the gateway takes the claim over.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../test/fixtures/temp-dir'
import { until } from '../../test/fixtures/until'
import { BIN, killGroup, runBin } from './test-support'

const SLOW = fileURLToPath(new URL('../../test/fixtures/slow-relaunched-start.mjs', import.meta.url))
const started: ChildProcess[] = []
afterEach(() => {
  for (const c of started.splice(0)) killGroup(c.pid)
})

describe('a command while `gateway run` is still starting', () => {
  it('waits for the gateway whose relaunched process has not loaded yet, then runs against it', async () => {
    const state = tempDir('loopdesk-cli-start-window-')
    const mark = path.join(state, 'child-started')
    const go = path.join(state, 'go')
    const env = { LOOPDESK_STATE_DIR: state, LOOPDESK_V8_POOL: '1', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${SLOW}`.trim(), SLOW_START_MARK: mark, SLOW_START_GO: go }
    const gw = spawn(process.execPath, [BIN, 'gateway', 'run', '--port', '0'], { env: { ...process.env, ...env }, detached: true, stdio: 'ignore' })
    started.push(gw)
    // the launcher has started the gateway's process, which is held before it loads anything
    await until(() => fs.existsSync(mark), 60_000, 'the relaunched gateway to start')
    const call = runBin(['gateway', 'call', 'health', '--json'], { LOOPDESK_STATE_DIR: state })
    // the command sees a gateway starting (not "no gateway is running", exit 3), and waits for it
    let err = ''
    call.child.stderr!.on('data', (d) => (err += d))
    await until(() => /is starting; waiting for it/.test(err) || call.child.exitCode !== null, 60_000, 'the command to wait or fail')
    expect(call.child.exitCode, err).toBeNull()
    fs.writeFileSync(go, '')
    const r = await call
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/the gateway \(pid \d+\) is starting; waiting for it/)
    expect(JSON.parse(r.stdout).ok).toBe(true)
    // the gateway took the launcher's record over: one record, the serving process's
    const info = JSON.parse(fs.readFileSync(path.join(state, 'gateway', 'gateway.json'), 'utf8'))
    expect(fs.readdirSync(path.join(state, 'gateway', 'runtimes'))).toEqual([`${info.pid}.json`])
  }, 180_000)
})
