// Opening a state file without parking a thread on what is planted under its name.
// fs.promises.open of a FIFO waits in open() for a writer that never comes: each sessions.list (a derived title),
// each media pass and each search holding one of libuv's 4 threads for good, until every file operation of the
// gateway stalled; a sync open of one freezes the whole process. Opened non-blocking (a FIFO opens at once, or
// fails with ENXIO when opened for writing with no reader; regular files ignore the flag) and refused unless
// fstat says it is a regular file. The sync counterpart for small files is `read-small-file.ts`.
import fs from 'node:fs'

/** O_NONBLOCK where the OS has it (none on Windows, which has no FIFO a path could name): the one every open here uses */
export const NONBLOCK = fs.constants.O_NONBLOCK ?? 0

/** "not a regular file" (a FIFO, a device, a folder), as `read-small-file.ts` names it */
const notRegular = (file: string) => Object.assign(new Error(`${file}: not a regular file`), { code: 'EFTYPE' })

/** A handle on `file` when it is a regular file; throws (ENOENT as usual, EFTYPE "not a regular file") otherwise. */
export async function openRegularFile(file: string): Promise<fs.promises.FileHandle> {
  const fh = await fs.promises.open(file, fs.constants.O_RDONLY | NONBLOCK)
  try {
    if ((await fh.stat()).isFile()) return fh
  } catch (err) {
    await fh.close().catch(() => {})
    throw err
  }
  await fh.close().catch(() => {})
  throw notRegular(file)
}

/** The text of `file`, a regular file (see `openRegularFile`). */
export async function readRegularFileText(file: string): Promise<string> {
  const fh = await openRegularFile(file)
  try {
    return await fh.readFile('utf8')
  } finally {
    await fh.close().catch(() => {})
  }
}

const APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NONBLOCK

/**
 * A descriptor appending to `file` (made with `mode` when missing) when it is a regular file; throws otherwise.
 * Plain descriptors and callbacks: the event log's appends measured cheaper so than through FileHandle.
 */
export function openRegularFileForAppend(file: string, mode: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.open(file, APPEND, mode, (err, fd) => {
      if (err) return reject(err)
      fs.fstat(fd, (serr, st) => {
        if (!serr && st.isFile()) return resolve(fd)
        fs.close(fd, () => reject(serr ?? notRegular(file)))
      })
    })
  })
}

/** The synchronous `openRegularFileForAppend` (an exit hook, where the event loop is gone). */
export function openRegularFileForAppendSync(file: string, mode: number): number {
  return openRegularFileSync(file, APPEND, mode)
}

/** The synchronous `openRegularFile`, as a descriptor; `flags` (default read-only) get O_NONBLOCK added. */
export function openRegularFileSync(file: string, flags: number = fs.constants.O_RDONLY, mode?: number): number {
  const fd = fs.openSync(file, flags | NONBLOCK, mode)
  let regular = false
  try {
    regular = fs.fstatSync(fd).isFile()
  } finally {
    if (!regular) fs.closeSync(fd)
  }
  if (!regular) throw notRegular(file)
  return fd
}

/** The text of `file`, a regular file, read synchronously (no size bound: `read-small-file.ts` has one). */
export function readRegularFileTextSync(file: string): string {
  const fd = openRegularFileSync(file)
  try {
    return fs.readFileSync(fd, 'utf8')
  } finally {
    fs.closeSync(fd)
  }
}
