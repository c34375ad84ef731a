// Hard links into fenced folders. A hard link is a second name for the same file, so a workspace path can be
// the gateway token, loopdesk.json or an SSH key while every path check (realpath, the fences) sees only the
// workspace. Refusing every file with more than one link would break ordinary trees — pnpm's store and
// `git clone --local` hard-link thousands of files — so a regular file with st_nlink > 1 is compared (device +
// inode) with the files of the folders it must not reach: Loopdesk's state dir (the workspace inside it
// excepted), the desktop app's userData, a config file kept elsewhere, and the user's credential locations
// (credential-paths.ts: ~/.ssh, ~/.gnupg, ~/.aws, ~/.netrc, …).
// Writes need no such check: write and edit replace the name by rename (atomic-write.ts), so they never
// write through a link into the other file; edit reads first, and that read is checked here.
//
// One inventory per fenced folder, shared by every workspace (only a workspace inside the folder — the default
// `<stateDir>/workspace` — gets a walk of its own that leaves it out); a fenced single file is stat'ed at each
// check instead. The walk runs on the thread pool (opendir + lstat), never synchronously: tens of thousands of
// lstat calls took 200-300 ms of the runtime's event loop per rebuild. A check waits for a walk in progress (it
// never passes unchecked), and concurrent checks share one walk.
//
// Freshness: an inventory holds every regular file of the folder (device + inode), whatever its link count, so
// a link made after the walk to a file the walk saw is refused by it — no clock involved. A walk is trusted for
// 2 s; a file it did not see passes by it only if the walk started after that file's ctime: creating a file in,
// or renaming one into, a fenced folder sets the inode's ctime, so such a file linked just after a walk is judged
// by a new walk. The ctime comes from another clock than Date.now() (the kernel's coarse clock, which lags under
// load; a whole-second one on HFS+, ext3, FAT), so it gets a margin: 50 ms, or 2 s more for a whole-second ctime.
import type { Dirent, Stats } from 'node:fs'
import fs, { promises as fsp } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { credentialPaths } from './credential-paths'
import { isInside, type PrivateDir } from './paths'
export class LinkedSecretError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LinkedSecretError'
  }
}

/** Walk bounds per folder: a Chromium profile (userData) or years of transcripts can hold many files. */
const MAX_ENTRIES = 20_000
const MAX_DEPTH = 6
/** A folder's inventory is trusted this long (it is rebuilt only when a multiply-linked file is opened at all). */
const TTL_MS = 2_000
/**
 * A file's ctime is the kernel's coarse clock, which may lag the wall clock by a tick: a walk must have started
 * this long after it to have seen the file.
 */
const CTIME_SLACK_MS = 50
/** A ctime in whole seconds may come from a 1 s (HFS+, ext3) or 2 s (FAT) clock: the change may be this much later. */
const COARSE_CTIME_MS = 2_000
/** Folder inventories kept: the fenced folders of several agents' fence sets (a few each), least recently used out. */
const MAX_CACHED = 64
/** lstat calls in flight per walk: enough to keep the pool busy, few enough that other file work gets a turn. */
const PARALLEL = 16

interface Inventory {
  /** Date.now() before the walk read anything */
  startedAt: number
  /** the inode of every regular file the walk saw, by device (any link count: one linked later is the same inode) */
  inodes: Map<number, Set<number>>
}

function holds(inv: Inventory, st: Stats): boolean {
  return inv.inodes.get(st.dev)?.has(st.ino) === true
}

/** Finished inventories by folder walk (real path + the workspace left out), least recently used first. */
const cache = new Map<string, Inventory>()
/** Walks in progress by folder walk: a check arriving meanwhile waits for the same walk. */
const walking = new Map<string, { startedAt: number; done: Promise<Inventory> }>()
/** How many folder walks were started (tests count rebuilds). */
let walks = 0
export function linkWalkCount(): number {
  return walks
}

/** The folders and files a workspace hard link may not reach, with a name for the refusal. */
function fencedRoots(dirs: readonly PrivateDir[], home: string): Array<{ dir: string; what: string }> {
  const roots = dirs
    .filter((d) => d.what !== 'credentials')
    .map((d) => ({
      dir: d.dir,
      what: d.what === 'state' ? "Loopdesk's state folder" : d.what === 'userData' ? "the desktop app's data folder" : "Loopdesk's config file",
    }))
  // always the whole list (a caller passing only Loopdesk's folders still gets them), for this home folder
  for (const c of credentialPaths(home)) roots.push({ dir: c.dir, what: c.label })
  return roots
}

function record(st: Stats, inodes: Inventory['inodes']): void {
  if (!st.isFile()) return
  let set = inodes.get(st.dev)
  if (!set) inodes.set(st.dev, (set = new Set()))
  set.add(st.ino)
}

