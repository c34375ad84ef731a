// The inbound media collector over real files: what it removes, what it must never touch, and how it keeps
// up with reference sources that change while it reads them.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { collectInboundMedia, transcriptUuids } from './media-gc'
import { findReferences } from './reference-scan'
import { inboundUuid, newInboundName } from './inbound-names'

const HOUR = 60 * 60_000
const dirs: string[] = []
afterEach(() => {
  vi.restoreAllMocks()
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function stateDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-media-gc-'))
  dirs.push(d)
  fs.mkdirSync(path.join(d, 'media', 'inbound'), { recursive: true })
  fs.mkdirSync(path.join(d, 'agents', 'main', 'sessions'), { recursive: true })
  return d
}

const inbound = (sd: string, name = '') => path.join(sd, 'media', 'inbound', name)
const sessions = (sd: string, agent = 'main') => path.join(sd, 'agents', agent, 'sessions')

// The collector counts a file's age from the later of mtime and ctime, and a test cannot set ctime back: the
// collector's clock runs AHEAD instead, so a file just written is this old, and mtime (set into that
// future) makes it younger.
const AHEAD = 3 * HOUR
const clock = () => Date.now() + AHEAD

/** A saved attachment, last changed `ageMs` ago by the collector's clock (at most AHEAD). */
function media(sd: string, ageMs = 2 * HOUR, ext = 'png'): string {
  const file = inbound(sd, newInboundName(ext))
  fs.writeFileSync(file, 'bytes', { mode: 0o600 })
  const t = (clock() - ageMs) / 1000
  fs.utimesSync(file, t, t)
  return file
}

/** A transcript line naming `file` the way the runtime writes it (inside a JSON string). */
function userLine(file: string): string {
  return JSON.stringify({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: `hi\n\n[Image attached: a.png (image/png, 5 bytes) saved at ${file}]` }] } }) + '\n'
}

const collect = (sd: string, extra: Partial<Parameters<typeof collectInboundMedia>[0]> = {}) =>
  collectInboundMedia({ stateDir: sd, graceMs: HOUR, now: clock, ...extra })

