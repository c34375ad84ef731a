// Workspace confinement. Every path a tool touches is resolved to its real location (symlinks followed)
// and refused unless it lies inside realpath(workspaceDir). Opening re-checks the opened descriptor, so a
// symlink swapped in after the check is still refused where the OS lets us see it (/proc/self/fd on Linux).
// Path resolution (realpath, stat, readlink) is synchronous on purpose: these are metadata lookups of a local
// workspace that take microseconds, while each thread-pool round trip waits for a pool thread (often
// 0.1-0.5 ms on a busy machine) — a tool call used to make four of them before even opening the file.
import fs, { constants as C, promises as fsp } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { NONBLOCK } from '../open-regular-file'
import { credentialPaths } from './credential-paths'
import { userGitConfigFiles } from './gitconfig-includes'
import { refuseLinkedSecret } from './linked-secrets'

export class WorkspaceEscapeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorkspaceEscapeError'
  }
}

export interface ResolvedPath {
  /** real absolute path (symlinks resolved; for missing files: real parent + remaining names) */
  abs: string
  /** path relative to the workspace root ('.' for the root) — what tools show the model */
  rel: string
  /** realpath(workspaceDir) */
  root: string
  exists: boolean
  /** Loopdesk's private folders the workspace holds (see privateFences): nothing under them is served */
  fences?: Fence[]
  /** the private folders the path was checked against: a hard link into them is refused at open (linked-secrets.ts) */
  privateDirs?: readonly PrivateDir[]
}

/**
 * A folder of Loopdesk's own: its state dir (config, keys, plugins, hooks, transcripts), or the desktop app's
 * Electron userData (window settings, the provider keys it stores encrypted with safeStorage, Chromium's
 * profile: cookies, local storage) — a folder no agent has reason to read or write.
 */
export interface PrivateDir {
  dir: string
  /**
   * `config`: the config file (and its .bak and .lock) when LOOPDESK_CONFIG_PATH puts it outside the state dir;
   * `credentials`: one of the user's credential folders or files (credential-paths.ts), named by `label`
   */
  what: 'state' | 'userData' | 'config' | 'credentials'
  label?: string
}

/** A private folder the workspace holds, by its real path. */
export interface Fence {
  real: string
  what: PrivateDir['what']
  label?: string
}

/** The private folders a tool context names (the desktop app's only in the desktop app). */
export function privateDirsOf(ctx: { stateDir?: string; userDataDir?: string; configPath?: string }): PrivateDir[] {
  const dirs: PrivateDir[] = []
  if (ctx.stateDir) dirs.push({ dir: ctx.stateDir, what: 'state' })
  if (ctx.userDataDir) dirs.push({ dir: ctx.userDataDir, what: 'userData' })
  // a config file kept in the state dir is fenced with it (and named as the state folder)
  if (ctx.configPath && !(ctx.stateDir && isInside(realOrPlanned(ctx.stateDir), realOrPlanned(ctx.configPath)))) {
    for (const f of [ctx.configPath, `${ctx.configPath}.bak`, `${ctx.configPath}.lock`]) dirs.push({ dir: f, what: 'config' })
  }
  for (const c of credentialPaths()) dirs.push({ dir: c.dir, what: 'credentials', label: c.label })
  return dirs
}

export interface ResolveOptions {
  /** the target may not exist yet (write); its nearest existing parent is checked instead */
  allowMissing?: boolean
  /** Loopdesk's private folders (privateDirsOf): refused even inside the workspace */
  privateDirs?: readonly PrivateDir[]
  /**
   * Real directories outside the workspace whose files may be read too (the `read` tool: the attachments folder,
   * whose saved paths the prompt names). The result's `root` is then that directory and `rel` the absolute path.
   */
  readRoots?: string[]
}

export function isInside(root: string, p: string): boolean {
  if (p === root) return true
  const base = root.endsWith(path.sep) ? root : root + path.sep
  return p.startsWith(base)
}

export async function workspaceRoot(workspaceDir: string): Promise<string> {
  try {
    const root = fs.realpathSync.native(workspaceDir)
    const st = fs.statSync(root)
    if (!st.isDirectory()) throw new Error(`workspace ${workspaceDir} is not a directory`)
    return root
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ENOENT') throw new Error(`workspace directory ${workspaceDir} does not exist`, { cause: err })
    throw err
  }
}

