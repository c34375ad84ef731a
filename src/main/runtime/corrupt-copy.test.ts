// The `.corrupt-` copies of damaged state files: one naming, and never one copy over another — two in one
// millisecond once shared a name.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { corruptCopyName, keepCorruptCopy, moveCorruptAside } from './corrupt-copy'

afterEach(() => vi.useRealTimers())
const at = new Date('2026-01-02T03:04:05.678Z')

it('copies made in one millisecond each get their own name', () => {
  const file = path.join(tempDir('ld-corrupt-'), 'sessions.json')
  vi.useFakeTimers({ toFake: ['Date'], now: at })
  const copies = ['one', 'two', 'three'].map((text) => {
    fs.writeFileSync(file, text)
    const { copy, error } = keepCorruptCopy(file, { mode: 0o600 })
    expect(error).toBeUndefined()
    return copy
  })
  expect(copies).toEqual([1, 2, 3].map((i) => corruptCopyName(file, at, i)))
  expect(copies[0]).toBe(`${file}.corrupt-2026-01-02T03-04-05-678Z`)
  expect(copies.map((c) => fs.readFileSync(c, 'utf8'))).toEqual(['one', 'two', 'three'])
  expect(fs.statSync(copies[2]).mode & 0o777).toBe(0o600)
})

it('a file moved aside in the same millisecond as another does not replace it', () => {
  const file = path.join(tempDir('ld-corrupt-'), 'settings.json')
  vi.useFakeTimers({ toFake: ['Date'], now: at })
  const aside = ['{ one', '{ two'].map((text) => {
    fs.writeFileSync(file, text)
    return moveCorruptAside(file)
  })
  expect(fs.existsSync(file)).toBe(false)
  expect(aside.map((a) => fs.readFileSync(a, 'utf8'))).toEqual(['{ one', '{ two'])
})

it('a copy that cannot be made says so, with the name it tried', () => {
  const file = path.join(tempDir('ld-corrupt-'), 'missing.json')
  const { copy, error } = keepCorruptCopy(file)
  expect(copy.startsWith(`${file}.corrupt-`)).toBe(true)
  expect((error as NodeJS.ErrnoException).code).toBe('ENOENT')
})
