// Hard links into fenced folders. A hard link is a second name for the same file, so a workspace path can be
// the gateway token, loopdesk.json or an SSH key while every path check (realpath, the fences) sees only the
// workspace. Refusing every file with more than one link would break ordinary trees — pnpm's store and
// `git clone --local` hard-link thousands of files — so a regular file with st_nlink > 1 is compared (device +
// inode) with the files of the folders it must not reach: Loopdesk's state dir (the workspace inside it
// excepted), the desktop app's userData, a config file kept elsewhere, and the user's ~/.ssh and ~/.gnupg.
// Writes need no such check: write and edit replace the name by rename (atomic-write.ts), so they never
// write through a link into the other file; edit reads first, and that read is checked here.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { PrivateDir } from './paths'

export class LinkedSecretError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LinkedSecretError'
  }
}

/** Walk bounds per folder: a Chromium profile (userData) or years of transcripts can hold many files. */
const MAX_ENTRIES = 20_000
const MAX_DEPTH = 6
/** The inventory is rebuilt at most this often (only when a multiply-linked file is opened at all). */
const TTL_MS = 2_000

interface Inventory {
  at: number
  /** `${dev}:${ino}` of every multiply-linked regular file in the fenced folders → what it is */
  inodes: Map<string, string>
}

let cache: { key: string; inv: Inventory } | undefined

/** The folders whose files a workspace hard link may not reach, with a name for the refusal. */
function fencedRoots(dirs: readonly PrivateDir[]): Array<{ dir: string; what: string }> {
  const roots = dirs.map((d) => ({
    dir: d.dir,
    what: d.what === 'state' ? "Loopdesk's state folder" : d.what === 'userData' ? "the desktop app's data folder" : "Loopdesk's config file",
  }))
  const home = os.homedir()
  roots.push({ dir: path.join(home, '.ssh'), what: 'your SSH folder (~/.ssh)' }, { dir: path.join(home, '.gnupg'), what: 'your GnuPG folder (~/.gnupg)' })
  return roots
}

/**
 * The multiply-linked regular files under `dir`, breadth-first (the keys and tokens sit near the top, so a folder
 * with many transcripts or a big browser profile uses up its budget below them, not before them).
 */
function collect(dir: string, what: string, skip: string, inodes: Map<string, string>): void {
  const queue: Array<{ p: string; depth: number }> = [{ p: dir, depth: 0 }]
  for (let i = 0; i < queue.length && i < MAX_ENTRIES; i++) {
    const { p, depth } = queue[i]
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(p, { throwIfNoEntry: false })
    } catch {
      continue
    }
    if (!st) continue
    if (st.isFile()) {
      if (st.nlink > 1) inodes.set(`${st.dev}:${st.ino}`, what)
      continue
    }
    // symlinks are not followed: their targets are fenced by real path already
    if (!st.isDirectory() || depth >= MAX_DEPTH) continue
    try {
      if (fs.realpathSync.native(p) === skip) continue // the workspace inside the state dir is the agent's own
      for (const name of fs.readdirSync(p)) if (queue.length < MAX_ENTRIES) queue.push({ p: path.join(p, name), depth: depth + 1 })
    } catch {
      continue
    }
  }
}

function inventory(root: string, dirs: readonly PrivateDir[]): Inventory {
  const key = JSON.stringify([root, dirs])
  const now = Date.now()
  if (cache && cache.key === key && now - cache.inv.at < TTL_MS) return cache.inv
  const inodes = new Map<string, string>()
  for (const r of fencedRoots(dirs)) collect(r.dir, r.what, root, inodes)
  const inv = { at: now, inodes }
  cache = { key, inv }
  return inv
}

/**
 * Throws LinkedSecretError when `st` (an opened workspace file's fstat) is a hard link to a file of a fenced
 * folder. Files with one link — nearly all — cost nothing.
 */
export function refuseLinkedSecret(st: fs.Stats, shown: string, root: string, dirs: readonly PrivateDir[] | undefined): void {
  if (!st.isFile() || st.nlink <= 1) return
  const what = inventory(root, dirs ?? []).inodes.get(`${st.dev}:${st.ino}`)
  if (what) {
    throw new LinkedSecretError(
      `Access denied: "${shown}" is a hard link to a file in ${what}, which file tools never read. ` +
        'Remove the link, or copy what the agent may see into an ordinary file.',
    )
  }
}
