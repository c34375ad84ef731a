// What Mercurial's user config pulls in: `%include PATH` lines (relative to the including file, `~` and
// environment variables expanded, as hg reads them) are config as much as ~/.hgrc itself — [hooks] and `!` aliases
// run commands — so startup-files.ts refuses writes to them, as it does git's includes (gitconfig-includes.ts).
// $HGRCPATH, when set, is read instead of the user's files: its absolute entries count too (a folder's *.rc files,
// and what they include). Bounded like git's (config-include-walk.ts).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { walkConfigIncludes } from './config-include-walk'

export interface HgInclude {
  /** absolute path (not resolved: the caller compares real paths) */
  file: string
  /** the config file that names it */
  from: string
}

/** $HGRCPATH's absolute entries (files, or folders whose *.rc files hg reads). */
export function hgrcPathEntries(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.HGRCPATH ?? '').split(path.delimiter).filter((e) => e && path.isAbsolute(e)).map((e) => path.resolve(e))
}

/** The user-wide files hg reads (~/.hgrc, ~/mercurial.ini, the XDG one) and $HGRCPATH's absolute entries. */
export function userHgrcFiles(home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): string[] {
  const files = [path.join(home, '.hgrc'), path.join(home, 'mercurial.ini'), path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'hg', 'hgrc')]
  return [...new Set([...files, ...hgrcPathEntries(env)])]
}

/** hg's path expansion for %include: `~` (this user) and `$VAR` / `${VAR}`; undefined for another user's `~name`. */
function expand(p: string, home: string, env: NodeJS.ProcessEnv): string | undefined {
  const vars = p.replace(/\$(?:\{(\w+)\}|(\w+))/g, (m, a: string | undefined, b: string | undefined) => env[a ?? b ?? ''] ?? m)
  if (vars === '~' || vars.startsWith('~/')) return path.join(home, vars.slice(1))
  return vars.startsWith('~') ? undefined : vars
}

/** The files the user's hg config includes, followed within the walk's bounds. */
export function hgrcIncludes(home: string = os.homedir(), roots: string[] = userHgrcFiles(home), env: NodeJS.ProcessEnv = process.env): HgInclude[] {
  const out: HgInclude[] = []
  walkConfigIncludes(roots.flatMap(rcFiles), (file, text, follow) => {
    for (const line of text.split(/\r?\n/)) {
      const m = /^%include\s+(\S|\S.*\S)\s*$/.exec(line)
      const inc = m ? expand(m[1], home, env) : undefined
      if (!inc) continue
      const target = path.resolve(path.dirname(file), inc)
      out.push({ file: target, from: file })
      follow(target)
    }
  })
  return out
}

/** A root as hg reads it: a folder ($HGRCPATH may name one) is its `*.rc` files, in name order; a file itself. */
function rcFiles(p: string): string[] {
  try {
    if (!fs.statSync(p, { throwIfNoEntry: false })?.isDirectory()) return [p]
    return fs
      .readdirSync(p)
      .filter((n) => n.endsWith('.rc'))
      .sort()
      .map((n) => path.join(p, n))
  } catch {
    return [p]
  }
}
