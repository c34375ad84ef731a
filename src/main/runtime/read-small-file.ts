// Reading a small state file (the gateway token, gateway.json, identities, stored tokens, the config) without
// hanging on what is planted under its name. A plain readFileSync of a FIFO waits in open() for a writer that
// never comes — `gateway run`, the CLI and the app's start hung for good — and of a symlink to /dev/zero reads
// until memory runs out. So: opened non-blocking (a FIFO opens at once), checked by fstat to be a regular file of
// at most `maxBytes`, read no further than that. Callers treat these refusals like any unreadable file.
import fs from 'node:fs'
import { NONBLOCK } from './open-regular-file'

export interface ReadSmallOptions {
  /** refuse a symlink at the final name (files only ever written by rename, like runtime records) */
  noFollow?: boolean
}

/** loopdesk.json's limit: far above any hand-written config, far below what a runaway file could be. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024

/** Error codes of the refusals: EFTYPE (not a regular file: a FIFO, a device, a folder), EFBIG (too large). */
export class SmallFileError extends Error {
  constructor(
    /** what is wrong, without the path: "not a regular file", "too large (…)" */
    message: string,
    readonly code: 'EFTYPE' | 'EFBIG',
    readonly path: string,
  ) {
    super(message)
    this.name = 'SmallFileError'
  }
}

/** An errno code or, for a refused file, what is wrong with it — for "cannot read FILE (…)" messages. */
export function readFailure(err: unknown): string {
  if (err instanceof SmallFileError) return err.message
  const e = err as NodeJS.ErrnoException
  if (e?.code === 'EFTYPE') return 'not a regular file' // open-regular-file.ts's refusal
  return e?.code ?? (err instanceof Error ? err.message : String(err))
}

// no O_NOFOLLOW on Windows either
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0

/** The text of `file`, a regular file of at most `maxBytes`; throws (ENOENT as usual, SmallFileError) otherwise. */
export function readSmallRegularFile(file: string, maxBytes: number, opts: ReadSmallOptions = {}): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | NONBLOCK | (opts.noFollow ? NOFOLLOW : 0))
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) throw new SmallFileError('not a regular file', 'EFTYPE', file)
    if (st.size > maxBytes) throw new SmallFileError(`too large (${st.size} bytes; at most ${maxBytes})`, 'EFBIG', file)
    // room for what fstat said and a little more: a file that grows meanwhile is caught, not read on and on
    const buf = Buffer.alloc(Math.min(maxBytes, st.size + 4096) + 1)
    let n = 0
    for (;;) {
      const got = fs.readSync(fd, buf, n, buf.length - n, null)
      if (got === 0) break
      n += got
      if (n === buf.length) {
        throw new SmallFileError(n > maxBytes ? `too large (more than ${maxBytes} bytes)` : 'kept growing while it was read', 'EFBIG', file)
      }
    }
    return buf.toString('utf8', 0, n)
  } finally {
    fs.closeSync(fd)
  }
}