/**
 * The private folders a workspace holds — the workspace is the folder or one of its ancestors (say the user's
 * home with the default ~/.loopdesk and ~/.config/loopdesk) — by real path, innermost first. A workspace inside
 * one (the default `<stateDir>/workspace`) is no concern; one elsewhere cannot reach it anyway. Fenced off
 * because writing in the state dir is running code without an approval (loopdesk.json's exec allowlist applies
 * live; plugins/ and hooks/ load into the app), and reading either is reading the provider keys (the desktop
 * app's encrypted, so only as safe as the OS keychain), the gateway token and every other conversation.
 */
export function privateFences(root: string, dirs: readonly PrivateDir[] | undefined): Fence[] {
  const fences: Fence[] = []
  for (const { dir, what, label } of dirs ?? []) {
    const real = realOrPlanned(dir)
    if (real !== root && isInside(real, root)) continue
    if (isInside(root, real)) fences.push({ real, what, ...(label ? { label } : {}) })
  }
  return fences.sort((a, b) => b.real.length - a.real.length)
}

/** realpath of `dir`; for one not made yet, the real path it will have (its nearest existing ancestor's + the rest). */
export function realOrPlanned(dir: string): string {
  const tail: string[] = []
  let cur = path.resolve(dir)
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(cur), ...tail)
    } catch {
      const parent = path.dirname(cur)
      if (parent === cur) return path.resolve(dir)
      tail.unshift(path.basename(cur))
      cur = parent
    }
  }
}

/**
 * The fence holding `real`, if any (the innermost: fences are sorted so). Compared as a case-insensitive,
 * normalization-insensitive file system would, with Windows' trailing dots and spaces dropped: realpath gives an
 * existing name its on-disk spelling, but a name not made yet keeps the model's — on macOS or Windows a new
 * `.NPMRC` or `.SSH/authorized_keys` is the `.npmrc` npm reads, the `.ssh` sshd reads. On a case-sensitive file
 * system that refuses a few names that only look like a fenced one, nothing else.
 */
export function fenceOf(fences: readonly Fence[] | undefined, real: string): Fence | undefined {
  if (!fences?.length) return undefined
  const key = fenceKey(real)
  return fences.find((f) => isInside(fenceKey(f.real), key))
}

/**
 * What a directory walk (grep, glob) passes over: the entries `fenceOf` refuses. Most names are ruled out by their
 * own name alone (a Set lookup), so a walk of a big workspace holding fences costs no full-path comparison per entry.
 */
export function fenceSkipper(fences: readonly Fence[] | undefined): ((abs: string, name: string) => boolean) | undefined {
  if (!fences?.length) return undefined
  const names = new Set(fences.map((f) => fenceKey(path.basename(f.real))))
  return (abs, name) => names.has(fenceKey(name)) && fenceOf(fences, abs) !== undefined
}

/** A path as a case-insensitive, normalization-insensitive file system (and NTFS) compares it: fsName per component. */
export function fenceKey(p: string): string {
  return p.normalize('NFC').split(path.sep).map(fsName).join(path.sep)
}

/**
 * One path component as Windows and case-insensitive file systems match it: no case, no trailing dots or spaces,
 * and no NTFS stream suffix — `.npmrc::$DATA` is .npmrc's own content and `.ssh::$INDEX_ALLOCATION` the .ssh
 * folder itself, so a name not made yet would otherwise pass as another file. (A drive's `c:` becomes `c` on both
 * sides of a comparison.)
 */
function fsName(c: string): string {
  return (c.replace(/:.*$/s, '') || c).replace(/[. ]+$/, '').toLowerCase() || c.toLowerCase()
}

/** What a fenced folder is, for the refusal the model reads. */
const FENCE_NAMES: Record<Fence['what'], (real: string, label?: string) => string> = {
  state: (real) => `in Loopdesk's own state folder (${real}: its settings, keys, plugins and conversations)`,
  userData: (real) => `in the Loopdesk desktop app's data folder (${real}: its window settings and stored provider keys)`,
  config: (real) => `Loopdesk's own config file (${real}: its exec allowlist applies at once; it may hold keys)`,
  credentials: (real, label) => `in ${label ?? 'a credentials folder'}, at ${real} (logins and keys; an exec command the user approves can still use them)`,
}

