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

  it('reports the new file identity at the rename, before the directory fsync is awaited', async () => {
    const file = path.join(dir, 'y.json')
    let atRename: ReturnType<typeof statIdentity>
    const p = writeFileAtomic(file, 'hello', { onReplaced: (id) => (atRename = id) })
    expect(atRename!).toBeUndefined() // the data fsync runs first
    const id = await p
    expect(atRename!).toEqual(id)
    expect(statIdentity(file)).toEqual(id)
  })
})
