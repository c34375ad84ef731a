import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../api/errors'
import { deadPid, exited, spawnChild, waitForLine } from './test-fixtures/child'
import { acquireWriteLock, holdsWriteLock, releaseAllLocksSync, tryAcquireWriteLockSync } from './write-lock'

let dir: string
let file: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-lock-'))
  file = path.join(dir, 's.jsonl')
})
afterEach(() => {
  releaseAllLocksSync()
  fs.rmSync(dir, { recursive: true, force: true })
})

const lockFile = () => `${file}.lock`

describe('acquireWriteLock', () => {
  it('creates <file>.lock with pid and createdAt, and removes it on release (idempotent)', async () => {
    const release = await acquireWriteLock(file)
    const payload = JSON.parse(fs.readFileSync(lockFile(), 'utf8'))
    expect(payload.pid).toBe(process.pid)
    expect(typeof payload.createdAt).toBe('number')
    expect(fs.statSync(lockFile()).mode & 0o777).toBe(0o600)
    expect(holdsWriteLock(file)).toBe(true)
    await release()
    expect(fs.existsSync(lockFile())).toBe(false)
    await release()
    expect(holdsWriteLock(file)).toBe(false)
  })

  it('is re-entrant within the process (ref-counted)', async () => {
    const r1 = await acquireWriteLock(file)
    const r2 = await acquireWriteLock(file)
    await r1()
    await r1() // idempotent: must not drop r2's reference
    expect(fs.existsSync(lockFile())).toBe(true)
    await r2()
    expect(fs.existsSync(lockFile())).toBe(false)
  })

  it('reclaims a stale lock whose pid is dead', async () => {
    const pid = await deadPid()
    fs.writeFileSync(lockFile(), JSON.stringify({ pid, createdAt: Date.now() }))
    const t0 = Date.now()
    const release = await acquireWriteLock(file, { timeoutMs: 2000 })
    expect(Date.now() - t0).toBeLessThan(500)
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid)
    await release()
    expect(fs.readdirSync(dir)).toEqual([]) // no leftover grave files
  })

  it('reclaims a lock left by a previous incarnation of this very pid', async () => {
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, createdAt: Date.now(), tid: 0 }))
    const release = await acquireWriteLock(file, { timeoutMs: 500 })
    await release()
  })

  it('reclaims a live holder lock older than staleMs, and a recycled pid (start time differs)', async () => {
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, createdAt: Date.now() - 10_000 }))
    const old = new Date(Date.now() - 10_000) // nor refreshed since (heartbeat)
    fs.utimesSync(lockFile(), old, old)
    const r1 = await acquireWriteLock(file, { timeoutMs: 500, staleMs: 5_000 })
    await r1()
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, createdAt: Date.now(), starttime: '1' }))
    const r2 = await acquireWriteLock(file, { timeoutMs: 500 })
    await r2()
  })

  it('reclaims an empty lock file (holder died before writing) after a short grace', async () => {
    fs.writeFileSync(lockFile(), '')
    const old = new Date(Date.now() - 5_000)
    fs.utimesSync(lockFile(), old, old)
    const release = await acquireWriteLock(file, { timeoutMs: 500 })
    await release()
  })

  it.skipIf(process.platform === 'win32')('a FIFO planted under the lock’s name is reclaimed like an unreadable lock, not waited on', async () => {
    // a plain read of it waited in open() for a writer: every writer of the file (sessions.json, loopdesk.json) hung
    execFileSync('mkfifo', [lockFile()])
    const old = new Date(Date.now() - 5_000)
    fs.utimesSync(lockFile(), old, old)
    try {
      const release = tryAcquireWriteLockSync(file, { timeoutMs: 500 })
      expect(release).toBeTypeOf('function')
      expect(fs.statSync(lockFile()).isFile()).toBe(true)
      release!()
      execFileSync('mkfifo', [lockFile()])
      fs.utimesSync(lockFile(), old, old)
      await (await acquireWriteLock(file, { timeoutMs: 500 }))()
    } finally {
      // what a plain open would still be parked in gets its writer (the test's cleanup, should the check fail)
      for (const f of fs.readdirSync(dir).map((n) => path.join(dir, n))) {
        if (fs.lstatSync(f).isFIFO()) fs.closeSync(fs.openSync(f, fs.constants.O_RDWR | fs.constants.O_NONBLOCK))
      }
    }
  })

  it('a lock held by a live child process blocks until timeout with a retryable UNAVAILABLE error', async () => {
    const child = spawnChild(['hold', file, '20000'])
    const done = exited(child)
    try {
      await waitForLine(child, 'locked')
      const t0 = Date.now()
      const err = await acquireWriteLock(file, { timeoutMs: 400 }).catch((e) => e)
      const waited = Date.now() - t0
      expect(err).toBeInstanceOf(ApiError)
      expect(err.code).toBe('UNAVAILABLE')
      expect(err.retryable).toBe(true)
      expect(err.message).toContain(`pid ${child.pid}`)
      expect(waited).toBeGreaterThanOrEqual(390)
      expect(waited).toBeLessThan(2000)
      // the holder's lock is intact
      expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(child.pid)
    } finally {
      child.kill('SIGKILL')
      await done
    }
  })

  it('after the holder is killed with SIGKILL, a waiter takes the lock', async () => {
    const child = spawnChild(['hold', file, '20000'])
    const done = exited(child)
    await waitForLine(child, 'locked')
    const waiting = acquireWriteLock(file, { timeoutMs: 5000 })
    setTimeout(() => child.kill('SIGKILL'), 100)
    const release = await waiting
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid)
    await release()
    expect((await done).signal).toBe('SIGKILL')
  })

  it('a child that exits normally releases its lock via the exit hook', async () => {
    const child = spawnChild(['hold', file, '50'])
    const done = exited(child)
    await waitForLine(child, 'locked')
    expect((await done).code).toBe(0)
    expect(fs.existsSync(lockFile())).toBe(false)
  })

  it('release leaves a lock that is no longer ours alone', async () => {
    const release = await acquireWriteLock(file)
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: 1, createdAt: Date.now() })) // someone reclaimed it
    await release()
    expect(fs.existsSync(lockFile())).toBe(true)
  })

  it('releaseAllLocksSync removes every held lock', async () => {
    await acquireWriteLock(file)
    await acquireWriteLock(path.join(dir, 'other'))
    releaseAllLocksSync()
    expect(fs.readdirSync(dir)).toEqual([])
    expect(holdsWriteLock(file)).toBe(false)
  })

  it('tryAcquireWriteLockSync: takes free/stale locks, is re-entrant, gives up on a live holder', async () => {
    const r1 = tryAcquireWriteLockSync(file)!
    expect(r1).toBeTypeOf('function')
    const r2 = tryAcquireWriteLockSync(file)!
    r1()
    expect(fs.existsSync(lockFile())).toBe(true)
    r2()
    expect(fs.existsSync(lockFile())).toBe(false)

    fs.writeFileSync(lockFile(), JSON.stringify({ pid: await deadPid(), createdAt: Date.now() }))
    const r3 = tryAcquireWriteLockSync(file)!
    r3()

    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, createdAt: Date.now() })) // live holder
    const t0 = Date.now()
    expect(tryAcquireWriteLockSync(file, { timeoutMs: 100 })).toBeUndefined()
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95)
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.ppid)
  })

  it('creates missing parent directories', async () => {
    const deep = path.join(dir, 'a', 'b', 'c.json')
    const release = await acquireWriteLock(deep)
    expect(fs.existsSync(`${deep}.lock`)).toBe(true)
    await release()
  })
})

