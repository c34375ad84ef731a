// The transcript parse cache: every read must give exactly what a full parse of the file gives, whatever
// happened to the file since the last read; only appended bytes are parsed when the file just grew.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { rebuildHistory } from '../runner/history'
import { Transcript } from './transcript'
import { forgetTranscript, MAX_CACHED_FILE_BYTES, MAX_CACHED_FILES, parseTranscript, readTranscript, transcriptCacheStats } from './transcript-cache'

let dir: string
let file: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-trc-'))
  file = path.join(dir, 's.jsonl')
})
afterEach(() => {
  forgetTranscript(file)
  fs.rmSync(dir, { recursive: true, force: true })
})

const msg = (id: string, text = `text of ${id}`): TranscriptEntry => ({ type: 'message', id, timestamp: 1, message: { role: 'user', content: [{ type: 'text', text }] } })
const line = (e: TranscriptEntry) => JSON.stringify(e) + '\n'
/** what an uncached read gives */
const full = () => (fs.existsSync(file) ? parseTranscript(fs.readFileSync(file, 'utf8')) : { entries: [], skipped: 0, torn: false, damaged: [] })
const ids = (r: { entries: TranscriptEntry[] }) => r.entries.map((e) => (e.type === 'message' ? e.id : e.type))
/** a different mtime than the file has now (the clock may not tick between two quick writes) */
const bumpMtime = () => {
  const t = fs.statSync(file).mtimeMs / 1000 + 5
  fs.utimesSync(file, t, t)
}

