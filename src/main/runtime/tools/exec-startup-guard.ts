// An allow-listed exec command runs without asking. The allowlist already refuses shell syntax after a prefix
// (`echo x >> ~/.bashrc` needs an approval: allowlist.ts), but its arguments are free: an entry `cp*`, `tee*` or
// `git config*` would let the model write a shell start-up file or git's user-wide config — the very files write
// and edit refuse (startup-files.ts) — without an approval. So an allow-listed command whose arguments name one of
// them (by path, by a glob that could reach one, or `git config` writing the user-wide config or a repository key
// that names a command) is asked about like any other command, as is a copy, move or unpack (cp, mv, rsync, tar,
// unzip, …) given a folder that holds one (`cp payload/.bashrc ~/`). A heuristic over the command's words, not a
// sandbox: a program can still write them on its own (a script `npm run` starts, an allow-listed program not on
// that list); only an approval or a workspace that holds none of them covers that.
import os from 'node:os'
import path from 'node:path'
import { userGitConfigFiles } from './gitconfig-includes'
import { hasMagic } from './glob-match'
import { fenceKey, isInside, realOrPlanned } from './paths'
import { relativeHooksFolder, touchesHooksFolder } from './git-hooks-relative'
import { homeExecutableOnPath, relativeHooksPaths, startupFences, workspaceOwns } from './startup-files'

/**
 * The words of an allow-listed command (no shell control left in it: allowlist.ts refuses `$`, `\\`, `;`, …) as
 * the shell splits them: a quoted word keeps its spaces.
 */
function shellWords(command: string): string[] {
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
  return out
}

/** A word and the spellings that may name a path in it: `--opt=value`'s or `of=value`'s value, a glued `-o~/.bashrc`'s rest. */
function pathForms(w: string): string[] {
  const forms = [w]
  if (w.includes('=')) forms.push(w.slice(w.indexOf('=') + 1))
  if (/^-[^-]./.test(w)) forms.push(w.slice(2))
  return forms.filter(Boolean)
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

/**
 * Repository config keys a `git config` write may set without an approval: settings that name no command git
 * runs. Anything else — core.fsmonitor, core.pager, core.hooksPath, alias.*, filter.*, diff.external, hook.* —
 * would make the next allow-listed (or the user's own) `git status` run what the model chose: the reason write and
 * edit never touch `.git/config` (paths.ts refuseGitInternals). A list of the harmless, so new keys are asked about.
 */
const SAFE_SECTIONS = new Set(['user', 'color', 'advice', 'log', 'status', 'push', 'pull', 'fetch', 'rebase', 'tag', 'column', 'blame', 'grep', 'i18n', 'help', 'commit'])
const SAFE_CORE = new Set(['autocrlf', 'filemode', 'ignorecase', 'eol', 'safecrlf', 'quotepath', 'symlinks', 'longpaths', 'whitespace', 'abbrev', 'precomposeunicode', 'compression', 'logallrefupdates', 'untrackedcache', 'preloadindex', 'checkstat', 'trustctime', 'commentchar', 'excludesfile'])
const SAFE_SUBSECTION: Record<string, Set<string>> = {
  branch: new Set(['remote', 'merge', 'rebase', 'description', 'pushremote']),
  remote: new Set(['url', 'pushurl', 'fetch', 'push', 'prune', 'tagopt', 'mirror', 'skipdefaultupdate']),
}

function harmlessGitKey(key: string): boolean {
  const parts = key.toLowerCase().split('.')
  if (parts.length < 2) return false
  const [section, name] = [parts[0], parts[parts.length - 1]]
  if (parts.length > 2) return SAFE_SUBSECTION[section]?.has(name) ?? false
  if (section === 'core') return SAFE_CORE.has(name)
  if (section === 'init') return name === 'defaultbranch'
  // diff.* and merge.* without a driver's subsection: algorithm, renames, conflictStyle… (not diff.external)
  if (section === 'diff' || section === 'merge') return name !== 'external' && name !== 'tool' && name !== 'guitool'
  return SAFE_SECTIONS.has(section)
}

/** Options of `git config` that take the next word as their value. */
const CONFIG_VALUE_OPTS = new Set(['--type', '--default', '--comment', '--value', '--blob', '--file', '-f'])

/** Why a `git config` write must be approved: it writes a config other than the repository's, or a key that runs a command. */
function gitConfigReason(ws: string[]): string | undefined {
  const git = ws.findIndex((w) => path.basename(w) === 'git')
  const at = git < 0 ? -1 : ws.indexOf('config', git + 1)
  if (at < 0) return undefined
  const rest = ws.slice(at + 1)
  const reads = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '--list', '-l', 'get', 'list']
  if (rest.some((w) => reads.includes(w))) return undefined
  if (rest.some((w) => ['--global', '--system', '--file', '-f'].includes(w) || w.startsWith('--file='))) return "it changes git's user-wide config"
  const positional: string[] = []
  for (let i = 0; i < rest.length; i++) {
    if (CONFIG_VALUE_OPTS.has(rest[i])) i++ // (`--type=path` is one word, skipped below)
    else if (!rest[i].startsWith('-')) positional.push(rest[i])
  }
  if (rest.includes('--unset') || rest.includes('--unset-all') || rest.includes('--remove-section') || ['unset', 'remove-section'].includes(positional[0])) return undefined
  if (rest.includes('-e') || rest.includes('--edit') || positional[0] === 'edit') return 'it edits the repository\'s git config'
  if (rest.includes('--rename-section') || positional[0] === 'rename-section') return 'it renames a section of the repository\'s git config'
  const args = positional[0] === 'set' ? positional.slice(1) : positional
  // one word is a read (`git config user.name`); a key and a value set it
  if (args.length < 2 && !rest.includes('--add') && !rest.includes('--replace-all')) return undefined
  const key = args[0] ?? ''
  return harmlessGitKey(key) ? undefined : `it sets git's ${key}, which can name a command git runs`
}

