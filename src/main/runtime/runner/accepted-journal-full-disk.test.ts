// A journal append the disk refuses part-way (ENOSPC after some bytes): the file is cut back, so a torn accept
// line cannot swallow the line written after it once there is room again; and a reader skips a torn line
// (and finds a whole line glued onto one by an older writer).
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { AcceptedJournal, readDeadJournals } from './accepted-journal'

afterEach(() => vi.restoreAllMocks())

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })

/** The disk takes `room` more bytes (a short write that fills it), then refuses with ENOSPC. */
function diskFullAfter(room: number): void {
  const real = fs.writeSync
  vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off: number, len: number) => {
    if (room <= 0) throw enospc()
    const n = real(fd, buf, off, Math.min(len, room))
    room -= n
    return n
  }) as typeof fs.writeSync)
}

const rec = (runId: string, text = runId, at = 1) => ({ runId, sessionKey: 'agent:main:x', text, at })

it('an accept refused part-way leaves the file as it was, and the next lines are read back whole', () => {
  const dir = tempDir('ld-jfull-')
  const j = new AcceptedJournal(dir)
  j.accept(rec('a', 'one', 1))
  const before = fs.readFileSync(j.file, 'utf8')
  diskFullAfter(30)
  expect(() => j.accept(rec('b', 'x'.repeat(10_000), 2))).toThrow(/ENOSPC/)
  vi.restoreAllMocks()
  expect(fs.readFileSync(j.file, 'utf8')).toBe(before)
  // room again: these follow the last whole line
  j.accept(rec('c', 'three', 3))
  j.accept(rec('d', 'four', 4))
  j.end('c')
  j.close()
  expect(readDeadJournals(dir).records.map((r) => r.runId)).toEqual(['a', 'd'])
})

it('the first append (owner line + accept) refused part-way leaves an empty file; the next one writes the owner line again', () => {
  const dir = tempDir('ld-jfull-')
  const j = new AcceptedJournal(dir)
  diskFullAfter(5)
  expect(() => j.accept(rec('a'))).toThrow(/ENOSPC/)
  vi.restoreAllMocks()
  expect(fs.statSync(j.file).size).toBe(0)
  j.accept(rec('b', 'two', 2))
  j.close()
  const lines = fs.readFileSync(j.file, 'utf8').trim().split('\n')
  expect((JSON.parse(lines[0]) as { op: string }).op).toBe('owner')
  expect(readDeadJournals(dir).records.map((r) => r.runId)).toEqual(['b'])
})

it('when even the cut-back fails, the torn line stays on its own line: the next append starts a new one', () => {
  const dir = tempDir('ld-jfull-')
  const j = new AcceptedJournal(dir)
  j.accept(rec('a', 'one', 1))
  diskFullAfter(30)
  vi.spyOn(fs, 'ftruncateSync').mockImplementation(() => {
    throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' })
  })
  vi.spyOn(console, 'warn').mockImplementation(() => {})
  expect(() => j.accept(rec('b', 'x'.repeat(10_000), 2))).toThrow(/ENOSPC/)
  vi.restoreAllMocks()
  expect(fs.readFileSync(j.file, 'utf8').endsWith('\n')).toBe(false) // the torn accept of 'b'
  j.accept(rec('c', 'three', 3))
  j.end('a')
  j.close()
  expect(readDeadJournals(dir).records.map((r) => r.runId)).toEqual(['c'])
})

it('a reader skips a torn line and keeps a whole line an older writer glued onto it', () => {
  const dir = tempDir('ld-jfull-')
  const pid = 2 ** 22 + 4242 // above the default pid_max: never alive
  const line = (l: object) => JSON.stringify(l)
  const torn = line({ op: 'accept', ...rec('b', 'never {"op":"end","runId":"a"} ended', 2) }).slice(0, 60)
  const text = [
    line({ op: 'owner', pid }),
    line({ op: 'accept', ...rec('a', 'one', 1) }),
    torn + line({ op: 'accept', ...rec('c', 'three', 3) }),
    torn,
    line({ op: 'accept', ...rec('d', 'four', 4) }),
  ].join('\n') + '\n'
  fs.writeFileSync(path.join(dir, `accepted.${pid}-abcd1234.jsonl`), text)
  expect(readDeadJournals(dir).records.map((r) => r.runId)).toEqual(['a', 'c', 'd'])
})

it('a compaction the disk refuses leaves no half-written temp file; the settles are appended instead', () => {
  const dir = tempDir('ld-jfull-')
  const j = new AcceptedJournal(dir)
  j.accept(rec('open', 'kept', 0))
  const real = fs.writeFileSync
  vi.spyOn(fs, 'writeFileSync').mockImplementation(((file: fs.PathOrFileDescriptor, data: string) => {
    real(file, data.slice(0, 10)) // the disk takes a little of it
    throw enospc()
  }) as typeof fs.writeFileSync)
  vi.spyOn(console, 'warn').mockImplementation(() => {})
  // settled records past the compaction threshold (4096 lines) with one still open: the next settle compacts
  for (let i = 0; i < 2100; i++) {
    j.accept(rec(`r${i}`, 't', i + 1))
    j.end(`r${i}`)
  }
  expect(vi.mocked(fs.writeFileSync)).toHaveBeenCalled()
  expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([])
  vi.restoreAllMocks()
  j.close()
  expect(readDeadJournals(dir).records.map((r) => r.runId)).toEqual(['open'])
})