describe('transcript parse cache', () => {
  it('after an append only the new lines are parsed: earlier entries are the same objects, each read gets its own array', async () => {
    const t = new Transcript(file)
    await t.appendMany([msg('1'), msg('2')])
    const a = await t.readAll()
    await t.append(msg('3'))
    fs.appendFileSync(file, line(msg('4'))) // another writer
    const b = await t.readAll()
    expect(ids(b)).toEqual(['1', '2', '3', '4'])
    expect(b.entries[0]).toBe(a.entries[0])
    expect(b.entries[1]).toBe(a.entries[1])
    expect(b).toEqual(full())
    a.entries.length = 0 // a caller changing its array does not change the next read
    expect(ids(await t.readAll())).toEqual(['1', '2', '3', '4'])
    expect((await new Transcript(file).readAll()).entries[2]).toBe(b.entries[2]) // shared by path, not per object
  })

  it('a torn last line is reported on every read, never cached; once terminated by the next append it is a skipped line', async () => {
    const t = new Transcript(file)
    await t.append(msg('1'))
    await t.readAll()
    fs.appendFileSync(file, '{"type":"message","id":"torn')
    for (let i = 0; i < 2; i++) expect(await t.readAll()).toEqual({ entries: [msg('1')], skipped: 1, torn: true, damaged: [] })
    await t.append(msg('2'))
    const r = await t.readAll()
    expect(r).toEqual({ entries: [msg('1'), msg('2')], skipped: 1, torn: false, damaged: [] })
    expect(r).toEqual(full())
    // a write cut just before its '\n' still parses, as in a full parse
    fs.appendFileSync(file, JSON.stringify(msg('3')))
    expect(ids(await t.readAll())).toEqual(['1', '2', '3'])
    expect(await t.readAll()).toEqual(full())
    await t.append(msg('4'))
    expect(await t.readAll()).toEqual({ entries: [msg('1'), msg('2'), msg('3'), msg('4')], skipped: 1, torn: false, damaged: [] })
  })

  it('a last line of NULs (a power loss) or other bytes is lost data, reported, and stays reported once an append terminates it', async () => {
    const t = new Transcript(file)
    await t.appendMany([msg('1'), msg('2')])
    await t.readAll()
    fs.appendFileSync(file, Buffer.alloc(300)) // the blocks an unsynced append was given, never written
    for (let i = 0; i < 2; i++) expect(await t.readAll()).toEqual({ entries: [msg('1'), msg('2')], skipped: 1, torn: true, damaged: [3] })
    expect(await t.readAll()).toEqual(full())
    await t.append(msg('3'))
    const r = await t.readAll()
    expect(r).toEqual({ entries: [msg('1'), msg('2'), msg('3')], skipped: 1, torn: false, damaged: [3] })
    expect(r).toEqual(full())
    // a whole file of NULs: its one "line" is reported
    fs.writeFileSync(file, Buffer.alloc(2048))
    bumpMtime()
    expect(readTranscript(file)).toEqual({ entries: [], skipped: 1, torn: true, damaged: [1] })
    expect(readTranscript(file)).toEqual(full())
  })

  it.skipIf(process.platform === 'win32')('a folder, a FIFO or a symlink to /dev/zero under the name: refused naming the file, not read as empty', () => {
    const refusal = `transcript ${path.basename(file)} is not a regular file`
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      fs.mkdirSync(file)
      expect(() => readTranscript(file)).toThrow(refusal)
      fs.rmdirSync(file)
      fs.symlinkSync('/dev/zero', file)
      expect(() => readTranscript(file)).toThrow(refusal)
      fs.rmSync(file)
      execFileSync('mkfifo', [file])
      const writer = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_NONBLOCK) // held open: a read could not end
      try {
        expect(() => readTranscript(file)).toThrow(refusal)
      } finally {
        fs.closeSync(writer)
      }
      expect(() => readTranscript(file)).toThrow(refusal) // and with no writer: at once, not waiting in open()
      expect(fs.lstatSync(file).isFIFO()).toBe(true)
    } finally {
      warn.mockRestore()
    }
  })

  it('external truncation, an in-place rewrite, a replaced file and a deleted file are all parsed again', async () => {
    const t = new Transcript(file)
    await t.appendMany([msg('1'), msg('2'), msg('3')])
    const first = await t.readAll()
    // truncated to its first line
    fs.truncateSync(file, Buffer.byteLength(line(msg('1'))))
    expect(ids(await t.readAll())).toEqual(['1'])
    // truncated and rewritten longer than before (same inode)
    fs.writeFileSync(file, line(msg('a')) + line(msg('b')) + line(msg('c')) + line(msg('d')))
    expect(ids(await t.readAll())).toEqual(['a', 'b', 'c', 'd'])
    // a middle line rewritten in place, same size, same first and last bytes: only the mtime tells
    const size = fs.statSync(file).size
    fs.writeFileSync(file, line(msg('a')) + line(msg('B')) + line(msg('C')) + line(msg('d')))
    expect(fs.statSync(file).size).toBe(size)
    bumpMtime()
    expect(ids(await t.readAll())).toEqual(['a', 'B', 'C', 'd'])
    fs.writeFileSync(file, line(msg('w')) + line(msg('x')) + line(msg('y')) + line(msg('z')))
    bumpMtime()
    // replaced by another file (rename over it: new inode), even one that starts the same
    const other = path.join(dir, 'other.jsonl')
    fs.writeFileSync(other, line(msg('w')) + line(msg('q')))
    fs.renameSync(other, file)
    expect(ids(await t.readAll())).toEqual(['w', 'q'])
    // deleted (e.g. /new archived it), then a new session file under the same name
    fs.rmSync(file)
    expect(await t.readAll()).toEqual({ entries: [], skipped: 0, torn: false, damaged: [] })
    await t.append(msg('n'))
    expect(ids(await t.readAll())).toEqual(['n'])
    expect(first.entries).toHaveLength(3) // earlier results are untouched
  })

  it('/reset: the archived transcript and the new one are read independently', async () => {
    const store = path.join(dir, 'old.jsonl')
    const t = new Transcript(store)
    await t.appendMany([msg('1'), msg('2')])
    await t.readAll()
    const archived = `${store}.reset.2026-01-01T00-00-00-000Z`
    fs.renameSync(store, archived)
    expect(await t.readAll()).toEqual({ entries: [], skipped: 0, torn: false, damaged: [] })
    expect(ids(await new Transcript(archived).readAll())).toEqual(['1', '2'])
    await t.append(msg('fresh'))
    expect(ids(await t.readAll())).toEqual(['fresh'])
    forgetTranscript(store)
    forgetTranscript(archived)
  })

  it('compaction entries appended later rebuild the same history as a full parse', async () => {
    const t = new Transcript(file)
    await t.appendMany([msg('1'), msg('2'), msg('3')])
    await t.readAll()
    await t.append({ type: 'compaction', id: 'c1', timestamp: 2, summary: 'they talked', firstKeptEntryId: '3', tokensBefore: 10 } as TranscriptEntry)
    await t.append(msg('4'))
    const cached = rebuildHistory((await t.readAll()).entries)
    const fresh = rebuildHistory(full().entries)
    expect(cached).toEqual(fresh)
    expect(cached.compactionSummary).toBe('they talked')
    expect(cached.messages).toHaveLength(2)
  })

  it('memory stays bounded: a transcript above the per-file cap is parsed on every read, many transcripts evict the least recently read', async () => {
    const big = path.join(dir, 'big.jsonl')
    const line = JSON.stringify(msg('b', 'x'.repeat(64 * 1024))) + '\n'
    fs.writeFileSync(big, line.repeat(Math.ceil(MAX_CACHED_FILE_BYTES / line.length) + 1))
    const before = transcriptCacheStats()
    const r = readTranscript(big)
    expect(r.entries.length).toBeGreaterThan(60)
    expect(transcriptCacheStats()).toEqual(before) // not kept
    expect(readTranscript(big)).toEqual(r)
    const many = Array.from({ length: MAX_CACHED_FILES + 20 }, (_, i) => path.join(dir, `m${i}.jsonl`))
    for (const f of many) {
      fs.writeFileSync(f, JSON.stringify(msg(path.basename(f))) + '\n')
      readTranscript(f)
    }
    expect(transcriptCacheStats().files).toBeLessThanOrEqual(MAX_CACHED_FILES)
    for (const f of many.slice(-3)) expect(ids(readTranscript(f))).toEqual([path.basename(f)])
    for (const f of many) forgetTranscript(f)
  })

  it('random appends, torn writes, truncations, rewrites and replacements: every read equals a full parse', () => {
    let seed = 12345
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    let n = 0
    const ops: Array<() => void> = [
      () => fs.appendFileSync(file, line(msg(`m${n++}`, 'é'.repeat(rand(40))))), // multi-byte text
      () => fs.appendFileSync(file, Array.from({ length: 1 + rand(5) }, () => line(msg(`m${n++}`))).join('')),
      () => fs.appendFileSync(file, JSON.stringify(msg(`t${n++}`)).slice(0, 1 + rand(60))), // torn write
      () => fs.appendFileSync(file, '\n'),
      () => fs.appendFileSync(file, 'garbage line\n'),
      () => fs.appendFileSync(file, rand(2) ? Buffer.alloc(1 + rand(30)) : 'garbage without its newline'),
      () => fs.existsSync(file) && fs.truncateSync(file, rand(fs.statSync(file).size + 1)),
      () => {
        fs.writeFileSync(file, line(msg(`r${n++}`)) + line(msg(`r${n++}`)))
        bumpMtime()
      },
      () => {
        const tmp = path.join(dir, 'tmp.jsonl')
        fs.writeFileSync(tmp, fs.existsSync(file) ? fs.readFileSync(file) : '')
        fs.appendFileSync(tmp, line(msg(`x${n++}`)))
        fs.renameSync(tmp, file)
      },
      () => fs.rmSync(file, { force: true }),
    ]
    for (let i = 0; i < 400; i++) {
      ops[rand(ops.length)]()
      if (rand(3) === 0) continue // several changes between reads, too
      expect(readTranscript(file), `after step ${i}`).toEqual(full())
    }
  })
})
