// Hard links into fenced folders. A hard link is a second name for the same file, so a workspace path can be
// the gateway token, loopdesk.json or an SSH key while every path check (realpath, the fences) sees only the
// workspace. Refusing every file with more than one link would break ordinary trees — pnpm's store and
// `git clone --local` hard-link thousands of files — so a regular file with st_nlink > 1 is compared (device +
// inode) with the files of the folders it must not reach: Loopdesk's state dir (the workspace inside it
// excepted), the desktop app's userData, a config file kept elsewhere, and the user's ~/.ssh and ~/.gnupg.
// Writes need no such check: write and edit replace the name by rename (atomic-write.ts), so they never
// write through a link into the other file; edit reads first, and that read is checked here.
//
// The walk runs on the thread pool (opendir + lstat), never synchronously: tens of thousands of lstat calls
// took 200-300 ms of the runtime's event loop per rebuild. A check waits for a walk in progress (it never
// passes unchecked), and concurrent checks of one fence set share one walk.
import type { Dirent, Stats } from 'node:fs'
import fs, { promises as fsp } from 'node:fs'
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
/** Inventories kept, one per fence set (workspace + private folders): agents with different workspaces alternate. */
const MAX_CACHED = 8
/** lstat calls in flight per walk: enough to keep the pool busy, few enough that other file work gets a turn. */
const PARALLEL = 16

interface Inventory {
  at: number
  /** `${dev}:${ino}` of every multiply-linked regular file in the fenced folders → what it is */
  inodes: Map<string, string>
}

/** Finished inventories by fence set, least recently used first (a Map keeps insertion order). */
const cache = new Map<string, Inventory>()
/** Walks in progress by fence set: a check arriving meanwhile waits for the same walk. */
const walking = new Map<string, Promise<Inventory>>()
/** How many walks were started (tests count rebuilds). */
let walks = 0
export function linkWalkCount(): number {
  return walks
}

/** The folders whose files a workspace hard link may not reach, with a name for the refusal. */
function fencedRoots(dirs: readonly PrivateDir[], home: string): Array<{ dir: string; what: string }> {
  const roots = dirs.map((d) => ({
    dir: d.dir,
    what: d.what === 'state' ? "Loopdesk's state folder" : d.what === 'userData' ? "the desktop app's data folder" : "Loopdesk's config file",
  }))
  roots.push({ dir: path.join(home, '.ssh'), what: 'your SSH folder (~/.ssh)' }, { dir: path.join(home, '.gnupg'), what: 'your GnuPG folder (~/.gnupg)' })
  return roots
}

function record(st: Stats, what: string, inodes: Map<string, string>): void {
  if (st.isFile() && st.nlink > 1 && !inodes.has(`${st.dev}:${st.ino}`)) inodes.set(`${st.dev}:${st.ino}`, what)
}

/**
 * The multiply-linked regular files under `dir`, breadth-first (the keys and tokens sit near the top, so a folder
 * with many transcripts or a big browser profile uses up its budget below them, not before them). The root is
 * taken by its real path (a state dir that is a symlink is walked where it points); below it symlinks are not
 * followed — their targets are fenced by real path already — so every path under it is real too.
 */
async function collect(dir: string, what: string, skip: string, inodes: Map<string, string>): Promise<void> {
  let real: string
  let st: Stats
  try {
    real = await fsp.realpath(dir)
    st = await fsp.stat(real)
  } catch {
    return // not made (yet): nothing to link to
  }
  if (!st.isDirectory()) return record(st, what, inodes) // the outside config file, its .bak and .lock
  if (real === skip) return
  let budget = MAX_ENTRIES - 1
  let level = [real]
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0 && budget > 0; depth++) {
    const next: string[] = []
    for (const d of level) {
      if (budget <= 0) break
      const files: string[] = []
      try {
        // opendir reads in batches, so a huge folder is read only as far as the budget goes, a batch per turn
        const handle = await fsp.opendir(d, { bufferSize: 1024 })
        try {
          for await (const e of handle as AsyncIterable<Dirent>) {
            if (budget-- <= 0) break
            const p = path.join(d, e.name)
            if (e.isDirectory()) {
              if (p !== skip) next.push(p) // the workspace inside the state dir is the agent's own
            } else if (e.isFile()) files.push(p)
          }
        } finally {
          await handle.close().catch(() => {})
        }
      } catch {
        // unreadable or gone meanwhile: its files stay unknown, as they would to the agent
      }
      await lstatAll(files, (s) => record(s, what, inodes))
    }
    level = next
  }
}

/**
 * lstat of every file, PARALLEL at a time, through the callback API: one promise per file cost about three
 * times the CPU of the synchronous walk it replaced, a callback each about twice (pool threads included).
 */
function lstatAll(files: readonly string[], each: (st: Stats) => void): Promise<void> {
  return new Promise((resolve) => {
    let next = 0
    let running = 0
    const start = (): void => {
      while (running < PARALLEL && next < files.length) {
        running++
        fs.lstat(files[next++], (err, st) => {
          running--
          if (!err) each(st)
          if (next < files.length) start()
          else if (running === 0) resolve()
        })
      }
    }
    if (files.length === 0) resolve()
    else start()
  })
}

async function walk(root: string, dirs: readonly PrivateDir[], home: string): Promise<Inventory> {
  walks++
  const inodes = new Map<string, string>()
  // one root after another: the first named (state dir) keeps its name for a file found in two roots
  for (const r of fencedRoots(dirs, home)) await collect(r.dir, r.what, root, inodes)
  return { at: Date.now(), inodes }
}

async function inventory(root: string, dirs: readonly PrivateDir[]): Promise<Inventory> {
  const home = os.homedir()
  const key = JSON.stringify([root, home, dirs])
  const hit = cache.get(key)
  if (hit && Date.now() - hit.at < TTL_MS) {
    cache.delete(key)
    cache.set(key, hit) // most recently used last
    return hit
  }
  let pending = walking.get(key)
  if (!pending) {
    pending = walk(root, dirs, home).finally(() => walking.delete(key))
    walking.set(key, pending)
    void pending.then((inv) => {
      cache.delete(key)
      cache.set(key, inv)
      while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string)
    }, () => {})
  }
  return pending
}

/**
 * Rejects with LinkedSecretError when `st` (an opened workspace file's fstat) is a hard link to a file of a
 * fenced folder. Files with one link — nearly all — cost nothing; a multiply-linked one waits for the inventory.
 */
export async function refuseLinkedSecret(st: Stats, shown: string, root: string, dirs: readonly PrivateDir[] | undefined): Promise<void> {
  if (!st.isFile() || st.nlink <= 1) return
  const what = (await inventory(root, dirs ?? [])).inodes.get(`${st.dev}:${st.ino}`)
  if (what) {
    throw new LinkedSecretError(
      `Access denied: "${shown}" is a hard link to a file in ${what}, which file tools never read. ` +
        'Remove the link, or copy what the agent may see into an ordinary file.',
    )
  }
}