/** Another process trying to take <file>.lock with the given options; resolves with what it printed. */
function contender(target: string, opts: { timeoutMs: number; staleMs: number }): Promise<string> {
  const lockModule = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'write-lock.ts')).href
  const code = `
    const { acquireWriteLock } = await import(${JSON.stringify(lockModule)})
    try {
      const release = await acquireWriteLock(${JSON.stringify(target)}, ${JSON.stringify(opts)})
      process.stdout.write('acquired')
      await release()
    } catch (err) {
      process.stdout.write('refused: ' + err.code)
    }`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += String(d)))
  child.stderr.on('data', (d) => (err += String(d)))
  return new Promise((resolve) => child.once('exit', () => resolve(out || `no output: ${err}`)))
}

describe('write lock heartbeat (runs longer than the stale threshold)', () => {
  it('a holder refreshes its lock, so another process does not reclaim it past staleMs', async () => {
    const release = await acquireWriteLock(file, { staleMs: 400 }) // heartbeat every ~133 ms
    const created = JSON.parse(fs.readFileSync(lockFile(), 'utf8')).createdAt as number
    try {
      // the other process waits 3x the stale threshold; without a heartbeat it would take the lock after 400 ms
      expect(await contender(file, { timeoutMs: 1200, staleMs: 400 })).toBe('refused: UNAVAILABLE')
      expect(holdsWriteLock(file)).toBe(true)
      expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid, createdAt: created })
      expect(fs.statSync(lockFile()).mtimeMs).toBeGreaterThan(created + 400)
    } finally {
      await release()
    }
    expect(fs.existsSync(lockFile())).toBe(false)
    // released: the next holder gets it at once
    expect(await contender(file, { timeoutMs: 1000, staleMs: 400 })).toBe('acquired')
  })

  it('a holder that stopped refreshing (hung or gone) is reclaimed after staleMs', async () => {
    // a live pid (our parent) whose lock was created and last refreshed long ago
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, createdAt: Date.now() - 10_000 }))
    const old = new Date(Date.now() - 10_000)
    fs.utimesSync(lockFile(), old, old)
    const release = await acquireWriteLock(file, { timeoutMs: 500, staleMs: 5_000 })
    await release()
    // a fresh refresh (mtime) keeps the same lock alive although createdAt is old
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, createdAt: Date.now() - 10_000 }))
    await expect(acquireWriteLock(file, { timeoutMs: 300, staleMs: 5_000 })).rejects.toMatchObject({ code: 'UNAVAILABLE' })
  })

  it('stops refreshing a lock that is no longer ours, and on release', async () => {
    const release = await acquireWriteLock(file, { staleMs: 150 }) // heartbeat every 50 ms
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: 1, createdAt: 1 })) // someone reclaimed it
    const old = new Date(Date.now() - 60_000)
    fs.utimesSync(lockFile(), old, old)
    await new Promise((r) => setTimeout(r, 200))
    expect(Math.abs(fs.statSync(lockFile()).mtimeMs - old.getTime())).toBeLessThan(5) // their lock is not kept alive by us
    await release()
    expect(fs.existsSync(lockFile())).toBe(true) // and not removed either
  })
})
