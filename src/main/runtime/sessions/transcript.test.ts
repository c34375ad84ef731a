import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { TranscriptEntry } from '../contracts'
import { exited, spawnChild, waitForLine } from './test-fixtures/child'
import { Transcript, type TranscriptHeader } from './transcript'
import { TORN_LINE_MARK } from './transcript-cache'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-tr-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const header: TranscriptHeader = { type: 'session', version: 1, id: 'abc', timestamp: new Date(0).toISOString(), cwd: '/w', sessionKey: 'agent:main:main' }
const msg = (id: string, text = id): TranscriptEntry => ({ type: 'message', id, timestamp: 1, message: { role: 'user', content: text } })

describe('Transcript', () => {
  it('builds paths under <state>/agents/<agent>/sessions and rejects unsafe session ids', () => {
    const t = Transcript.forSession('/state', 'main', 'abc-1')
    expect(t.file).toBe('/state/agents/main/sessions/abc-1.jsonl')
    expect(Transcript.pathFor('/d', 'x')).toBe('/d/x.jsonl')
    expect(() => Transcript.pathFor('/d', '../etc/passwd')).toThrow(/invalid sessionId/)
    expect(() => Transcript.pathFor('/d', 'a/b')).toThrow(/invalid sessionId/)
    expect(() => Transcript.forSession('/s', 'Bad Agent', 'x')).toThrow(/invalid agentId/)
  })

  it('writes the header once, then appends one JSON line per entry (mode 0600)', async () => {
    const t = new Transcript(path.join(dir, 'sub', 's.jsonl'))
    expect(t.exists()).toBe(false)
    expect(await t.readAll()).toEqual({ entries: [], skipped: 0, torn: false, damaged: [] })
    expect(await t.ensureHeader(header)).toBe(true)
    expect(await t.ensureHeader(header)).toBe(false)
    await t.append(msg('1'))
    await t.appendMany([msg('2'), msg('3')])
    await t.appendMany([])
    const text = fs.readFileSync(t.file, 'utf8')
    expect(text.split('\n')).toHaveLength(5)
    expect(fs.statSync(t.file).mode & 0o777).toBe(0o600)
    const { entries, skipped } = await t.readAll()
    expect(skipped).toBe(0)
    expect(entries.map((e) => (e.type === 'session' ? 'h' : e.id))).toEqual(['h', '1', '2', '3'])
  })

  it('the same object still terminates a torn line another writer left after its own last append', async () => {
    const t = new Transcript(path.join(dir, 'new', 'deeper', 's.jsonl')) // directories created by the first append
    await t.append(msg('1'))
    await t.append(msg('2'))
    fs.appendFileSync(t.file, '{"type":"message","id":"torn') // e.g. a killed process that had the lock before us
    await t.append(msg('3'))
    const r = await t.readAll()
    expect(r.skipped).toBe(1)
    expect(r.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['1', '2', '3'])
  })

  it('a torn line another writer left after this object read the file is terminated before the next append', async () => {
    const t = new Transcript(path.join(dir, 'r.jsonl'))
    await t.append(msg('1'))
    const other = new Transcript(t.file)
    await other.readAll() // other now knows where the file ends (with its '\n')
    fs.appendFileSync(t.file, '{"type":"message","id":"torn')
    await other.append(msg('2'))
    const r = await other.readAll()
    expect(r.skipped).toBe(1)
    expect(r.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['1', '2'])
  })

  it('ensureHeader fills an existing empty file', async () => {
    const file = path.join(dir, 'e.jsonl')
    fs.writeFileSync(file, '')
    expect(await new Transcript(file).ensureHeader(header)).toBe(true)
    expect((await new Transcript(file).readAll()).entries[0]).toEqual(header)
  })

  it('a torn last line is skipped on read; the next append starts a fresh line and earlier lines survive', async () => {
    const t = new Transcript(path.join(dir, 's.jsonl'))
    await t.ensureHeader(header)
    await t.append(msg('1'))
    await t.append(msg('2'))
    // simulate a crash in the middle of writing entry 3
    const full = JSON.stringify(msg('3', 'this line never finished'))
    fs.appendFileSync(t.file, full.slice(0, 25))
    const before = await t.readAll()
    expect(before.torn).toBe(true)
    expect(before.skipped).toBe(1)
    expect(before.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['h', '1', '2'])

    // a new Transcript object (as after a restart) appends
    await new Transcript(t.file).append(msg('4'))
    const after = await t.readAll()
    expect(after.torn).toBe(false)
    expect(after.skipped).toBe(1) // the torn fragment, now terminated, stays skipped
    expect(after.damaged).toEqual([]) // ...and silent: a crash mid-write, not damage
    expect(after.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['h', '1', '2', '4'])
    const lines = fs.readFileSync(t.file, 'utf8').split('\n')
    expect(lines[3]).toBe(full.slice(0, 25))
    expect(lines[4]).toBe(TORN_LINE_MARK)
    expect(JSON.parse(lines[5]).id).toBe('4')
  })

  it('a garbled middle line is skipped and counted, later lines are kept', async () => {
    const file = path.join(dir, 'g.jsonl')
    fs.writeFileSync(
      file,
      [JSON.stringify(header), JSON.stringify(msg('1')), '{"type":"message", garbage', '[1,2]', '42', '', JSON.stringify(msg('2'))].join('\n') + '\n',
    )
    const { entries, skipped, torn, damaged } = await new Transcript(file).readAll()
    expect(skipped).toBe(3)
    expect(torn).toBe(false)
    expect(damaged).toEqual([3, 4, 5])
    expect(entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['h', '1', '2'])
  })

  it('a damaged middle line is reported with its line number and logged once per file, without its content', async () => {
    const file = path.join(dir, 'd.jsonl')
    const q = JSON.stringify(msg('q', 'secret question'))
    // a user message cut in half, then a garbage line, between intact lines (not a crash: no repair mark)
    fs.writeFileSync(file, [JSON.stringify(header), JSON.stringify(msg('1')), q.slice(0, 30), 'xx garbage xx', JSON.stringify(msg('2'))].join('\n') + '\n')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const r = await new Transcript(file).readAll()
      expect(r.damaged).toEqual([3, 4])
      expect(r.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['h', '1', '2'])
      await new Transcript(file).append(msg('3'))
      expect((await new Transcript(file).readAll()).damaged).toEqual([3, 4]) // cached reads still report it
      expect(warn).toHaveBeenCalledTimes(1)
      const said = String(warn.mock.calls[0][0])
      expect(said).toContain(file)
      expect(said).toContain('3, 4')
      expect(said).not.toContain('secret')
      expect(said).not.toContain('garbage')
    } finally {
      warn.mockRestore()
    }
  })

  it('damage appended after a cached read is found; a torn line repaired in a later append stays silent', async () => {
    const file = path.join(dir, 'e.jsonl')
    const t = new Transcript(file)
    await t.ensureHeader(header)
    await t.append(msg('1'))
    expect((await t.readAll()).damaged).toEqual([])
    fs.appendFileSync(file, '{"type":"mess\n') // damage another writer left, ended by its own newline
    await t.append(msg('2'))
    fs.appendFileSync(file, '{"type":"message","id":"to') // a crash mid-write...
    expect((await t.readAll()).damaged).toEqual([3]) // ...is silent while it is the last line
    await t.append(msg('3')) // ...and once this append terminates it
    const r = await t.readAll()
    expect(r.damaged).toEqual([3])
    expect(r.skipped).toBe(2)
    expect(r.entries.map((e) => (e.type === 'message' ? e.id : 'h'))).toEqual(['h', '1', '2', '3'])
  })

  it('a complete last line without its newline is still read', async () => {
    const file = path.join(dir, 'n.jsonl')
    fs.writeFileSync(file, JSON.stringify(header) + '\n' + JSON.stringify(msg('1')))
    const r = await new Transcript(file).readAll()
    expect(r.entries).toHaveLength(2)
    expect(r.torn).toBe(true)
    await new Transcript(file).append(msg('2'))
    expect((await new Transcript(file).readAll()).entries).toHaveLength(3)
  })

  it('honours fsync: true', async () => {
    const t = new Transcript(path.join(dir, 'f.jsonl'), { fsync: true })
    await t.ensureHeader(header)
    await t.append(msg('1'))
    expect((await t.readAll()).entries).toHaveLength(2)
  })

  it('kill -9 of a writer mid-stream leaves every earlier line readable', async () => {
    const file = path.join(dir, 'k.jsonl')
    const child = spawnChild(['append', file, '0'])
    const done = exited(child)
    await waitForLine(child, 'appending')
    await new Promise((r) => setTimeout(r, 30))
    child.kill('SIGKILL')
    await done
    const r = await new Transcript(file).readAll()
    expect(r.entries.length).toBeGreaterThan(10)
    expect(r.skipped).toBeLessThanOrEqual(1) // at most the line being written
    r.entries.forEach((e, i) => expect((e as { id: string }).id).toBe(`m${i}`))
    await new Transcript(file).append(msg('after'))
    const again = await new Transcript(file).readAll()
    expect(again.entries.at(-1)).toMatchObject({ id: 'after' })
    expect(again.entries.length).toBe(r.entries.length + 1)
  })
})