/**
 * Other programs' own commands that write their user-wide config without naming its file: `pip config set
 * global.index-url …` (the next install's packages and build code), `npm config set node-options=--require=…`
 * (~/.npmrc: every npm run; `npm c set`, `npm conf set` alike), `yarn config set yarnPath …` (classic writes
 * ~/.yarnrc), `conda config --add channels …` (~/.condarc), `hg config --edit` (~/.hgrc's [hooks]).
 * (`cargo install` is left: an allow-listed cargo already runs the project's build.rs.)
 */
function toolConfigReason(ws: string[]): string | undefined {
  const at = (re: RegExp) => ws.findIndex((w) => re.test(path.basename(w)))
  const sub = (i: number) => (i < 0 ? [] : ws.slice(i + 1).filter((w) => !w.startsWith('-')))
  const pip = at(/^pip(\d+(\.\d+)?)?$/)
  // (`--editor vim` and `--global` may stand between: any later set/edit)
  if (pip >= 0 && sub(pip)[0] === 'config' && sub(pip).slice(1).some((w) => w === 'set' || w === 'edit')) return "it changes pip's config (its index URL picks the code the next install runs)"
  const npm = at(/^(npm|pnpm)$/)
  if (npm >= 0 && !ws.includes('--location=project')) {
    const [a, b] = sub(npm)
    // npm takes `c` and an unambiguous prefix (`conf`, `confi`) for config; pnpm takes `c` too
    const config = a === 'c' || (a !== undefined && a.length >= 4 && 'config'.startsWith(a))
    if ((config && ['set', 'edit'].includes(b)) || a === 'set') return "it changes npm's user config (~/.npmrc: scripts' shell, node options)"
  }
  const yarn = at(/^yarn$/)
  if (yarn >= 0 && sub(yarn)[0] === 'config' && sub(yarn)[1] === 'set') return "it changes Yarn's config (yarnPath names a file every yarn call runs)"
  // conda writes ~/.condarc (write and edit refuse it): channels pick the packages, and their scripts, it installs
  const conda = at(/^(conda|mamba|micromamba)$/)
  if (conda >= 0 && sub(conda)[0] === 'config' && ws.slice(conda + 1).some((w) => /^--(set|add|append|prepend|remove|remove-key)$/.test(w)))
    return "it changes conda's config (~/.condarc: its channels pick the packages the next install runs)"
  const hg = at(/^hg$/)
  if (hg >= 0 && sub(hg)[0] === 'config' && ws.slice(hg + 1).some((w) => w === '-e' || w === '--edit')) return "it edits Mercurial's config ([hooks] run commands)"
  return undefined
}