/**
 * The regular files under the real folder `real` (`skip`, a workspace inside it, left out),
 * breadth-first (the keys and tokens sit near the top, so a folder with many transcripts or a big browser profile
 * uses up its budget below them, not before them). Symlinks below it are not followed — their targets are fenced by
 * real path already — so every path under it is real too.
 */
async function collect(real: string, skip: string, inodes: Inventory['inodes']): Promise<void> {
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
      await lstatAll(files, (s) => record(s, inodes))
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

/**
 * Whether the file `st` is one of the folder `real`'s (the workspace `skip` left out). An inventory from a walk that
 * started at or after `fresh` answers yes when it holds the file; no only if the walk also started at or after
 * `seen` (when the file's current place in the folder was already made). Otherwise the walk in progress or a new
 * one answers (after a too-old one in progress ends, which may answer yes: one walk per folder at a time).
 */
async function folderHolds(real: string, skip: string, st: Stats, fresh: number, seen: number): Promise<boolean> {
  const key = `${real}\0${skip}`
  const need = Math.max(fresh, seen)
  for (;;) {
    const hit = cache.get(key)
    if (hit && hit.startedAt >= fresh) {
      cache.delete(key)
      cache.set(key, hit) // most recently used last
      if (holds(hit, st)) return true
      if (hit.startedAt >= seen) return false
    }
    const running = walking.get(key)
    if (running && running.startedAt >= need) return holds(await running.done, st)
    if (running) {
      await running.done.catch(() => {})
      continue
    }
    walks++
    const startedAt = Date.now()
    const inodes: Inventory['inodes'] = new Map()
    const done = collect(real, skip, inodes).then(() => ({ startedAt, inodes }))
    walking.set(key, { startedAt, done })
    void done
      .then((inv) => {
        cache.delete(key)
        cache.set(key, inv)
        while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string)
      }, () => {})
      .finally(() => {
        if (walking.get(key)?.done === done) walking.delete(key)
      })
    return holds(await done, st)
  }
}

/**
 * When a walk must have started to have seen the file `ctimeMs` belongs to where it is now: its ctime plus the
 * margin for the ctime's clock (never later than now — a walk starting now sees it).
 */
function seenAfter(ctimeMs: number, now: number): number {
  const margin = CTIME_SLACK_MS + (ctimeMs % 1000 === 0 ? COARSE_CTIME_MS : 0)
  return Math.min(ctimeMs + margin, now)
}

/**
 * What fenced place the file `st` is a hard link into, if any. Each fenced root is taken by its real path (a state
 * dir that is a symlink is walked where it points; below it symlinks are not followed — their targets are fenced by
 * real path already). A root that does not exist costs one failed realpath; a root that is a file is compared by a
 * fresh stat. Roots are asked in order, so the state dir's name wins for a file found in two.
 */
async function linkedInto(st: Stats, root: string, dirs: readonly PrivateDir[]): Promise<string | undefined> {
  const now = Date.now()
  // a walk older than the TTL speaks for no file; one that may have started before this file's ctime only for
  // the files it saw
  const fresh = now - TTL_MS
  const seen = seenAfter(st.ctimeMs, now)
  for (const r of fencedRoots(dirs, os.homedir())) {
    let real: string
    let rst: Stats
    try {
      real = fs.realpathSync.native(r.dir)
      rst = fs.statSync(real)
    } catch {
      continue // not made (yet): nothing to link to
    }
    if (!rst.isDirectory()) {
      if (rst.isFile() && rst.dev === st.dev && rst.ino === st.ino) return r.what // the outside config file, ~/.netrc, …
      continue
    }
    if (real === root) continue // the workspace is that folder: the user gave it to the agent
    const skip = isInside(real, root) ? root : ''
    if (await folderHolds(real, skip, st, fresh, seen)) return r.what
  }
  return undefined
}

/**
 * Rejects with LinkedSecretError when `st` (an opened workspace file's fstat) is a hard link to a file of a
 * fenced folder. Files with one link — nearly all — cost nothing; a multiply-linked one waits for the inventory.
 */
export async function refuseLinkedSecret(st: Stats, shown: string, root: string, dirs: readonly PrivateDir[] | undefined): Promise<void> {
  if (!st.isFile() || st.nlink <= 1) return
  const what = await linkedInto(st, root, dirs ?? [])
  if (what) {
    throw new LinkedSecretError(
      `Access denied: "${shown}" is a hard link to a file in ${what}, which file tools never read. ` +
        'Remove the link, or copy what the agent may see into an ordinary file.',
    )
  }
}
