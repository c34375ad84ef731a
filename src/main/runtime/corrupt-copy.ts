// A damaged state file that is about to be replaced is kept beside itself first, so what it held can still be
// recovered by hand (sessions.json, the gateway's devices.json, credentials.json, the app's electron-store files).
// One naming for all: `<file>.corrupt-<ISO time>`, and `-2`, `-3`… when that name is taken — two damaged files in
// one millisecond (a store damaged again right after its copy) once shared a name, the second copy overwriting
// the first.
import fs from 'node:fs'

/** how many taken names are stepped over before giving up (a folder full of them is not searched on and on) */
const MAX_TRIES = 1000

const stamp = (now: Date) => now.toISOString().replace(/[:.]/g, '-')

/** The `i`th name (from 1) for a damaged copy of `file` made at `now`. */
export function corruptCopyName(file: string, now: Date, i = 1): string {
  return `${file}.corrupt-${stamp(now)}${i > 1 ? `-${i}` : ''}`
}

/** Runs `put(name)` (which must fail with EEXIST on a taken name, never replace it) on free names until one takes. */
function onFreeName(file: string, put: (name: string) => void): string {
  const now = new Date()
  for (let i = 1; ; i++) {
    const name = corruptCopyName(file, now, i)
    try {
      put(name)
      return name
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i >= MAX_TRIES) throw err
    }
  }
}

/**
 * Copies `file` to a free `.corrupt-` name (see the file comment), with `mode` when given (a copy of secrets is
 * as private as they are): that path, and the error when the copy could not be made.
 */
export function keepCorruptCopy(file: string, opts: { mode?: number } = {}): { copy: string; error?: unknown } {
  let copy = corruptCopyName(file, new Date())
  try {
    onFreeName(file, (name) => fs.copyFileSync(file, (copy = name), fs.constants.COPYFILE_EXCL))
    if (opts.mode !== undefined) fs.chmodSync(copy, opts.mode)
    return { copy }
  } catch (error) {
    return { copy, error }
  }
}

/** a file system without hard links (FAT, some network shares) */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

/**
 * Moves `file` aside to a free `.corrupt-` name: a hard link, then the old name removed (a rename would replace
 * a copy already there); where there are no hard links, a rename to a name checked free. Returns that path;
 * throws when it could not be moved.
 */
export function moveCorruptAside(file: string): string {
  let renamed = false
  const aside = onFreeName(file, (name) => {
    try {
      fs.linkSync(file, name)
    } catch (err) {
      if (!NO_LINKS.has((err as NodeJS.ErrnoException).code ?? '')) throw err
      if (fs.existsSync(name)) throw Object.assign(new Error(`${name} exists`), { code: 'EEXIST' })
      fs.renameSync(file, name)
      renamed = true
    }
  })
  if (!renamed) fs.unlinkSync(file)
  return aside
}
