// An allow-listed exec command runs without asking. The allowlist already refuses shell syntax after a prefix
// (`echo x >> ~/.bashrc` needs an approval: allowlist.ts), but its arguments are free: an entry `cp*`, `tee*` or
// `git config*` would let the model write a shell start-up file or git's user-wide config — the very files write
// and edit refuse (startup-files.ts) — without an approval. So an allow-listed command whose arguments name one of
// them (by path, by a glob that could reach one, or `git config` writing the user-wide config) is asked about
// like any other command. A heuristic over the command's words, not a sandbox: a program can still write them on
// its own (an archive extracted in the home folder, a script `npm run` starts, `cp -r autostart ~/.config/`);
// only an approval or a workspace that holds none of them covers that.
import os from 'node:os'
import path from 'node:path'
import { userGitConfigFiles } from './gitconfig-includes'
import { hasMagic } from './glob-match'
import { fenceKey, isInside, realOrPlanned } from './paths'
import { startupFences } from './startup-files'

/**
 * The words of an allow-listed command (no shell control left in it: allowlist.ts refuses `$`, `\\`, `;`, …) as
 * the shell splits them — a quoted word keeps its spaces — each with the spellings that may name a path in it:
 * the value of `--opt=value` or `of=value`, and the rest of a glued short option (`-o~/.bashrc`).
 */
function words(command: string): string[] {
  const out: string[] = []
  let cur: string | undefined
  let quote = ''
  for (const c of command) {
    if (quote) {
      if (c === quote) quote = ''
      else cur += c
    } else if (c === '"' || c === "'") {
      quote = c
      cur ??= ''
    } else if (/\s/.test(c)) {
      if (cur !== undefined) out.push(cur)
      cur = undefined
    } else cur = (cur ?? '') + c
  }
  if (cur !== undefined) out.push(cur)
  return out.flatMap((w) => {
    const forms = [w]
    if (w.includes('=')) forms.push(w.slice(w.indexOf('=') + 1))
    if (/^-[^-]./.test(w)) forms.push(w.slice(2))
    return forms.filter(Boolean)
  })
}

/** The current user's name, for `~name/…` (undefined where the OS has none to give). */
function userName(): string | undefined {
  try {
    return os.userInfo().username
  } catch {
    return undefined
  }
}

/** `~`, `~/…` and `~name/…` when `name` is this user (the shell expands each to the home folder); others as given. */
function expandTilde(w: string, home: string): string {
  const m = /^~([^/]*)(\/.*)?$/s.exec(w)
  if (!m || (m[1] && m[1] !== userName())) return w
  return path.join(home, m[2] ?? '')
}

/** `git config` that writes a config file other than the repository's own (read-only forms excepted). */
function writesGitUserConfig(ws: string[]): boolean {
  const git = ws.findIndex((w) => path.basename(w) === 'git')
  if (git < 0 || !ws.slice(git + 1).includes('config')) return false
  const rest = ws.slice(git + 1)
  if (!rest.some((w) => ['--global', '--system', '--file', '-f'].includes(w) || w.startsWith('--file='))) return false
  const reads = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', 'get', 'list']
  return !rest.some((w) => reads.includes(w))
}

/**
 * Why an allow-listed `command` run in `cwd` must still be approved: the start-up file or git config it names;
 * undefined when it names none.
 */
export function allowlistStartupReason(command: string, cwd: string, home: string = os.homedir()): string | undefined {
  const ws = words(command)
  if (writesGitUserConfig(ws)) return "it changes git's user-wide config"
  const fences = [
    ...startupFences(home).map((f) => ({ key: f.key, label: f.label })),
    ...userGitConfigFiles(home).map((f) => ({ key: fenceKey(realOrPlanned(f)), label: `git's user-wide config ${f}` })),
  ]
  for (const w of ws.slice(1)) {
    const abs = path.resolve(cwd, expandTilde(w, home))
    const segs = abs.split(path.sep)
    const magic = segs.findIndex(hasMagic)
    if (magic >= 0) {
      // a glob: what it could reach is anything under its literal folder
      const dir = fenceKey(realOrPlanned(segs.slice(0, magic).join(path.sep) || path.sep))
      const hit = fences.find((f) => isInside(dir, f.key) || isInside(f.key, dir))
      if (hit) return `its pattern ${w} could name ${hit.label}`
      continue
    }
    const key = fenceKey(realOrPlanned(abs))
    const hit = fences.find((f) => isInside(f.key, key))
    if (hit) return `it names ${hit.label}`
  }
  return undefined
}
