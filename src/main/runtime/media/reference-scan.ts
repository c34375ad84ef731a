// Which inbound media files are still referenced: their uuids are looked for in the raw bytes of every file
// that can name one — each regular file directly in `<stateDir>/agents/*/sessions/` (transcripts, archived
// transcripts, accepted-message journals of live and dead runtimes, sessions.json, temp files). Bytes, not
// parsed JSON: a path is written literally whatever the encoding around it (JSON escapes neither hex
// digits nor '-'), scanning needs no JSON parse, and a mention anywhere keeps the file (keeping too much is
// the safe mistake). Files are read in 1 MiB chunks, so a huge transcript never sits in memory at once.
//
// The sources change while they are read (a run appends, a reset renames a transcript to its archive name,
// a journal entry becomes a transcript line). So the files are listed and read again until one full pass
// finds nothing new or changed; only then is the set of references complete for what was on disk.
import fs from 'node:fs'
import path from 'node:path'
import { eachUuidToken, UUID_TOKEN_LENGTH } from './inbound-names'
import { openRegularFile } from '../open-regular-file'

const CHUNK_BYTES = 1 << 20
/** bytes remembered at the end of a scanned transcript, to tell an append from a rewrite */
const TAIL_BYTES = 64

export interface ScanResult {
  /** offset the scan stopped at (the file's size when it was read) */
  end: number
  ino: number
  mtimeMs: number
  /** the last bytes before `end` */
  tail: Buffer
  bytesRead: number
}

export interface ScanOptions {
  /** start offset (default 0) */
  from?: number
  /** only these uuids are recorded (default: any uuid) */
  wanted?: ReadonlySet<string>
  found: Set<string>
  signal?: AbortSignal
  /** stop recording new uuids beyond this many (default unlimited) */
  maxFound?: number
}

/** Adds the uuid tokens of `file` (from `from` to its current end) to `found`. Follows symlinks (reading only). */
export async function scanFile(file: string, opts: ScanOptions): Promise<ScanResult> {
  const fh = await openRegularFile(file)
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES)
    let pos = opts.from ?? 0
    let carry = ''
    let bytesRead = 0
    let tail = Buffer.alloc(0)
    for (;;) {
      opts.signal?.throwIfAborted()
      const r = await fh.read(buf, 0, CHUNK_BYTES, pos)
      if (r.bytesRead === 0) break
      pos += r.bytesRead
      bytesRead += r.bytesRead
      // latin1: one char per byte, and UTF-8 never encodes a non-ASCII char with ASCII bytes
      const text = carry + buf.toString('latin1', 0, r.bytesRead)
      eachUuidToken(text, (id) => {
        if (opts.wanted && !opts.wanted.has(id)) return
        if (opts.maxFound !== undefined && opts.found.size >= opts.maxFound) return
        opts.found.add(id)
      })
      // a token cut by the chunk boundary is whole in the next text
      carry = text.slice(-(UUID_TOKEN_LENGTH - 1))
      // copied out of the reused read buffer
      tail = Buffer.from(Buffer.concat([tail, buf.subarray(Math.max(0, r.bytesRead - TAIL_BYTES), r.bytesRead)]).subarray(-TAIL_BYTES))
    }
    const st = await fh.stat()
    return { end: pos, ino: st.ino, mtimeMs: st.mtimeMs, tail, bytesRead }
  } finally {
    await fh.close()
  }
}

/** Every `<stateDir>/agents/<id>/sessions` directory on disk (configured agents or not). */
export async function sessionDirs(stateDir: string): Promise<string[]> {
  const agentsDir = path.join(stateDir, 'agents')
  let names: string[]
  try {
    names = await fs.promises.readdir(agentsDir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const out: string[] = []
  for (const n of names) {
    const dir = path.join(agentsDir, n, 'sessions')
    try {
      if ((await fs.promises.stat(dir)).isDirectory()) out.push(dir)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
    }
  }
  return out
}

interface SourceStat {
  ino: number
  size: number
  mtimeMs: number
}

/** The regular files directly in `dirs` (a file gone between listing and stat is skipped: it moved or went). */
async function listSources(dirs: string[]): Promise<Map<string, SourceStat>> {
  const out = new Map<string, SourceStat>()
  for (const dir of dirs) {
    let names: string[]
    try {
      names = await fs.promises.readdir(dir)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw err
    }
    for (const name of names) {
      const file = path.join(dir, name)
      try {
        const st = await fs.promises.stat(file)
        if (st.isFile()) out.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs })
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
    }
  }
  return out
}

/** Transcripts only ever grow by appends, so a grown one is read from where the last read stopped. */
const appendOnly = (file: string) => file.endsWith('.jsonl') && !path.basename(file).startsWith('accepted.')

async function sameTail(file: string, end: number, tail: Buffer): Promise<boolean> {
  if (tail.length === 0) return end === 0
  const fh = await openRegularFile(file)
  try {
    const buf = Buffer.alloc(tail.length)
    const { bytesRead } = await fh.read(buf, 0, tail.length, end - tail.length)
    return bytesRead === tail.length && buf.equals(tail)
  } finally {
    await fh.close()
  }
}

export interface ReferenceScanOptions {
  stateDir: string
  /** uuids of the files that may go; the scan stops early once all of them are referenced */
  wanted: ReadonlySet<string>
  /** receives each wanted uuid found (may already hold some; only wanted uuids, ever) */
  found: Set<string>
  signal?: AbortSignal
  /** passes before giving up on sources that keep changing (default 10) */
  maxRounds?: number
}

export interface ReferenceScanReport {
  /** a full pass saw no new or changed source: `found` covers everything on disk */
  stable: boolean
  rounds: number
  files: number
  bytes: number
}

/** Reads the reference sources until a pass sees no change (or every wanted uuid is found). */
export async function findReferences(opts: ReferenceScanOptions): Promise<ReferenceScanReport> {
  const seen = new Map<string, ScanResult>()
  const report: ReferenceScanReport = { stable: false, rounds: 0, files: 0, bytes: 0 }
  // found holds wanted uuids only, so its size says when all are found
  const allFound = () => opts.found.size >= opts.wanted.size
  const maxRounds = opts.maxRounds ?? 10
  while (report.rounds < maxRounds) {
    report.rounds++
    if (allFound()) return { ...report, stable: true }
    // listed again each pass: a new agent, a renamed (archived) transcript, a new journal all show up
    const sources = await listSources(await sessionDirs(opts.stateDir))
    let changed = 0
    for (const [file, st] of sources) {
      opts.signal?.throwIfAborted()
      const prev = seen.get(file)
      if (prev && prev.ino === st.ino && prev.end === st.size && prev.mtimeMs === st.mtimeMs) continue
      changed++
      let from = 0
      if (prev && prev.ino === st.ino && st.size >= prev.end && appendOnly(file)) {
        try {
          // from TAIL_BYTES back: covers a token cut at the old end, and the new tail is then whole
          if (prev.end >= TAIL_BYTES && (await sameTail(file, prev.end, prev.tail))) from = prev.end - TAIL_BYTES
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
      }
      try {
        const r = await scanFile(file, { from, wanted: opts.wanted, found: opts.found, signal: opts.signal })
        seen.set(file, r)
        report.bytes += r.bytesRead
        if (!prev) report.files++
      } catch (err) {
        // gone since it was listed (renamed or removed): the next listing shows where it went
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        seen.delete(file)
      }
      if (allFound()) return { ...report, stable: true }
    }
    if (changed === 0) return { ...report, stable: true }
  }
  return report
}