/**
 * Programs that write into a folder they are given (`cp payload/.bashrc ~/`, `tar -xf a.tar -C ~`): a folder
 * argument that holds a start-up file is where they may write one, though the word names no start-up file itself.
 */
const FOLDER_WRITERS = new Set(['cp', 'mv', 'rsync', 'install', 'ln', 'tar', 'bsdtar', 'unzip', '7z', '7za', 'cpio', 'scp', 'ditto'])

/**
 * Why an allow-listed `command` run in `cwd` must still be approved: the start-up file or git config it names;
 * undefined when it names none. `workspace`: the agent's workspace — a start-up folder it is or lies in
 * (~/.config/nvim opened as the project) is what write and edit may change there (startup-files.ts
 * workspaceOwns), so a word naming a path inside the workspace and that folder does not ask either; outside the
 * workspace, or a fence that merely lies inside it, asks as ever.
 */
export function allowlistStartupReason(command: string, cwd: string, home: string = os.homedir(), workspace?: string): string | undefined {
  const ws = shellWords(command)
  const git = gitConfigReason(ws) ?? toolConfigReason(ws)
  if (git) return git
  const rootKey = workspace === undefined ? undefined : fenceKey(realOrPlanned(workspace))
  const fences = [
    ...startupFences(home).map((f) => ({ key: f.key, label: f.label, owned: rootKey !== undefined && workspaceOwns(f, rootKey) })),
    ...userGitConfigFiles(home).map((f) => ({ key: fenceKey(realOrPlanned(f)), label: `git's user-wide config ${f}`, owned: false })),
  ]
  // the fences that count for a path: all of them, less the workspace's own when the path lies in the workspace
  const inWorkspace = fences.filter((f) => !f.owned)
  const fencesFor = (key: string) => (rootKey !== undefined && isInside(rootKey, key) ? inWorkspace : fences)
  const writer = ws.length > 0 && FOLDER_WRITERS.has(path.basename(ws[0]))
  for (const w of ws.slice(1).flatMap(pathForms)) {
    const abs = path.resolve(cwd, expandTilde(w, home))
    const segs = abs.split(path.sep)
    const magic = segs.findIndex(hasMagic)
    if (magic >= 0) {
      // a glob: what it could reach is anything under its literal folder
      const dir = fenceKey(realOrPlanned(segs.slice(0, magic).join(path.sep) || path.sep))
      const hit = fencesFor(dir).find((f) => isInside(dir, f.key) || isInside(f.key, dir))
      if (hit) return `its pattern ${w} could name ${hit.label}`
      continue
    }
    const key = fenceKey(realOrPlanned(abs))
    const hit = fencesFor(key).find((f) => isInside(f.key, key))
    if (hit) return `it names ${hit.label}`
    if (homeExecutableOnPath(realOrPlanned(abs), home)) return `it names ${w}, an executable in your home folder, which is on your PATH`
    const hooks = relativeHooksPaths(home).find((h) => relativeHooksFolder(realOrPlanned(abs), h.rel) !== undefined)
    if (hooks) return `it names a file in a repository's hooks folder (core.hooksPath = ${hooks.rel})`
    const holder = writer ? fencesFor(key).find((f) => isInside(key, f.key)) : undefined
    if (holder) return `it may write into ${w}, which holds ${holder.label}`
    // `ln -s tools/hooks .githooks`, `mv staged .githooks`, `tar -xf x.tar -C .`: the hooks folder itself, or one it holds
    const hooksDir = writer ? relativeHooksPaths(home).find((h) => touchesHooksFolder(realOrPlanned(abs), h.rel)) : undefined
    if (hooksDir) return `it may write into ${w}, a repository's hooks folder or one holding it (core.hooksPath = ${hooksDir.rel})`
  }
  return undefined
}
