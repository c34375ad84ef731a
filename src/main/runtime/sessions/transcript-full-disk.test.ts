// A transcript write that the disk refuses part-way (ENOSPC after some bytes): the file is cut back to where it
// ended, so no torn line is left in the middle of the transcript for later appends to follow.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { writeForkTranscript } from './fork'
import { Transcript, type TranscriptHeader } from './transcript'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-trfull-'))
})
afterEach(() => {
  vi.restoreAllMocks()
  fs.rmSync(dir, { recursive: true, force: true })
})

const header: TranscriptHeader = { type: 'session', version: 1, id: 'abc', timestamp: new Date(0).toISOString(), cwd: '/w', sessionKey: 'agent:main:main' }
const msg = (id: string, text = id): TranscriptEntry => ({ type: 'message', id, timestamp: 1, message: { role: 'user', content: text } })

/** The disk takes `room` more bytes (a short write that fills it), then refuses with ENOSPC. */
function diskFullAfter(room: number): void {
  const real = fs.writeSync
  vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off: number, len: number) => {
    if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    const n = real(fd, buf, off, Math.min(len, room))
    room -= n
    return n
  }) as typeof fs.writeSync)
}

it('an append that fails part-way leaves the file as it was; the next append follows the last whole line', async () => {
  const t = new Transcript(path.join(dir, 's.jsonl'))
  await t.ensureHeader(header)
  await t.append(msg('1'))
  const before = fs.readFileSync(t.file, 'utf8')
  diskFullAfter(3656)
  await expect(t.append(msg('reply', 'x'.repeat(200_000)))).rejects.toMatchObject({ code: 'ENOSPC' })
  vi.restoreAllMocks()
  expect(fs.readFileSync(t.file, 'utf8')).toBe(before)
  // space is back: the next line follows directly, nothing garbled between
  await t.append(msg('2'))
  const r = await new Transcript(t.file).readAll()
  expect(r.skipped).toBe(0)
  expect(r.torn).toBe(false)
  expect(r.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['h', '1', '2'])
})

it('a header write that fails part-way leaves an empty file, so the header is written again', async () => {
  const t = new Transcript(path.join(dir, 'h.jsonl'))
  diskFullAfter(10)
  await expect(t.ensureHeader(header)).rejects.toMatchObject({ code: 'ENOSPC' })
  vi.restoreAllMocks()
  expect(fs.statSync(t.file).size).toBe(0)
  expect(await t.ensureHeader(header)).toBe(true)
  expect((await t.readAll()).entries).toEqual([header])
})

it('a fork whose copy the disk refuses leaves no file (no row would ever name it), at the header or at the messages', async () => {
  for (const room of [10, 300]) {
    const file = path.join(dir, `fork-${room}.jsonl`)
    diskFullAfter(room)
    await expect(writeForkTranscript(file, { sessionId: 'fork', sessionKey: 'agent:main:f', cwd: '/w' }, [msg('1', 'x'.repeat(10_000))])).rejects.toMatchObject({ code: 'ENOSPC' })
    vi.restoreAllMocks()
    expect(fs.existsSync(file)).toBe(false)
  }
})