describe('collectInboundMedia', () => {
  it('removes old unreferenced files; keeps referenced ones and young orphans', async () => {
    const sd = stateDir()
    const inTranscript = media(sd)
    const inArchive = media(sd)
    const inOtherAgent = media(sd)
    const inJournal = media(sd)
    const inMemory = media(sd)
    const orphan = media(sd)
    const youngOrphan = media(sd, 5 * 60_000)
    fs.writeFileSync(path.join(sessions(sd), 's1.jsonl'), '{"type":"session"}\n' + userLine(inTranscript))
    fs.writeFileSync(path.join(sessions(sd), 's2.jsonl.reset.2026-01-01T00-00-00-000Z'), userLine(inArchive))
    // an agent that is no longer configured still has its transcripts
    fs.mkdirSync(sessions(sd, 'old'), { recursive: true })
    fs.writeFileSync(path.join(sessions(sd, 'old'), 's3.jsonl.deleted.2026-01-01T00-00-00-000Z'), userLine(inOtherAgent))
    // an accepted message of another (live or dead) runtime, not yet in any transcript
    fs.writeFileSync(
      path.join(sessions(sd), 'accepted.999999-abcd.jsonl'),
      JSON.stringify({ op: 'owner', pid: 999999 }) + '\n' + JSON.stringify({ op: 'accept', runId: 'r', sessionKey: 'agent:main:x', text: 't', at: 1, media: [inJournal] }) + '\n',
    )

    const r = await collect(sd, { pendingRefs: () => [`saved at ${inMemory}`] })
    expect(r.removed).toEqual([orphan])
    expect(r).toMatchObject({ candidates: 6, kept: 5 })
    expect(r.skipped).toBeUndefined()
    expect(r.scan?.stable).toBe(true)
    for (const f of [inTranscript, inArchive, inOtherAgent, inJournal, inMemory, youngOrphan]) expect(fs.existsSync(f)).toBe(true)
    expect(fs.existsSync(orphan)).toBe(false)
  })

  it('a path written in another form still counts: JSON-escaped (Windows) or upper case', async () => {
    const sd = stateDir()
    const a = media(sd)
    const b = media(sd)
    const winPath = `C:\\Users\\me\\.loopdesk\\media\\inbound\\${path.basename(a)}`
    fs.writeFileSync(path.join(sessions(sd), 's.jsonl'), JSON.stringify({ text: winPath }) + '\n' + `see ${path.basename(b).toUpperCase()}\n`)
    expect((await collect(sd)).removed).toEqual([])
  })

  it('touches only <uuid>.<ext> regular files directly in media/inbound', async () => {
    const sd = stateDir()
    const id = randomUUID()
    const others = [
      inbound(sd, 'notes.txt'),
      inbound(sd, `${id}.PNG`),
      inbound(sd, `${id}.waytoolongext`),
      inbound(sd, `${id}`),
      inbound(sd, `x${id}.png`),
    ]
    for (const f of others) fs.writeFileSync(f, 'x')
    fs.mkdirSync(inbound(sd, `${randomUUID()}.dir`))
    const nested = path.join(inbound(sd, 'sub'), newInboundName('png'))
    fs.mkdirSync(path.dirname(nested))
    fs.writeFileSync(nested, 'x')
    const old = (Date.now() - 3 * HOUR) / 1000
    for (const f of [...others, nested]) fs.utimesSync(f, old, old)
    const r = await collect(sd)
    expect(r).toMatchObject({ candidates: 0, removed: [] })
    for (const f of [...others, nested]) expect(fs.existsSync(f)).toBe(true)
  })

  it('never follows a symlink: neither a linked file nor a linked media directory', async () => {
    const sd = stateDir()
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-media-outside-'))
    dirs.push(outside)
    const target = path.join(outside, 'precious.png')
    fs.writeFileSync(target, 'keep me')
    const link = inbound(sd, newInboundName('png'))
    fs.symlinkSync(target, link)
    const r = await collect(sd, { graceMs: 0 })
    expect(r.candidates).toBe(0)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(target, 'utf8')).toBe('keep me')

    // media/inbound itself a symlink to a directory of look-alike files: the pass refuses outright
    const sd2 = stateDir()
    fs.rmSync(inbound(sd2), { recursive: true })
    const lookalike = path.join(outside, newInboundName('png'))
    fs.writeFileSync(lookalike, 'keep me too')
    const t = (Date.now() - 3 * HOUR) / 1000
    fs.utimesSync(lookalike, t, t)
    fs.symlinkSync(outside, inbound(sd2))
    const r2 = await collect(sd2)
    expect(r2.skipped).toMatch(/not a directory/)
    expect(fs.existsSync(lookalike)).toBe(true)
  })

  it('nothing to collect: no media dir, or no old files — and no reference is read then', async () => {
    const sd = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-media-none-'))
    dirs.push(sd)
    const r = await collect(sd)
    expect(r).toMatchObject({ candidates: 0, removed: [] })
    expect(r.scan).toBeUndefined()
    const sd2 = stateDir()
    media(sd2, 60_000)
    const r2 = await collect(sd2)
    expect(r2).toMatchObject({ candidates: 0, removed: [] })
    expect(r2.scan).toBeUndefined()
  })

  it('an unreadable reference source aborts the pass before anything is removed', async () => {
    const sd = stateDir()
    const orphan = media(sd)
    fs.writeFileSync(path.join(sessions(sd), 's.jsonl'), 'x\n')
    const real = fs.promises.open
    vi.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof real>) => {
      if (String(args[0]).endsWith('s.jsonl')) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })
      return real(...args)
    })
    await expect(collect(sd)).rejects.toThrow(/EIO/)
    expect(fs.existsSync(orphan)).toBe(true)
  })

  it('`only` limits the pass to the given uuids (the delete path), with no grace age', async () => {
    const sd = stateDir()
    const a = media(sd, 0)
    const b = media(sd, 0)
    const r = await collect(sd, { graceMs: 0, only: new Set([inboundUuid(path.basename(a))!]) })
    expect(r.removed).toEqual([a])
    expect(fs.existsSync(b)).toBe(true)
  })
})

