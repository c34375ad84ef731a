// Files that run code later without an approval: shell start-up files, session autostart entries, user services,
// login agents, launchers — and what git's user-wide config pulls in (gitconfig-includes.ts). Writing one is
// running a command outside `exec`'s approval the next time a shell, a session or git starts, so `write` and `edit`
// refuse them by real path (a dotfiles repo they link into counts). Reading them is harmless and stays allowed, so
// they are write-only fences, not private folders (paths.ts). Only a workspace that holds one can reach it at all
// (one set to the home folder or above it, or a dotfiles repo they link into).
// Hard links need no check here: write and edit replace the name by rename (atomic-write.ts), so a workspace file
// linked to ~/.bashrc is replaced by a new file and ~/.bashrc keeps its content.
// A fixed list, not a setting (a model's edit of loopdesk.json could otherwise lift it).
import os from 'node:os'
import path from 'node:path'
import { gitConfigRefs } from './gitconfig-includes'
import { fenceKey, isInside, realOrPlanned, WorkspaceEscapeError } from './paths'

export interface StartupPath {
  /** '/'-separated, under `base` */
  rel: string
  /** home: the home folder; config: ~/.config and $XDG_CONFIG_HOME; data: ~/.local/share and $XDG_DATA_HOME; zdot: $ZDOTDIR too */
  base: 'home' | 'config' | 'data' | 'zdot'
  /** what it is, for the refusal ("shell start-up file ~/.bashrc") */
  label: string
}

export const STARTUP_PATHS: readonly StartupPath[] = [
  // bash: login shells read the first of .bash_profile, .bash_login, .profile; interactive ones .bashrc
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile'].map((f) => ({ rel: f, base: 'home' as const, label: `shell start-up file ~/${f}` })),
  // zsh reads these from $ZDOTDIR when it is set, else from the home folder
  ...['.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout'].map((f) => ({ rel: f, base: 'zdot' as const, label: `shell start-up file ~/${f}` })),
  // fish: config.fish, conf.d/ and functions/ (autoloaded by name) all run; the whole folder
  { rel: 'fish', base: 'config', label: "fish's start-up folder ~/.config/fish" },
  // X sessions and the graphical login
  ...['.xprofile', '.xsessionrc', '.xinitrc', '.xsession'].map((f) => ({ rel: f, base: 'home' as const, label: `session start-up file ~/${f}` })),
  { rel: 'autostart', base: 'config', label: 'the session autostart folder ~/.config/autostart' },
  { rel: 'systemd/user', base: 'config', label: 'the systemd user services folder ~/.config/systemd/user' },
  // the user session's environment (LD_PRELOAD, PATH for every program the session starts)
  { rel: 'environment.d', base: 'config', label: "the session's environment folder ~/.config/environment.d" },
  { rel: 'Library/LaunchAgents', base: 'home', label: 'the login agents folder ~/Library/LaunchAgents' },
  // a .desktop entry here shadows the system's launcher of the same name: the user's next click runs its Exec=
  { rel: 'applications', base: 'data', label: 'the application launchers folder ~/.local/share/applications' },
]

/** The start-up locations under `home` (`env`: XDG_CONFIG_HOME, XDG_DATA_HOME, ZDOTDIR), as absolute paths. */
export function startupPaths(home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): Array<{ file: string; label: string }> {
  const withEnv = (defaults: string, v: string | undefined) => {
    const bases = [defaults]
    if (v && path.isAbsolute(v) && path.resolve(v) !== defaults) bases.push(path.resolve(v))
    return bases
  }
  const bases: Record<StartupPath['base'], string[]> = {
    home: [home],
    zdot: withEnv(home, env.ZDOTDIR),
    config: withEnv(path.join(home, '.config'), env.XDG_CONFIG_HOME),
    data: withEnv(path.join(home, '.local', 'share'), env.XDG_DATA_HOME),
  }
  const fixed = STARTUP_PATHS.flatMap((s) => bases[s.base].map((b) => ({ file: path.join(b, ...s.rel.split('/')), label: s.label })))
  return [...fixed, ...pathFolders(home, env.PATH)]
}

/**
 * The folders on $PATH inside the home folder (~/.local/bin, ~/bin: Ubuntu's ~/.profile puts them first): a file
 * there is a command the user types — overwriting one keeps its executable mode (atomic-write.ts), and a new one
 * shadows the system's of the same name once made executable. Folders outside the home folder are not the user's
 * to write, or are a project's own (node_modules/.bin).
 */
function pathFolders(home: string, envPath: string | undefined): Array<{ file: string; label: string }> {
  return (envPath ?? '')
    .split(path.delimiter)
    .filter((d) => path.isAbsolute(d) && path.resolve(d) !== home && isInside(home, path.resolve(d)))
    .map((d) => ({ file: path.resolve(d), label: `a folder on your PATH (${d}: its files run as commands)` }))
}

/**
 * Throws when `abs` (a real path, or the real path a file not made yet will have) is a start-up file or lies in a
 * start-up folder, or is a file or folder git's user-wide config pulls in. Compared as paths.ts compares fences:
 * case-, normalization-, trailing-dot- and NTFS-stream-insensitive, so a new `.BASHRC` on macOS is the one bash reads.
 */
export function refuseStartupWrite(abs: string, shown: string): void {
  const target = fenceKey(abs)
  for (const s of startupPaths()) {
    const key = fenceKey(realOrPlanned(s.file))
    if (!isInside(key, target)) continue
    throw new WorkspaceEscapeError(
      `Access denied: writing "${shown}" is refused: ${s.label} runs commands outside approval (the next shell, login or session ` +
        'runs it without asking). Reading it is fine; change it through exec, which the user approves.',
    )
  }
  for (const r of gitConfigRefs()) {
    const key = fenceKey(realOrPlanned(r.file))
    if (!(r.folder ? isInside(key, target) : key === target)) continue
    throw new WorkspaceEscapeError(
      `Access denied: writing "${shown}" is refused: it is ${r.why} (from ${r.from}), which names commands git runs outside approval. ` +
        'Reading it is fine; change it through exec, which the user approves.',
    )
  }
}
