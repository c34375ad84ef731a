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
import { gitConfigRefs, userGitConfigFiles } from './gitconfig-includes'
import { hasMagic } from './glob-match'
import { fenceKey, isInside, realOrPlanned } from './paths'
import { startupPaths } from './startup-files'

/** The words of an allow-listed command (no shell control left in it): quotes dropped, `--opt=value` split. */
function words(command: string): string[] {
  return command
    .replace(/["']/g, '')
    .split(/\s+/)
    .flatMap((w) => (w.includes('=') ? [w, w.slice(w.indexOf('=') + 1)] : [w]))
    .filter(Boolean)
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
    ...startupPaths(home).map((s) => ({ key: fenceKey(realOrPlanned(s.file)), label: s.label })),
    ...userGitConfigFiles(home).map((f) => ({ key: fenceKey(realOrPlanned(f)), label: `git's user-wide config ${f}` })),
    ...gitConfigRefs(home).map((r) => ({ key: fenceKey(realOrPlanned(r.file)), label: `${r.why} ${r.file}` })),
  ]
  for (const w of ws.slice(1)) {
    const expanded = w === '~' || w.startsWith('~/') ? path.join(home, w.slice(1)) : w
    const abs = path.resolve(cwd, expanded)
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
