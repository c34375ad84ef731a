// Parsed transcripts kept between reads, so a run parses only the lines appended since the last read
// instead of the whole session every time (transcripts only ever grow by appends).
//
// A cached parse covers the file up to its last '\n' (a torn last line is parsed on every read and never
// cached). It is reused only when the file is still the same file grown by appends: same device + inode,
// not shorter than the parsed part, and the last bytes of the parsed part unchanged (a rewrite or a
// truncate-and-rewrite changes them). A file that kept its size but has a new mtime was rewritten in
// place: parsed again. Anything else (missing file, replaced, truncated, shrunk) means a full parse,
// exactly what an uncached read gives. One read of the file: the checked bytes and the new ones together.
//
// Entries are shared between reads (each read gets its own array): treat them as read-only values.
//
// Damage: a line in the middle that does not parse is reported (`damaged`, 1-based line numbers; a warning
// naming the file and lines is logged once per file per process, never the content). A torn LAST line is a
// crash mid-write, expected and silent; when the next append terminates it, the appender writes the
// TORN_LINE_MARK line right after it, so the fragment stays silent after that too. Only a fragment that starts
// as every line does ('{') is such a crash: a last line of NULs (a power loss left the file's end unwritten —
// a NUL-filled transcript is one such "line") or other bytes is lost data, reported like a middle line.
import fs from 'node:fs'
import path from 'node:path'
import type { TranscriptEntry } from '../contracts'
import { NONBLOCK } from '../open-regular-file'

export interface TranscriptRead {
  entries: TranscriptEntry[]
  /** lines that could not be parsed (torn last line, garbled middle line) */
  skipped: number
  /** the file did not end with a newline (a write was cut short) */
  torn: boolean
  /** 1-based numbers of lines before the last that could not be read (not crash-torn lines): lost data */
  damaged: number[]
}

/** Written (as its own line) by an append that had to terminate a torn last line: that fragment is not damage. */
export const TORN_LINE_MARK = '#torn-line-above'

interface Cached {
  dev: number
  ino: number
  /** file size and mtime when last read */
  size: number
  mtimeMs: number
  /** bytes parsed into `entries`: everything through the last '\n' */
  parsed: number
  entries: TranscriptEntry[]
  skipped: number
  /** '\n'-terminated lines in the parsed part */
  lines: number
  damaged: number[]
  /** the last damaged line could be a crash-torn append (see `looksTorn`) */
  lastTorn: boolean
  /** last SAMPLE bytes of the parsed part */
  tail: Buffer
  /** what followed the last '\n' (a torn line) when last read */
  partial: string
}

const SAMPLE = 64
const NL = 0x0a
/** transcripts larger than this are parsed on every read, not kept */
export const MAX_CACHED_FILE_BYTES = 4 * 1024 * 1024
/**
 * all kept parses together, least recently read dropped first (file bytes: the parsed objects take ~2-4×
 * that in the heap, so this bounds the cache at roughly 50 MB even with many long sessions)
 */
export const MAX_CACHED_TOTAL_BYTES = 16 * 1024 * 1024
export const MAX_CACHED_FILES = 256

const cache = new Map<string, Cached>()
let cachedBytes = 0

export function parseTranscript(text: string): TranscriptRead {
  const torn = text.length > 0 && !text.endsWith('\n')
  const end = text.lastIndexOf('\n') + 1
  const p = parseComplete(text.slice(0, end), { entries: [], skipped: 0, lines: 0, damaged: [], lastTorn: false })
  const last = text.slice(end)
  let skipped = p.skipped
  if (last.trim() !== '') {
    const e = parseLine(last)
    if (e) p.entries.push(e)
    else {
      skipped++ // a torn last line: silent
      if (!looksTorn(last)) p.damaged.push(p.lines + 1)
    }
  }
  return { entries: p.entries, skipped, torn, damaged: p.damaged }
}

