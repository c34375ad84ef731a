// Runtime records under gateway/runtimes/: what is not a regular file there is no record, and reading the
// folder never blocks (a FIFO named like a record hung every `gateway run`, `agent --local` and app start).
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { processStartTime } from '../runtime/sessions/process-info'

const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
afterAll(() => {
  other.kill()
})

/** liveEmbeddedRuntime(stateDir) in a child process: a read that blocks for good fails the test, not the runner */
function liveIn(stateDir: string): { timedOut: boolean; found: unknown } {
  const mod = path.join(__dirname, 'embedded-runtimes.ts')
  const script = `import(${JSON.stringify(mod)}).then((m) => process.stdout.write(JSON.stringify(m.liveEmbeddedRuntime(${JSON.stringify(stateDir)}) ?? null)))`
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 15_000, encoding: 'utf8' })
  return { timedOut: r.signal !== null, found: r.stdout ? JSON.parse(r.stdout) : undefined }
}

describe('liveEmbeddedRuntime', () => {
  it('skips a FIFO, a symlink and an oversized file named like records, and still finds a live one', () => {
    const stateDir = tempDir('loopdesk-runtimes-')
    const dir = path.join(stateDir, 'gateway', 'runtimes')
    fs.mkdirSync(dir, { recursive: true })
    execFileSync('mkfifo', [path.join(dir, '4242.json')])
    fs.symlinkSync(path.join(dir, '4242.json'), path.join(dir, '4243.json'))
    fs.writeFileSync(path.join(dir, '4244.json'), JSON.stringify({ pid: other.pid, launchedBy: 'local', startedAt: 1, pad: 'x'.repeat(10_000) }))
    expect(liveIn(stateDir)).toEqual({ timedOut: false, found: null })
    // what is not a regular file is left where it is, never removed
    expect(fs.lstatSync(path.join(dir, '4242.json')).isFIFO()).toBe(true)
    expect(fs.lstatSync(path.join(dir, '4243.json')).isSymbolicLink()).toBe(true)
    // a genuine record of a live process is still seen
    const pidStart = processStartTime(other.pid!)
    fs.writeFileSync(path.join(dir, `${other.pid}.json`), JSON.stringify({ pid: other.pid, pidStart, launchedBy: 'local', startedAt: 2 }))
    expect(liveIn(stateDir)).toMatchObject({ timedOut: false, found: { pid: other.pid, launchedBy: 'local' } })
  }, 40_000)

  it.runIf(process.platform === 'linux')('takes a record it cannot verify — no start time, or another one — for stale and removes it', () => {
    const stateDir = tempDir('loopdesk-runtimes-')
    const dir = path.join(stateDir, 'gateway', 'runtimes')
    fs.mkdirSync(dir, { recursive: true })
    // a live process that is no Loopdesk runtime, named by a record without a start time (forged, or a recycled pid)
    const forged = path.join(dir, `${other.pid}.json`)
    fs.writeFileSync(forged, JSON.stringify({ pid: other.pid, launchedBy: 'app', startedAt: 1 }))
    expect(liveIn(stateDir)).toEqual({ timedOut: false, found: null })
    expect(fs.existsSync(forged)).toBe(false)
    // a start time that is not the live process's
    fs.writeFileSync(forged, JSON.stringify({ pid: other.pid, pidStart: '1', launchedBy: 'local', startedAt: 1 }))
    expect(liveIn(stateDir)).toEqual({ timedOut: false, found: null })
    expect(fs.existsSync(forged)).toBe(false)
  }, 40_000)
})
