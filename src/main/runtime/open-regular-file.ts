// Opening a state file for an async read without parking a thread-pool thread on what is planted under its name.
// fs.promises.open of a FIFO waits in open() for a writer that never comes: each sessions.list (a derived title),
// each media pass and each search holding one of libuv's 4 threads for good, until every file operation of the
// gateway stalled. Opened non-blocking (a FIFO opens at once; regular files ignore the flag) and refused unless
// fstat says it is a regular file. The sync counterpart for small files is `read-small-file.ts`.
import fs from 'node:fs'

const NONBLOCK = fs.constants.O_NONBLOCK ?? 0 // none on Windows, which has no FIFO a path could name

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
  throw Object.assign(new Error(`${file}: not a regular file`), { code: 'EFTYPE' })
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