interface Parsed {
  entries: TranscriptEntry[]
  skipped: number
  lines: number
  damaged: number[]
  lastTorn: boolean
}

/** A line that does not parse could be an append cut short by a crash: a prefix of a JSON object line. */
function looksTorn(line: string): boolean {
  return line.startsWith('{')
}

/** Parses '\n'-terminated lines onto `into` (line numbers go on from `into.lines`); returns `into`. */
function parseComplete(text: string, into: Parsed): Parsed {
  const lines = text.split('\n')
  lines.pop() // what follows the last '\n' (empty: only complete lines are passed)
  for (const line of lines) {
    into.lines++
    if (line === TORN_LINE_MARK) {
      // the line before was a crash-torn line, terminated by the append that wrote this mark
      if (into.damaged.at(-1) === into.lines - 1 && into.lastTorn) into.damaged.pop()
      continue
    }
    if (line.trim() === '') continue
    const e = parseLine(line)
    if (e) into.entries.push(e)
    else {
      into.skipped++
      into.damaged.push(into.lines)
      into.lastTorn = looksTorn(line)
    }
  }
  return into
}

function parseLine(line: string): TranscriptEntry | undefined {
  try {
    const v = JSON.parse(line) as unknown
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string') return v as TranscriptEntry
  } catch {
    // garbled or torn
  }
  return undefined
}

/** Reads and parses a transcript, reusing the parse of what an earlier read already saw. */
export function readTranscript(file: string): TranscriptRead {
  const key = path.resolve(file)
  let fd: number
  try {
    // non-blocking: a FIFO under the name opens at once (a plain open waited for a writer, freezing the gateway)
    fd = fs.openSync(key, fs.constants.O_RDONLY | NONBLOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      forget(key)
      return { entries: [], skipped: 0, torn: false, damaged: [] }
    }
    throw err
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) throw notRegular(key)
    let c = cache.get(key)
    if (c && (st.dev !== c.dev || st.ino !== c.ino || st.size < c.parsed || (st.size === c.size && st.mtimeMs !== c.mtimeMs))) c = undefined
    if (c && st.size === c.size && st.mtimeMs === c.mtimeMs) return result(key, c, c.partial) // unchanged
    // from the cached tail on: it must still be there, followed by what was appended since
    const keep = c ? c.tail.length : 0
    const from = (c?.parsed ?? 0) - keep
    const bytes = readRange(fd, from, st.size - from)
    if (c && (bytes.length < keep || bytes.compare(c.tail, 0, keep, 0, keep) !== 0)) return remember(key, parseAll(fd, st), st)
    return remember(key, extend(c, bytes.subarray(keep), st), st)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A folder, FIFO or device under a transcript's name (a symlink to /dev/zero read as empty; a folder failed with a
 * bare EISDIR naming nothing). The message names the file by its base name only: read-scoped clients see it.
 */
function notRegular(file: string): Error {
  console.warn(`[runtime] transcript ${file} is not a regular file; its session cannot be read until it is moved away`)
  return Object.assign(new Error(`transcript ${path.basename(file)} is not a regular file (a folder, FIFO or device): move it away from the sessions folder`), { code: 'EFTYPE' })
}

/** A parse from scratch (the cached one no longer matches the file). */
function parseAll(fd: number, st: fs.Stats): Cached {
  return extend(undefined, readRange(fd, 0, st.size), st)
}

/** The cached parse (or none) extended by `fresh`, the bytes that follow its parsed part. */
function extend(c: Cached | undefined, fresh: Buffer, st: fs.Stats): Cached {
  const complete = fresh.subarray(0, fresh.lastIndexOf(NL) + 1)
  // the cached arrays are private (reads get copies), so they grow in place
  const p: Parsed = c
    ? { entries: c.entries, skipped: c.skipped, lines: c.lines, damaged: c.damaged, lastTorn: c.lastTorn }
    : { entries: [], skipped: 0, lines: 0, damaged: [], lastTorn: false }
  if (complete.length > 0) parseComplete(complete.toString('utf8'), p)
  const parsed = (c?.parsed ?? 0) + complete.length
  return {
    dev: st.dev,
    ino: st.ino,
    size: parsed + fresh.length - complete.length,
    mtimeMs: st.mtimeMs,
    parsed,
    entries: p.entries,
    skipped: p.skipped,
    lines: p.lines,
    damaged: p.damaged,
    lastTorn: p.lastTorn,
    tail: complete.length === 0 && c ? c.tail : lastBytes(c?.tail, complete),
    partial: fresh.subarray(complete.length).toString('utf8'),
  }
}

