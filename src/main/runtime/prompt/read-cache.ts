// Workspace files read on every run (bootstrap files, SKILL.md): a stat decides whether the cached text is
// still current, so an unchanged workspace costs a few stats per run instead of reads. Synchronous on
// purpose: these are small local files, and one stat is cheaper than a thread-pool round trip.
// Names that have no entry at all in the workspace (most bootstrap files, the skills folder) cost nothing:
// see knownAbsent.
import fs from 'node:fs'
import path from 'node:path'
import { isInside } from '../tools/paths'

interface Cached {
  mtimeMs: number
  size: number
  ino: number
  text: string
}

const MAX_ENTRIES = 512
/** files larger than this are read but not cached */
const MAX_CACHED_BYTES = 1024 * 1024
const cache = new Map<string, Cached>()

/**
 * Whether `file` really lies inside `root` (both resolved through symlinks): a bootstrap file or SKILL.md
 * that is a link out of the workspace — `AGENTS.md -> ~/.aws/credentials` in a repository opened as the
 * workspace — would put a file into the prompt that the read tool refuses to show the model.
 */
function realInside(root: string, file: string): boolean {
  try {
    return isInside(fs.realpathSync.native(root), fs.realpathSync.native(file))
  } catch {
    return false
  }
}

/**
 * The file's text, or undefined when it does not exist / is not a regular file / cannot be read — or, with
 * `within`, when its real path is outside that directory (a symlink leading out).
 */
export function readTextFile(file: string, within?: string, onOutside?: (file: string) => void): string | undefined {
  let st: fs.Stats | undefined
  try {
    // most bootstrap files are usually missing: no ENOENT exception (with its stack trace) per file per run
    st = fs.statSync(file, { throwIfNoEntry: false })
  } catch {
    st = undefined
  }
  if (!st) {
    cache.delete(file)
    return undefined
  }
  if (!st.isFile()) return undefined
  if (within !== undefined && !realInside(within, file)) {
    onOutside?.(file)
    return undefined
  }
  const hit = cache.get(file)
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size && hit.ino === st.ino) return hit.text
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  if (st.size <= MAX_CACHED_BYTES) {
    cache.delete(file)
    cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino, text })
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
  }
  return text
}

/**
 * Names known to have no directory entry in a directory, valid while the directory keeps its inode and
 * mtime: creating, renaming in or linking an entry changes the directory's mtime. A verdict is only kept
 * once the directory's mtime is older than SETTLED_MS — a file created in the same clock tick as the last
 * change would leave the mtime as it was. Names whose entry exists but is not a readable file (a dangling
 * symlink, a folder) are never remembered: their target can appear without the directory changing.
 */
const absent = new Map<string, { ino: number; mtimeMs: number; names: Set<string> }>()
const SETTLED_MS = 2000
const MAX_DIRS = 256

/** `name` had no entry in `dir` and `dir` (stat taken before looking) has not changed since. */
export function knownAbsent(dir: string, dirStat: fs.Stats, name: string): boolean {
  const a = absent.get(dir)
  return a !== undefined && a.ino === dirStat.ino && a.mtimeMs === dirStat.mtimeMs && a.names.has(name)
}

/** Remembers that `name` has no entry in `dir` when that is certain and will stay detectable. */
export function noteIfAbsent(dir: string, dirStat: fs.Stats, name: string): void {
  if (dirStat.mtimeMs > Date.now() - SETTLED_MS) return
  let st: fs.Stats | undefined
  try {
    st = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false })
  } catch {
    return
  }
  if (st) return
  let a = absent.get(dir)
  if (!a || a.ino !== dirStat.ino || a.mtimeMs !== dirStat.mtimeMs) {
    if (!a && absent.size >= MAX_DIRS) absent.delete(absent.keys().next().value as string)
    absent.set(dir, (a = { ino: dirStat.ino, mtimeMs: dirStat.mtimeMs, names: new Set() }))
  }
  a.names.add(name)
}

/**
 * readTextFile of `<dir>/<name>`, where `dirStat` is a stat of `dir` taken before this call: a name known
 * to be absent is answered without a syscall.
 */
export function readTextFileIn(
  dir: string,
  dirStat: fs.Stats | undefined,
  name: string,
  within?: string,
  onOutside?: (file: string) => void,
): string | undefined {
  if (dirStat && knownAbsent(dir, dirStat, name)) return undefined
  const text = readTextFile(path.join(dir, name), within, onOutside)
  if (text === undefined && dirStat) noteIfAbsent(dir, dirStat, name)
  return text
}
