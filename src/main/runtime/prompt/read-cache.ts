// Workspace files read on every run (bootstrap files, SKILL.md): a stat decides whether the cached text is
// still current, so an unchanged workspace costs a few stats per run instead of reads. Synchronous on
// purpose: these are small local files, and one stat is cheaper than a thread-pool round trip.
import fs from 'node:fs'

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

/** The file's text, or undefined when it does not exist / is not a regular file / cannot be read. */
export function readTextFile(file: string): string | undefined {
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
