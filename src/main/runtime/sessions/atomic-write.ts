// Whole-file replacement that never leaves a half-written file behind: write a temp file in the same
// directory, optionally fsync it, then rename over the target (rename is atomic on POSIX filesystems).
// The writes themselves are synchronous (cheaper than a thread-pool round trip for small files); the
// async variant moves the fsyncs and the rename off the event loop, since under disk load they take many ms.
import fs from 'node:fs'
import path from 'node:path'

export interface AtomicWriteOptions {
  /** mode for a new file; an existing file keeps its own mode (default 0o600) */
  mode?: number
  /** the file gets exactly `mode`, an existing one too (secrets: a file someone widened is narrowed back) */
  exactMode?: boolean
  /** create the folder when missing (default true); false: a missing folder fails the write (ENOENT) */
  createDir?: boolean
  /** fsync the data (and the directory entry) before returning (default true) */
  fsync?: boolean
  /**
   * writeFileAtomic only: called with the new file's identity just before the rename is started. From
   * then on a stat of `file` may return it, and a cache keyed by file identity must recognise it as its
   * own write (else it takes it for another process's change and re-reads it).
   */
  onIdentity?: (id: WrittenFileStat) => void
}

export interface WrittenFileStat {
  dev: bigint
  ino: bigint
  size: bigint
  mtimeNs: bigint
}

let tmpCounter = 0

interface Pending {
  fd: number
  tmp: string
  dir: string
}

/** the file's bytes: text, bytes, or chunks written with one vectored write */
export type AtomicWriteData = string | Uint8Array | readonly Uint8Array[]

function begin(file: string, data: AtomicWriteData, opts: AtomicWriteOptions): Pending {
  const dir = path.dirname(file)
  if (opts.createDir !== false) fs.mkdirSync(dir, { recursive: true })
  let mode = opts.mode ?? 0o600
  if (!opts.exactMode) {
    try {
      mode = fs.statSync(file).mode & 0o777
    } catch {
      // new file: use the requested mode
    }
  }
  const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`
  const fd = fs.openSync(tmp, 'wx', mode)
  const p = { fd, tmp, dir }
  try {
    fs.fchmodSync(fd, mode) // the umask may have narrowed it
    if (Array.isArray(data)) writeChunks(fd, data)
    else {
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : (data as Uint8Array)
      let off = 0
      while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off)
    }
  } catch (err) {
    abort(p)
    throw err
  }
  return p
}

/** writev until every chunk is written (a short write continues where it stopped) */
function writeChunks(fd: number, chunks: readonly Uint8Array[]): void {
  let rest = chunks.filter((c) => c.byteLength > 0)
  while (rest.length > 0) {
    let n = fs.writevSync(fd, rest as Uint8Array[])
    let i = 0
    while (i < rest.length && n >= rest[i].byteLength) n -= rest[i++].byteLength
    rest = rest.slice(i)
    if (n > 0) rest[0] = rest[0].subarray(n)
  }
}

/** Closes the temp file; returns the identity the target will have once the temp file is renamed onto it. */
function close(p: Pending): WrittenFileStat {
  const st = fs.fstatSync(p.fd, { bigint: true })
  fs.closeSync(p.fd)
  p.fd = -1
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs }
}

function abort(p: Pending): void {
  if (p.fd >= 0) {
    try {
      fs.closeSync(p.fd)
    } catch {
      // already failing; the original error matters
    }
  }
  fs.rmSync(p.tmp, { force: true })
}

/** Atomically replaces `file` with `data`; returns the identity of the new file (for change detection). */
export function writeFileAtomicSync(file: string, data: AtomicWriteData, opts: AtomicWriteOptions = {}): WrittenFileStat {
  const p = begin(file, data, opts)
  try {
    if (opts.fsync !== false) fs.fsyncSync(p.fd)
    const id = close(p)
    fs.renameSync(p.tmp, file)
    if (opts.fsync !== false) fsyncDirSync(p.dir)
    return id
  } catch (err) {
    abort(p)
    throw err
  }
}

/**
 * Same as writeFileAtomicSync, with the fsyncs and the rename done on the thread pool (replacing a file
 * on ext4 can block for a millisecond or more: it frees the old file's blocks).
 */
export async function writeFileAtomic(file: string, data: AtomicWriteData, opts: AtomicWriteOptions = {}): Promise<WrittenFileStat> {
  const p = begin(file, data, opts)
  try {
    if (opts.fsync !== false) await fsyncAsync(p.fd)
    const id = close(p)
    opts.onIdentity?.(id)
    await renameAsync(p.tmp, file)
    if (opts.fsync !== false) await fsyncDirAsync(p.dir)
    return id
  } catch (err) {
    abort(p)
    throw err
  }
}

const renameAsync = (from: string, to: string) => new Promise<void>((res, rej) => fs.rename(from, to, (err) => (err ? rej(err) : res())))
const fsyncAsync = (fd: number) => new Promise<void>((res, rej) => fs.fsync(fd, (err) => (err ? rej(err) : res())))

/** Makes a rename durable; best effort (some filesystems refuse fsync on directories). */
function fsyncDirSync(dir: string): void {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, 'r')
    fs.fsyncSync(fd)
  } catch {
    // not supported here: the data itself is already synced
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

async function fsyncDirAsync(dir: string): Promise<void> {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, 'r')
    await fsyncAsync(fd)
  } catch {
    // best effort, as above
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Identity of a file on disk, or undefined when it does not exist. */
export function statIdentity(file: string): WrittenFileStat | undefined {
  try {
    const st = fs.statSync(file, { bigint: true })
    return { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

export const sameIdentity = (a: WrittenFileStat | undefined, b: WrittenFileStat | undefined): boolean =>
  a === b || (!!a && !!b && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs)
