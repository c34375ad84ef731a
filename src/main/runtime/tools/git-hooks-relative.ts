// A relative `core.hooksPath` in git's user-wide config (`.githooks`, `tools/hooks`) is taken from the top folder
// of each working tree git runs a hook in (githooks(5): git runs hooks from there), so every repository the agent
// can write has a hooks folder at that path: a `pre-commit` written into `<repo>/.githooks/` runs at the user's
// next commit without an approval. startup-files.ts refuses writes into it when the folder it is taken from holds
// a `.git` (folder, or a worktree's or submodule's file), by the hooks folder's real path (git follows a link
// `.githooks` → `tools/hooks`, so `tools/hooks/pre-commit` is the hook). Judged when the write happens: a folder
// that becomes a working tree later (`git init` over it, approved or allow-listed) is not known then. A bare
// repository (hooks from its git folder) is left: write and edit refuse files named like a git folder's (HEAD,
// config) nowhere else.
import fs from 'node:fs'
import path from 'node:path'
import { fenceKey, isInside, realOrPlanned } from './paths'

/** The hook names git runs (githooks(5)): with a hooksPath of `.` or `..`, only these files in that folder count. */
const HOOK_NAMES = new Set([
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg',
  'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update',
  'proc-receive', 'post-receive', 'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc',
  'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist',
  'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
])

/**
 * Whether the file's name is a hook's as the file system matches names (fenceKey): on macOS and Windows git's
 * open of `pre-commit` finds `PRE-COMMIT` (and on Windows `pre-commit.`).
 */
const isHookName = (abs: string) => HOOK_NAMES.has(path.basename(fenceKey(abs)))

/** A `.git` entry of any kind (folder, a worktree's or submodule's file, a link): one lstat, no throw when absent. */
function hasGit(dir: string): boolean {
  try {
    return fs.lstatSync(path.join(dir, '.git'), { throwIfNoEntry: false }) !== undefined
  } catch {
    return false
  }
}

/**
 * Whether a working tree takes its hooks from `base` through `ups` leading `..`s: `base` itself is one (no `..`),
 * or a folder right under it is (one `..`: readdir once). Deeper `../..` values are taken as yes — rare, and
 * walking every folder two levels down on each write is not worth it.
 */
function treeBelow(base: string, ups: number): boolean {
  if (ups === 0) return hasGit(base)
  if (ups > 1) return true
  try {
    return fs.readdirSync(base, { withFileTypes: true }).some((d) => d.isDirectory() && hasGit(path.join(base, d.name)))
  } catch {
    return false
  }
}

/**
 * The hooks folder (a real path) that `abs` — the real path of a file to write — lies in, for a relative hooksPath
 * `rel` as written in the config; undefined when it lies in none.
 */
export function relativeHooksFolder(abs: string, rel: string): string | undefined {
  const segs = path.normalize(rel).split(/[\\/]+/).filter((s) => s && s !== '.')
  let ups = 0
  while (segs[ups] === '..') ups++
  const tail = segs.slice(ups)
  if (tail.includes('..')) return undefined // (normalize leaves none after the leading ones)
  const viaLink = hooksFolderByRealPath(abs, rel, tail.length)
  if (viaLink !== undefined) return viaLink
  if (tail.length === 0) {
    // `.` or `..`: the tree's top folder (or the folder above it) is the hooks folder; only a hook's own name runs
    const dir = path.dirname(abs)
    return isHookName(abs) && treeBelow(dir, ups) ? dir : undefined
  }
  const want = tail.map((s) => fenceKey(s))
  // each folder `abs` lies in whose last segments are the hooksPath's: the tree's top (or its parent) is above it
  for (let dir = path.dirname(abs); ; dir = path.dirname(dir)) {
    const parts = dir.split(path.sep)
    if (parts.length > want.length) {
      const last = parts.slice(-want.length).map((s) => fenceKey(s))
      const base = parts.slice(0, -want.length).join(path.sep) || path.sep
      if (last.every((s, i) => s === want[i]) && treeBelow(base, ups)) return dir
    }
    if (path.dirname(dir) === dir) return undefined
  }
}

/**
 * The hooks folder `abs` lies in, for each working tree above it, by the folder's real path: git opens
 * `<top>/<rel>/pre-commit` through whatever links lie on the way, so with `.githooks` a link to `tools/hooks`
 * (checked in, or made by an allow-listed `ln -s`) a write to `tools/hooks/pre-commit` — or to
 * `.githooks/pre-commit`, whose real path that is — is a hook, though no segment reads `.githooks`.
 * (`hookNamesOnly`: a hooksPath of `.` or `..`, where only git's hook names in that very folder count.)
 */
function hooksFolderByRealPath(abs: string, rel: string, tailSegs: number): string | undefined {
  const absKey = fenceKey(abs)
  const hookNamesOnly = tailSegs === 0
  for (let top = path.dirname(abs); ; top = path.dirname(top)) {
    if (hasGit(top)) {
      const dir = hooksRealPath(top, rel, tailSegs)
      const dirKey = fenceKey(dir)
      const hit = hookNamesOnly ? dirKey === fenceKey(path.dirname(abs)) && isHookName(abs) : absKey !== dirKey && isInside(dirKey, absKey)
      if (hit) return dir
    }
    if (path.dirname(top) === top) return undefined
  }
}

/**
 * `<top>/<rel>` by its real path. `top` is one (a folder above a real path), and so is its parent, so with at
 * most one segment past the leading `..`s only that segment can be a link: one lstat, not a realpath that throws
 * for the usual missing `.githooks` (this runs for each working tree above each file written).
 */
function hooksRealPath(top: string, rel: string, tailSegs: number): string {
  const lexical = path.resolve(top, rel)
  if (tailSegs > 1) return realOrPlanned(lexical)
  try {
    return fs.lstatSync(lexical, { throwIfNoEntry: false })?.isSymbolicLink() ? realOrPlanned(lexical) : lexical
  } catch {
    return lexical
  }
}

/**
 * Whether `dir` (a real path, for a copy, move or unpack to write into: `cp -r x .githooks`, `ln -s x .githooks`,
 * `tar -xf x.tar -C .`) is a working tree's hooks folder, lies in one, or holds one — where such a program may
 * put a hook though the word names none.
 */
export function touchesHooksFolder(dir: string, rel: string): boolean {
  if (relativeHooksFolder(path.join(dir, 'pre-commit'), rel) !== undefined) return true
  const dirKey = fenceKey(dir)
  for (let top = dir; ; top = path.dirname(top)) {
    if (hasGit(top) && isInside(dirKey, fenceKey(realOrPlanned(path.resolve(top, rel))))) return true
    if (path.dirname(top) === top) return false
  }
}