/** The file's size as last read when it ended with '\n' there (undefined: unknown, or a torn last line). */
export function cleanEndOf(file: string): number | undefined {
  const c = cache.get(path.resolve(file))
  return c && c.partial === '' ? c.size : undefined
}

/** What the cache holds (diagnostics, tests). */
export function transcriptCacheStats(): { files: number; bytes: number } {
  return { files: cache.size, bytes: cachedBytes }
}

/** Drops the cached parse of a file (tests; callers that replace a transcript wholesale). */
export function forgetTranscript(file: string): void {
  forget(path.resolve(file))
}

function result(key: string, c: Cached, partial: string): TranscriptRead {
  const entries = c.entries.slice()
  let skipped = c.skipped
  const damaged = c.damaged.slice()
  if (partial.trim() !== '') {
    // a torn last line: kept when it still parses (the write was cut just before its '\n'), like a full parse
    const e = parseLine(partial)
    if (e) entries.push(e)
    else {
      skipped++
      if (!looksTorn(partial)) damaged.push(c.lines + 1)
    }
  }
  if (damaged.length) warnDamaged(key, damaged)
  return { entries, skipped, torn: partial.length > 0, damaged }
}

const warned = new Set<string>()

/** Once per file per process: which lines were lost (numbers only: the content may be private). */
function warnDamaged(file: string, lines: number[]): void {
  if (warned.has(file)) return
  warned.add(file)
  const shown = lines.length > 20 ? `${lines.slice(0, 20).join(', ')} … (${lines.length} in all)` : lines.join(', ')
  console.warn(`[runtime] transcript ${file}: line${lines.length === 1 ? '' : 's'} ${shown} could not be read and ${lines.length === 1 ? 'is' : 'are'} skipped`)
}

/** Keeps `c` (unless the file is too large to keep) and returns what a read gives. */
function remember(key: string, c: Cached, st: fs.Stats): TranscriptRead {
  forget(key)
  if (st.size > MAX_CACHED_FILE_BYTES) return result(key, c, c.partial)
  cache.set(key, c)
  cachedBytes += c.parsed
  // least recently read first
  for (const [k, old] of cache) {
    if (cachedBytes <= MAX_CACHED_TOTAL_BYTES && cache.size <= MAX_CACHED_FILES) break
    if (k === key) continue
    cache.delete(k)
    cachedBytes -= old.parsed
  }
  return result(key, c, c.partial)
}

function forget(key: string): void {
  const c = cache.get(key)
  if (!c) return
  cache.delete(key)
  cachedBytes -= c.parsed
}

/** The last SAMPLE bytes of (an earlier sample + the newly parsed bytes), copied. */
function lastBytes(before: Buffer | undefined, added: Buffer): Buffer {
  if (added.length >= SAMPLE || !before?.length) return Buffer.from(added.subarray(Math.max(0, added.length - SAMPLE)))
  const all = Buffer.concat([before, added])
  return Buffer.from(all.subarray(Math.max(0, all.length - SAMPLE)))
}

/** Up to `length` bytes at `position` (fewer if the file ends first). */
function readRange(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, length))
  let off = 0
  while (off < buf.length) {
    const n = fs.readSync(fd, buf, off, buf.length - off, position + off)
    if (n === 0) break
    off += n
  }
  return off === buf.length ? buf : buf.subarray(0, off)
}
