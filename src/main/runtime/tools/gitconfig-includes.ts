// What git's user-wide config (~/.gitconfig, $XDG_CONFIG_HOME/git/config) pulls in from elsewhere: the files its
// `[include] path` and `[includeIf "…"] path` name (config as much as ~/.gitconfig itself: core.fsmonitor,
// core.pager), and the folders its `core.hooksPath` (hooks every repository's commit runs) and `init.templateDir`
// (hooks copied into every new clone) name. startup-files.ts refuses writes to them. Read each time startup-files.ts
// builds its fence list (reused for a moment; a change to ~/.gitconfig itself counts at once). Bounded by
// config-include-walk.ts (git's own include depth, 10).
import os from 'node:os'
import path from 'node:path'
import { walkConfigIncludes } from './config-include-walk'

export interface GitConfigRef {
  /** absolute path (not resolved: the caller compares real paths) */
  file: string
  /** a folder whose contents all count (hooks, templates), not a single file */
  folder: boolean
  /**
   * `file` is a relative core.hooksPath as written: relative to each working tree's top folder, so it is no one
   * place (git-hooks-relative.ts judges it per repository)
   */
  relative?: true
  /** what it is, for the refusal */
  why: string
  /** the config file that names it */
  from: string
}

/** One `section.key = value` of a config file; section and key lower-cased (git's are case-insensitive), subsection kept. */
export interface ConfigEntry {
  section: string
  key: string
  value: string
}

/**
 * The entries of a git config file's text. Enough of git's syntax for the keys read here: `[section]`,
 * `[section "sub"]`, the old `[section.sub]`, a key on the header's line, quoted values with escapes, `#`/`;`
 * comments, backslash line continuations, a bare key (true).
 */
export function parseGitConfig(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = []
  let section = ''
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].trimStart()
    if (line.startsWith('[')) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line)
      if (!m) continue
      section = m[1].split('.')[0].toLowerCase()
      line = line.slice(m[0].length).trimStart()
    }
    const km = /^([A-Za-z][A-Za-z0-9-]*)\s*(=?)/.exec(line)
    if (!km || !section) continue
    const key = km[1].toLowerCase()
    if (!km[2]) {
      out.push({ section, key, value: 'true' })
      continue
    }
    let rest = line.slice(km[0].length)
    let value = ''
    let quoted = false
    for (;;) {
      let j = 0
      let cont = false
      for (; j < rest.length; j++) {
        const c = rest[j]
        if (c === '\\') {
          if (j === rest.length - 1) {
            cont = true
            break
          }
          const n = rest[++j]
          value += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '' : n
        } else if (c === '"') quoted = !quoted
        else if (!quoted && (c === '#' || c === ';')) break
        else value += c
      }
      if (!cont || i + 1 >= lines.length) break
      rest = lines[++i]
    }
    out.push({ section, key, value: value.trim() })
  }
  return out
}

/** git's path expansion: `~/` (and `~` alone) is the home folder; relative paths are taken from `base`. */
function expand(p: string, home: string, base: string): string | undefined {
  if (p === '~' || p.startsWith('~/')) return path.join(home, p.slice(1))
  // `~name/…` spelled with this user's own name is the home folder too (git expands it through getpwnam)
  const named = /^~([^/]+)(\/.*)?$/s.exec(p)
  if (named && named[1] === userName()) return path.join(home, named[2] ?? '')
  if (p.startsWith('~') || p.startsWith('%(prefix)')) return undefined // another user's home, git's install prefix
  return path.isAbsolute(p) ? path.normalize(p) : base ? path.resolve(base, p) : undefined
}

function userName(): string | undefined {
  try {
    return os.userInfo().username
  } catch {
    return undefined
  }
}

/**
 * The user-wide config files git reads, by the rule git uses — and $GIT_CONFIG_GLOBAL, the file git reads instead
 * of both when it is set (in this process's environment, so likely in the shells it was started from too).
 */
export function userGitConfigFiles(
  home: string = os.homedir(),
  xdgConfig = process.env.XDG_CONFIG_HOME,
  globalConfig = process.env.GIT_CONFIG_GLOBAL,
): string[] {
  const files = [path.join(home, '.gitconfig'), path.join(xdgConfig || path.join(home, '.config'), 'git', 'config')]
  if (globalConfig && path.isAbsolute(globalConfig) && !files.includes(path.resolve(globalConfig))) files.push(path.resolve(globalConfig))
  return files
}

/** What git's user-wide config (and what it includes, within the walk's bounds) names that runs or becomes config. */
export function gitConfigRefs(home: string = os.homedir(), roots: string[] = userGitConfigFiles(home)): GitConfigRef[] {
  const refs: GitConfigRef[] = []
  walkConfigIncludes(roots, (file, text, follow) => {
    const dir = path.dirname(file)
    for (const e of parseGitConfig(text)) {
      if ((e.section === 'include' || e.section === 'includeif') && e.key === 'path') {
        const target = expand(e.value, home, dir) // relative to the including file
        if (!target) continue
        refs.push({ file: target, folder: false, why: 'a config file git includes', from: file })
        follow(target)
      } else if (e.section === 'core' && e.key === 'hookspath') {
        // a relative hooksPath is each repository's own folder (`.githooks` in every working tree): kept as written
        const target = path.isAbsolute(e.value) || e.value.startsWith('~') ? expand(e.value, home, '') : undefined
        if (target) refs.push({ file: target, folder: true, why: "git's hooks folder (core.hooksPath)", from: file })
        // (not `~other/…` nor `%(prefix)/…`: another user's folder, git's install prefix — no working tree's)
        else if (e.value && !/^(~|%\(prefix\))/.test(e.value)) refs.push({ file: e.value, folder: true, relative: true, why: "git's hooks folder (core.hooksPath, relative)", from: file })
      } else if (e.section === 'init' && e.key === 'templatedir') {
        const target = path.isAbsolute(e.value) || e.value.startsWith('~') ? expand(e.value, home, '') : undefined
        if (target) refs.push({ file: target, folder: true, why: "git's template folder (init.templateDir)", from: file })
      }
    }
  })
  return refs
}