function fenced(input: string, root: string, fence: Fence): WorkspaceEscapeError {
  return new WorkspaceEscapeError(
    `Access denied: "${input}" is ${FENCE_NAMES[fence.what](fence.real, fence.label)}, ` +
      `which file tools never touch, even though the workspace (${root}) contains it. Work in other folders, or give the agent a ` +
      'workspace of its own (agents.defaults.workspace).',
  )
}

/** Throws when `real` lies in a fenced-off private folder of `rp` (a path reached after the first check). */
export function checkFence(rp: Pick<ResolvedPath, 'root' | 'fences'>, real: string, shown: string): void {
  const f = fenceOf(rp.fences, real)
  if (f) throw fenced(shown, rp.root, f)
}

/** Version-control folders whose files name commands the tool runs: git's, and Mercurial's (`[hooks]` in .hg/hgrc). */
const VCS_DIRS = new Set(['.git', '.hg'])

/**
 * Refuses a write or edit inside a `.git` folder (or of a `.git` file, a worktree's pointer to its repository),
 * or a Mercurial `.hg` folder.
 * git runs what its own files name — core.fsmonitor, core.pager, diff.external, hooks — so an edited
 * `.git/config` would make an allow-listed `git status` run any command without an approval. Reading stays
 * allowed; git's own changes go through git commands (exec). Compared without case, trailing dots or spaces and
 * NTFS stream suffixes, as case-insensitive file systems and Windows match names (fsName).
 */
export function refuseGitInternals(rp: Pick<ResolvedPath, 'rel' | 'abs'>, shown: string): void {
  refuseGitGlobalConfig(rp, shown)
  const parts = rp.rel.split(/[\\/]/)
  const vcs = parts.map(fsName).find((p) => VCS_DIRS.has(p))
  if (vcs) {
    throw new WorkspaceEscapeError(
      `Access denied: "${shown}" is the repository's own data (${vcs}): changing its config or hooks could make a ${vcs === '.git' ? 'git' : 'hg'} ` +
        'command run anything without an approval, so write and edit do not touch it. Use its commands (exec) for repository changes.',
    )
  }
}

/**
 * git's user-wide config files (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, `$GIT_CONFIG_GLOBAL`: gitconfig-includes.ts),
 * by real path: a dotfiles folder they link into counts. They name commands as `.git/config` does (core.fsmonitor, core.pager), for every repository, so a
 * workspace that holds one (the home folder, a dotfiles repo) may read it but not write it.
 */
function refuseGitGlobalConfig(rp: Pick<ResolvedPath, 'abs'>, shown: string): void {
  const target = fenceKey(rp.abs)
  for (const f of userGitConfigFiles()) {
    if (fenceKey(realOrPlanned(f)) !== target) continue
    throw new WorkspaceEscapeError(
      `Access denied: "${shown}" is git's user-wide config (${f}): it names commands every git command runs (core.fsmonitor, ` +
        "core.pager), so write and edit do not touch it. Change it with git config through exec, which the user approves.",
    )
  }
}

function relOf(root: string, abs: string): string {
  const r = path.relative(root, abs)
  return r === '' ? '.' : r
}

function outside(input: string, root: string, real: string, viaLink: boolean): WorkspaceEscapeError {
  const why = viaLink ? ` (it resolves through a symlink to ${real})` : ''
  return new WorkspaceEscapeError(
    `Access denied: "${input}" is outside the workspace${why}. Only paths inside the workspace (${root}) are allowed; use a path relative to it.`,
  )
}

/**
 * Resolves a tool path argument inside the workspace (and outside the private folders it holds: privateFences).
 * `allowMissing`: the target may not exist yet (write); its nearest existing parent is checked instead.
 */
