// readSmallRegularFile: a small regular file reads as usual; a FIFO, a device, a folder or an oversized file is
// refused at once (a FIFO is never waited on), and ENOENT stays ENOENT for callers that tell absent from damaged.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { readSmallRegularFile } from './read-small-file'

const hasMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).error === undefined

it('reads a regular file, also through a symlink unless noFollow; ENOENT stays ENOENT', () => {
  const dir = tempDir('ld-small-')
  fs.writeFileSync(path.join(dir, 'a.json'), '{"x": "é"}\n')
  fs.symlinkSync(path.join(dir, 'a.json'), path.join(dir, 'link.json'))
  expect(readSmallRegularFile(path.join(dir, 'a.json'), 100)).toBe('{"x": "é"}\n')
  expect(readSmallRegularFile(path.join(dir, 'link.json'), 100)).toBe('{"x": "é"}\n')
  expect(() => readSmallRegularFile(path.join(dir, 'link.json'), 100, { noFollow: true })).toThrow(expect.objectContaining({ code: 'ELOOP' }))
  expect(() => readSmallRegularFile(path.join(dir, 'none'), 100)).toThrow(expect.objectContaining({ code: 'ENOENT' }))
})

it('refuses a file over the limit, a folder and a symlink to /dev/zero', () => {
  const dir = tempDir('ld-small-')
  fs.writeFileSync(path.join(dir, 'big'), 'x'.repeat(101))
  expect(() => readSmallRegularFile(path.join(dir, 'big'), 100)).toThrow(expect.objectContaining({ code: 'EFBIG', message: 'too large (101 bytes; at most 100)' }))
  expect(readSmallRegularFile(path.join(dir, 'big'), 101)).toHaveLength(101)
  expect(() => readSmallRegularFile(dir, 100)).toThrow(expect.objectContaining({ code: 'EFTYPE' }))
  if (fs.existsSync('/dev/zero')) {
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero'))
    expect(() => readSmallRegularFile(path.join(dir, 'zero'), 100)).toThrow(expect.objectContaining({ code: 'EFTYPE', message: 'not a regular file' }))
  }
})

it.skipIf(!hasMkfifo)('refuses a FIFO at once instead of waiting for a writer', () => {
  const dir = tempDir('ld-small-')
  execFileSync('mkfifo', [path.join(dir, 'token')])
  // in a child: a read that blocks for good fails the test, not the runner
  const mod = path.join(__dirname, 'read-small-file.ts')
  const script =
    `import(${JSON.stringify(mod)}).then((m) => { try { m.readSmallRegularFile(${JSON.stringify(path.join(dir, 'token'))}, 4096) } ` +
    'catch (e) { process.stdout.write(e.code + ": " + e.message) } })'
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 15_000, encoding: 'utf8' })
  expect(r.signal).toBeNull()
  expect(r.stdout).toBe('EFTYPE: not a regular file')
}, 30_000)
