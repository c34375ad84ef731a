// File-by-file copies of a Loopdesk state dir, shared by `loopdesk backup` (state dir → backup) and
// `loopdesk restore` (backup → a staging folder next to the state dir). Only regular files are copied,
// each with its mode (transcripts, keys and attachments are 0600); symlinks are never followed (a link could
// point anywhere on the machine); Loopdesk's own lock files and half-written temp files are not data — but
// inside the agent's workspace every file is the user's (a Cargo.lock or yarn.lock is part of a project).
// A running runtime's accepted-message journal (`accepted.<pid>-….jsonl`) is not copied either: it is that
// process's working file (its messages reach their transcripts as it runs them), and a copy named after a
// live pid would read as a runtime using the copy — a restore refused "Loopdesk is using …", the journal
// never recovered while that pid runs. A dead runtime's journal is data (what it acknowledged and never
// answered, which the next start puts into the sessions) and is copied.
import fs from 'node:fs'
import path from 'node:path'
import { journalOwnerAlive, journalOwnerPid } from '../main/runtime/runner/accepted-journal'

export interface TreeStats {
  files: number
  bytes: number
}

/** the names a copy never takes (outside the workspace): write locks and atomic writes' temp files */
export const isTransient = (name: string): boolean => name.endsWith('.lock') || name.endsWith('.tmp')

/** the state dir's folder the agent works in: copied as it is */
const WORKSPACE = 'workspace'

type Walk = (dir: string, rel: string, name: string, isDir: boolean, inWorkspace: boolean) => void

/** Visits what a copy takes under `root`, depth first, folders before their contents. */
function visit(root: string, skipTop: (name: string) => boolean, fn: Walk): void {
  const walk = (dir: string, rel: string, inWorkspace: boolean) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if ((!rel && skipTop(e.name)) || (!inWorkspace && isTransient(e.name))) continue
      const r = rel ? `${rel}/${e.name}` : e.name
      const within = inWorkspace || (!rel && e.name === WORKSPACE)
      fn(dir, r, e.name, e.isDirectory(), within)
      if (e.isDirectory()) walk(path.join(dir, e.name), r, within)
    }
  }
  walk(root, '', false)
}

/**
 * Copies the regular files under `from` into `to` (which must exist; new folders are 0700). `skipTop` leaves
 * out top-level names. A file removed while the copy runs (a pruned attachment) is skipped, and so is a running
 * runtime's journal (see the file comment).
 */
export function copyTree(from: string, to: string, skipTop: (name: string) => boolean = () => false): TreeStats {
  const stats: TreeStats = { files: 0, bytes: 0 }
  visit(from, skipTop, (dir, rel, name, isDir, inWorkspace) => {
    const a = path.join(dir, name)
    const b = path.join(to, rel)
    if (isDir) return void fs.mkdirSync(b, { mode: 0o700 })
    if (!fs.lstatSync(a, { throwIfNoEntry: false })?.isFile()) return // a link, a socket, or gone meanwhile
    if (!inWorkspace && journalOwnerPid(name) !== undefined && journalOwnerAlive(a)) return // see the file comment
    try {
      fs.copyFileSync(a, b, fs.constants.COPYFILE_EXCL)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
      throw err
    }
    fs.chmodSync(b, fs.statSync(a).mode & 0o777)
    stats.files++
    stats.bytes += fs.statSync(b).size
  })
  return stats
}

/** What a copy of `root` would take: its regular files (relative paths) and size, and any entry that is neither a file nor a folder. */
export function listTree(root: string, skipTop: (name: string) => boolean = () => false): TreeStats & { paths: string[]; odd: string[] } {
  const out = { files: 0, bytes: 0, paths: [] as string[], odd: [] as string[] }
  visit(root, skipTop, (dir, rel, name, isDir) => {
    if (isDir) return
    const st = fs.lstatSync(path.join(dir, name))
    if (!st.isFile()) return void out.odd.push(rel)
    out.files++
    out.bytes += st.size
    out.paths.push(rel)
  })
  return out
}

/** Where a path really is, symlinks followed: for one that does not exist yet, its nearest existing parent's real place + the rest. */
export function realPlace(p: string): string {
  const rest: string[] = []
  let cur = path.resolve(p)
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(cur), ...rest)
    } catch {
      const parent = path.dirname(cur)
      if (parent === cur) return path.resolve(p)
      rest.unshift(path.basename(cur))
      cur = parent
    }
  }
}
