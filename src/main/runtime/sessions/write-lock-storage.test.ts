// Regression (found by the faults suite, test/faults/disk.test.ts): when the state dir turned read-only
// after a lock file was created, the lock could not be removed nor reclaimed, and every later run waited
// the full 10 s lock timeout to fail with "held by pid <our own pid>" instead of a storage error.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { acquireWriteLock } from './write-lock'
import { tempDir } from '../../../../test/fixtures/temp-dir'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('write lock on an unwritable dir', () => {
  it('a stale lock that cannot be reclaimed fails at once with STORAGE_ERROR', async () => {
    const dir = tempDir('ld-lock-ro-')
    const file = path.join(dir, 'sessions.json')
    // left behind by this very process (its release could not unlink it on the read-only disk)
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, createdAt: Date.now(), tid: 0 }))
    const rename = vi.spyOn(fs, 'renameSync').mockImplementation(() => {
      throw Object.assign(new Error('EROFS: read-only file system, rename'), { code: 'EROFS' })
    })
    const started = Date.now()
    await expect(acquireWriteLock(file, { timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'STORAGE_ERROR', message: expect.stringContaining('EROFS') })
    expect(Date.now() - started).toBeLessThan(2_000)
    // writable again: the same stale lock is reclaimed and taken
    rename.mockRestore()
    const release = await acquireWriteLock(file, { timeoutMs: 5_000 })
    await release()
    expect(fs.existsSync(`${file}.lock`)).toBe(false)
  })
})