export async function resolveInWorkspace(workspaceDir: string, input: string | undefined, opts: ResolveOptions = {}): Promise<ResolvedPath> {
  const root = await workspaceRoot(workspaceDir)
  const raw = input === undefined || input.trim() === '' ? '.' : input
  if (raw.includes('\0')) throw new Error('Invalid path: contains a NUL byte')
  // On Windows a UNC or device path (\\server\share, \\?\, \\.\COM1) is refused before any file system call: the
  // realpath below would already connect to the server (and hand it the user's NTLM credentials) or open the device.
  if (process.platform === 'win32' && /^[\\/]{2}/.test(raw)) {
    throw new WorkspaceEscapeError(`Access denied: "${raw}" is a network or device path; only paths inside the workspace are allowed`)
  }
  if (raw === '~' || raw.startsWith('~/')) {
    throw new Error(`Invalid path "${raw}": "~" is not expanded; use a path relative to the workspace`)
  }
  const lexical = path.resolve(root, raw)

  let real: string
  let exists = true
  try {
    real = fs.realpathSync.native(lexical)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ELOOP') throw new Error(`Invalid path "${raw}": too many levels of symbolic links`, { cause: err })
    if (e.code === 'ENOTDIR') throw new Error(`Invalid path "${raw}": a parent component is not a directory`, { cause: err })
    if (e.code !== 'ENOENT') throw err
    exists = false
    real = await resolveMissing(raw, root, lexical)
  }
  const viaLink = real !== lexical
  const fences = privateFences(root, opts.privateDirs)
  const fence = fenceOf(fences, real)
  if (!isInside(root, real) || fence) {
    const extra = exists ? readRootOf(real, opts.readRoots) : undefined
    if (extra) return { abs: real, rel: real, root: extra, exists, ...(opts.privateDirs ? { privateDirs: opts.privateDirs } : {}) }
    if (!isInside(root, real)) throw outside(raw, root, real, viaLink)
    throw fenced(raw, root, fence!)
  }
  if (!exists && !opts.allowMissing) {
    throw new Error(`File not found: "${raw}" (looked for ${relOf(root, real)} in the workspace)`)
  }
  return {
    abs: real,
    rel: relOf(root, real),
    root,
    exists,
    ...(fences.length ? { fences } : {}),
    ...(opts.privateDirs ? { privateDirs: opts.privateDirs } : {}),
  }
}

/** The real directory of `readRoots` that holds `real` (strictly inside it), if any. */
function readRootOf(real: string, readRoots: string[] | undefined): string | undefined {
  for (const dir of readRoots ?? []) {
    let r: string
    try {
      r = fs.realpathSync.native(dir)
    } catch {
      continue
    }
    if (real !== r && isInside(r, real)) return r
  }
  return undefined
}

/** Real path for a target that does not exist: realpath of the nearest existing ancestor + the rest. */
async function resolveMissing(raw: string, root: string, lexical: string): Promise<string> {
  const tail: string[] = []
  let cur = lexical
  for (;;) {
    const parent = path.dirname(cur)
    tail.unshift(path.basename(cur))
    if (parent === cur) return lexical
    cur = parent
    let realParent: string
    try {
      realParent = fs.realpathSync.native(cur)
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      if (e.code === 'ENOENT') continue
      if (e.code === 'ENOTDIR') throw new Error(`Invalid path "${raw}": a parent component is not a directory`, { cause: err })
      throw err
    }
    // The first missing name may still exist as a dangling symlink (realpath fails with ENOENT on those).
    const first = path.join(realParent, tail[0])
    let lst: fs.Stats | undefined
    try {
      lst = fs.lstatSync(first, { throwIfNoEntry: false })
    } catch {
      lst = undefined
    }
    if (lst?.isSymbolicLink()) {
      const target = path.resolve(realParent, fs.readlinkSync(first))
      if (!isInside(root, target)) throw outside(raw, root, target, true)
      throw new Error(`Invalid path "${raw}": ${relOf(root, first)} is a dangling symlink (to ${target})`)
    }
    return path.join(realParent, ...tail)
  }
}

const HAS_PROC_FD = process.platform === 'linux'

/** Where an open descriptor really points (Linux /proc), or undefined when the OS does not tell us. */
async function fdPath(fh: FileHandle): Promise<string | undefined> {
  if (!HAS_PROC_FD) return undefined
  try {
    return fs.readlinkSync(`/proc/self/fd/${fh.fd}`)
  } catch {
    return undefined
  }
}

/**
 * Verifies an open handle still lies inside the workspace (closes it and throws otherwise).
 * Catches a parent directory swapped for a symlink between the check and the open.
 */
