import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { statIdentity, writeFileAtomic, writeFileAtomicSync } from './atomic-write'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-atomic-'))
})
afterEach(() => {
  vi.restoreAllMocks()
  fs.rmSync(dir, { recursive: true, force: true })
})

const chunks = () => ['{\n', '  "a": "ä",', '', '\n  "b": 2', '\n}\n'].map((s) => Buffer.from(s))

describe('writeFileAtomic', () => {
  it('writes chunks in order with a vectored write, continuing after short writes', async () => {
    const file = path.join(dir, 'x.json')
    const realWrite = fs.writeSync
    // at most 3 bytes per call, taken from the first chunk only: every boundary case of a short write
    const spy = vi.spyOn(fs, 'writevSync').mockImplementation((fd, bufs) => realWrite(fd, (bufs as Uint8Array[])[0].subarray(0, 3)))
    writeFileAtomicSync(file, chunks(), { fsync: false })
    expect(spy.mock.calls.length).toBeGreaterThan(5)
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "a": "ä",\n  "b": 2\n}\n')
    spy.mockRestore()
    await writeFileAtomic(file, chunks())
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "a": "ä",\n  "b": 2\n}\n')
    expect(fs.readdirSync(dir)).toEqual(['x.json'])
  })

  it('tells the identity of the new file before the rename, and renames on the thread pool', async () => {
    const file = path.join(dir, 'y.json')
    fs.writeFileSync(file, 'old')
    let announced: ReturnType<typeof statIdentity>
    let atAnnounce = ''
    const sync = vi.spyOn(fs, 'renameSync')
    const p = writeFileAtomic(file, 'hello', { onIdentity: (id) => ((announced = id), (atAnnounce = fs.readFileSync(file, 'utf8'))) })
    expect(announced!).toBeUndefined() // the data fsync runs first
    const id = await p
    expect(atAnnounce).toBe('old') // announced before the file was replaced
    expect(announced!).toEqual(id)
    expect(statIdentity(file)).toEqual(id)
    expect(fs.readFileSync(file, 'utf8')).toBe('hello')
    expect(sync).not.toHaveBeenCalled()
  })
})