describe('references that move while they are read', () => {
  it('a transcript renamed to its archive name mid-pass is found under the new name', async () => {
    const sd = stateDir()
    const f = media(sd)
    const live = path.join(sessions(sd), 's.jsonl')
    fs.writeFileSync(live, userLine(f))
    const real = fs.promises.open
    let moved = false
    vi.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof real>) => {
      // listed as s.jsonl, renamed (a reset) just before it is opened
      if (!moved && String(args[0]) === live) {
        moved = true
        fs.renameSync(live, `${live}.reset.2026-01-01T00-00-00-000Z`)
      }
      return real(...args)
    })
    const r = await collect(sd)
    expect(moved).toBe(true)
    expect(r.removed).toEqual([])
    expect(r.scan!.rounds).toBeGreaterThanOrEqual(2)
    expect(fs.existsSync(f)).toBe(true)
  })

  it('a journal entry that becomes a transcript line mid-pass is found in one or the other', async () => {
    const sd = stateDir()
    const f = media(sd)
    const transcript = path.join(sessions(sd), 's.jsonl')
    const journal = path.join(sessions(sd), 'accepted.999999-beef.jsonl')
    const owner = JSON.stringify({ op: 'owner', pid: 999999 }) + '\n'
    fs.writeFileSync(transcript, '{"type":"session"}\n')
    fs.writeFileSync(journal, owner + JSON.stringify({ op: 'accept', runId: 'r', sessionKey: 'agent:main:s', text: `saved at ${f}`, at: 1 }) + '\n')
    const real = fs.promises.open
    let settled = false
    vi.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof real>) => {
      // the first time either is read: the run writes the transcript line, then settles the journal (the
      // runtime's order), so whichever was read first no longer has it
      if (!settled && (String(args[0]) === journal || String(args[0]) === transcript)) {
        settled = true
        fs.appendFileSync(transcript, userLine(f))
        fs.truncateSync(journal, Buffer.byteLength(owner))
      }
      return real(...args)
    })
    const r = await collect(sd)
    expect(settled).toBe(true)
    expect(r.removed).toEqual([])
    expect(fs.existsSync(f)).toBe(true)
  })

  it('sources that never stop changing: nothing is removed', async () => {
    const sd = stateDir()
    const orphan = media(sd)
    const t = path.join(sessions(sd), 's.jsonl')
    fs.writeFileSync(t, 'x\n')
    const real = fs.promises.readdir
    vi.spyOn(fs.promises, 'readdir').mockImplementation((async (...args: Parameters<typeof real>) => {
      // a busy session: every listing finds the transcript grown again
      if (String(args[0]) === sessions(sd)) fs.appendFileSync(t, 'more\n')
      return real(...args)
    }) as typeof real)
    const r = await collect(sd, { maxRounds: 3 })
    expect(r.skipped).toMatch(/kept changing/)
    expect(r.removed).toEqual([])
    expect(fs.existsSync(orphan)).toBe(true)
  })

  it('a grown transcript is read from where the last pass stopped; a rewritten one from the start', async () => {
    for (const change of ['append', 'rewrite'] as const) {
      const sd = stateDir()
      const f = media(sd)
      const t = path.join(sessions(sd), 's.jsonl')
      const first = 'x'.repeat(5000) + '\n'
      fs.writeFileSync(t, first)
      const line = userLine(f)
      const real = fs.promises.readdir
      let listings = 0
      vi.spyOn(fs.promises, 'readdir').mockImplementation((async (...args: Parameters<typeof real>) => {
        // between pass 1 and pass 2 (the second listing of the sessions dir) the transcript changes
        if (String(args[0]) === sessions(sd) && ++listings === 2) {
          if (change === 'append') fs.appendFileSync(t, line)
          else fs.writeFileSync(t, 'y'.repeat(5000) + '\n' + line)
        }
        return real(...args)
      }) as typeof real)
      const found = new Set<string>()
      const r = await findReferences({ stateDir: sd, wanted: new Set([inboundUuid(path.basename(f))!]), found })
      expect(found.size).toBe(1)
      const len = Buffer.byteLength(line)
      // append: 64 bytes of the old end again + the new line; rewrite: the whole file again
      expect(r.bytes).toBe(change === 'append' ? first.length + 64 + len : first.length + first.length + len)
      vi.restoreAllMocks()
    }
  })
})

describe('transcriptUuids', () => {
  it('finds a token cut by the 1 MiB read boundary', async () => {
    const sd = stateDir()
    const f = media(sd)
    const t = path.join(sessions(sd), 'big.jsonl')
    const name = path.basename(f)
    // the uuid starts 10 bytes before the boundary
    fs.writeFileSync(t, Buffer.concat([Buffer.alloc((1 << 20) - 10, 0x78), Buffer.from(name), Buffer.from('\n')]))
    expect([...(await transcriptUuids(t))]).toEqual([inboundUuid(name)])
    expect((await collect(sd)).removed).toEqual([])
  })

  it('is empty for a missing file', async () => {
    expect((await transcriptUuids(path.join(os.tmpdir(), 'nope-' + randomUUID()))).size).toBe(0)
  })
})

describe('a large state dir', () => {
  it('1000 sessions: exactly the orphans go; prints the time of the pass', async () => {
    const sd = stateDir()
    const files = Array.from({ length: 200 }, () => media(sd))
    const filler = JSON.stringify({ type: 'message', id: randomUUID(), message: { role: 'assistant', content: 'x'.repeat(200) } }) + '\n'
    for (let s = 0; s < 1000; s++) {
      // every file but the first 20 is named by the transcripts of five sessions
      const mine = files.filter((_, i) => i >= 20 && i % 1000 === s % 200)
      fs.writeFileSync(path.join(sessions(sd), `${randomUUID()}.jsonl`), filler.repeat(30) + mine.map(userLine).join('') + filler.repeat(10))
    }
    const r = await collect(sd)
    console.log(`[media-gc] 1000 sessions, ${(r.scan!.bytes / 1024 / 1024).toFixed(1)} MB read: ${r.durationMs} ms, removed ${r.removed.length}`)
    expect(r.removed.sort()).toEqual(files.slice(0, 20).sort())
    expect(r.scan!.files).toBe(1000)
  })
})