export async function verifyHandle(fh: FileHandle, rp: ResolvedPath): Promise<void> {
  let where = await fdPath(fh)
  if (where === undefined) {
    // No /proc: re-resolve the path and make sure it is the same inode we opened.
    const [a, real] = await Promise.all([fh.stat(), fsp.realpath(rp.abs).catch(() => '')])
    const b = real ? await fsp.stat(real).catch(() => undefined) : undefined
    if (!b || a.ino !== b.ino || a.dev !== b.dev) where = real || rp.abs + ' (changed)'
    else where = real
  }
  const fence = fenceOf(rp.fences, where)
  if (!isInside(rp.root, where) || fence) {
    await fh.close().catch(() => {})
    if (fence) throw fenced(rp.rel, rp.root, fence)
    throw new WorkspaceEscapeError(
      `Access denied: "${rp.rel}" changed while opening and now points outside the workspace (${where})`,
    )
  }
}

const NOCTTY = C.O_NOCTTY ?? 0

/**
 * Opens a resolved path without following a final symlink (O_NOFOLLOW), then verifies the descriptor.
 * The final component was already resolved, so a symlink there now means it was swapped in after the check.
 * Opened non-blocking: a FIFO (mkfifo in the workspace) would otherwise block open() until a writer comes,
 * holding a thread-pool thread for good — no abort reaches it, and four of them stall every file operation of
 * the process. Callers refuse anything that is not a regular file after fstat; regular files ignore the flag.
 * A hard link to a file of a fenced folder is refused here too (refuseLinkedSecret).
 */
export async function openConfined(rp: ResolvedPath, flags: number, mode?: number): Promise<FileHandle> {
  // A device is refused before it is opened: opening one is itself an act (a watchdog arms, a tape rewinds, a
  // serial line raises DTR) in a workspace that holds /dev (a workspace set to "/"), and a tty never becomes the
  // runtime's controlling terminal (O_NOCTTY). A socket cannot be opened at all.
  const pre = fs.lstatSync(rp.abs, { throwIfNoEntry: false })
  if (pre && (pre.isCharacterDevice() || pre.isBlockDevice() || pre.isSocket())) {
    throw new Error(`"${rp.rel}" is a ${pre.isSocket() ? 'socket' : 'device'}, not a regular file`)
  }
  let fh: FileHandle
  try {
    fh = await fsp.open(rp.abs, flags | C.O_NOFOLLOW | NONBLOCK | NOCTTY, mode)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ELOOP') {
      throw new WorkspaceEscapeError(`Access denied: "${rp.rel}" became a symlink after it was checked`)
    }
    if (e.code === 'ENOENT') throw new Error(`File not found: "${rp.rel}"`, { cause: err })
    if (e.code === 'EISDIR') throw new Error(`"${rp.rel}" is a directory, not a file`, { cause: err })
    if (e.code === 'EACCES' || e.code === 'EPERM') throw new Error(`Permission denied: "${rp.rel}"`, { cause: err })
    throw err
  }
  await verifyHandle(fh, rp)
  try {
    await refuseLinkedSecret(fs.fstatSync(fh.fd), rp.rel, rp.root, rp.privateDirs)
  } catch (err) {
    await fh.close().catch(() => {})
    throw err
  }
  return fh
}

/**
 * Creates the missing directories of `dir` (a real path inside the workspace) one level at a time,
 * refusing to step through anything that turned into a symlink meanwhile — out of the workspace or into
 * one of `fences`.
 */
export async function mkdirsInside(root: string, dir: string, fences?: readonly Fence[]): Promise<void> {
  if (!isInside(root, dir)) throw new WorkspaceEscapeError(`Access denied: ${dir} is outside the workspace`)
  const parts = path.relative(root, dir).split(path.sep).filter(Boolean)
  let cur = root
  for (const part of parts) {
    cur = path.join(cur, part)
    try {
      await fsp.mkdir(cur)
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      if (e.code !== 'EEXIST') throw err
    }
    const st = await fsp.lstat(cur)
    if (st.isSymbolicLink()) {
      const real = await fsp.realpath(cur)
      if (!isInside(root, real)) throw new WorkspaceEscapeError(`Access denied: ${path.relative(root, cur)} is a symlink leading outside the workspace`)
      const fence = fenceOf(fences, real)
      if (fence) throw fenced(path.relative(root, cur), root, fence)
    } else if (!st.isDirectory()) {
      throw new Error(`Cannot create directory ${path.relative(root, cur)}: a file with that name exists`)
    }
  }
}
