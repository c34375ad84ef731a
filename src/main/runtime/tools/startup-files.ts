// Files that run code later without an approval: shell start-up files, session autostart entries, user services,
// login agents, launchers, the user config of programs that run commands from it (hg, tmux, gdb, editors, direnv,
// Cargo, Yarn, pip's index) — and what git's user-wide config pulls in (gitconfig-includes.ts). Writing one is
// running a command outside `exec`'s approval the next time a shell, a session or git starts, so `write` and `edit`
// refuse them by real path (a dotfiles repo they link into counts). Reading them is harmless and stays allowed, so
// they are write-only fences, not private folders (paths.ts). Only a workspace that holds one can reach it at all
// (one set to the home folder or above it, or a dotfiles repo they link into).
// Hard links need no check here: write and edit replace the name by rename (atomic-write.ts), so a workspace file
// linked to ~/.bashrc is replaced by a new file and ~/.bashrc keeps its content.
// A fixed list, not a setting (a model's edit of loopdesk.json could otherwise lift it).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gitConfigRefs, userGitConfigFiles } from './gitconfig-includes'
import { relativeHooksFolder } from './git-hooks-relative'
import { hgrcIncludes, hgrcPathEntries, userHgrcFiles } from './hgrc-includes'
import { fenceKey, isInside, WorkspaceEscapeError } from './paths'

export interface StartupPath {
  /** '/'-separated, under `base` */
  rel: string
  /**
   * home: the home folder; config: ~/.config and $XDG_CONFIG_HOME; data: ~/.local/share and $XDG_DATA_HOME;
   * zdot: $ZDOTDIR too; appdata: ~/AppData/Roaming and %APPDATA%; pyuser: ~/.local and $PYTHONUSERBASE;
   * cargo: ~/.cargo and $CARGO_HOME; rustup: ~/.rustup and $RUSTUP_HOME
   */
  base: 'home' | 'config' | 'data' | 'zdot' | 'appdata' | 'pyuser' | 'cargo' | 'rustup'
  /** what it is, for the refusal ("shell start-up file ~/.bashrc") */
  label: string
  /** when it runs, for the refusal (default: the next shell, login or session) */
  when?: string
}

const EDITOR = 'the next start of that editor runs it without asking'

export const STARTUP_PATHS: readonly StartupPath[] = [
  // bash: login shells read the first of .bash_profile, .bash_login, .profile; interactive ones .bashrc
  // (.bash_aliases: Debian's and Ubuntu's default ~/.bashrc sources it)
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.bash_aliases'].map((f) => ({ rel: f, base: 'home' as const, label: `shell start-up file ~/${f}` })),
  // zsh reads these from $ZDOTDIR when it is set, else from the home folder
  ...['.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout'].map((f) => ({ rel: f, base: 'zdot' as const, label: `shell start-up file ~/${f}` })),
  // fish: config.fish, conf.d/ and functions/ (autoloaded by name) all run; the whole folder
  { rel: 'fish', base: 'config', label: "fish's start-up folder ~/.config/fish" },
  // X sessions and the graphical login
  ...['.xprofile', '.xsessionrc', '.xinitrc', '.xsession'].map((f) => ({ rel: f, base: 'home' as const, label: `session start-up file ~/${f}` })),
  { rel: 'autostart', base: 'config', label: 'the session autostart folder ~/.config/autostart' },
  { rel: 'systemd/user', base: 'config', label: 'the systemd user services folder ~/.config/systemd/user' },
  // (systemd reads user units from the data folder too)
  { rel: 'systemd/user', base: 'data', label: 'the systemd user services folder ~/.local/share/systemd/user' },
  // a D-Bus session service file's Exec= runs when a program asks for that name (one here shadows the system's)
  { rel: 'dbus-1/services', base: 'data', label: 'the D-Bus session services folder ~/.local/share/dbus-1/services' },
  // KDE Plasma sources env/ scripts at sign-in and runs shutdown/ ones at sign-out; autostart-scripts/ in older Plasma
  { rel: 'plasma-workspace/env', base: 'config', label: "Plasma's sign-in scripts folder ~/.config/plasma-workspace/env" },
  { rel: 'plasma-workspace/shutdown', base: 'config', label: "Plasma's sign-out scripts folder ~/.config/plasma-workspace/shutdown" },
  { rel: 'autostart-scripts', base: 'config', label: "Plasma's autostart scripts folder ~/.config/autostart-scripts" },
  // KDE 4 kept the same three in its own folder (~/.kde, or ~/.kde4 on some distributions)
  ...['.kde', '.kde4'].flatMap((kde) =>
    ['Autostart', 'env', 'shutdown'].map((f) => ({ rel: `${kde}/${f}`, base: 'home' as const, label: `KDE's session scripts folder ~/${kde}/${f}` })),
  ),
  // file managers' script and context-menu folders: run when the user picks the entry, so an existing one
  // overwritten (its mode kept) or a menu entry shadowing one the user knows runs the model's command on that click
  ...[
    { rel: 'nautilus/scripts', label: "GNOME Files' scripts folder ~/.local/share/nautilus/scripts" },
    { rel: 'nemo/scripts', label: "Nemo's scripts folder ~/.local/share/nemo/scripts" },
    { rel: 'nemo/actions', label: "Nemo's actions folder ~/.local/share/nemo/actions" },
    { rel: 'kio/servicemenus', label: "Dolphin's service menus folder ~/.local/share/kio/servicemenus" },
    { rel: 'kservices5/ServiceMenus', label: "Dolphin's service menus folder ~/.local/share/kservices5/ServiceMenus" },
  ].map((e) => ({ ...e, base: 'data' as const, when: 'the next click on its menu entry runs it without asking' })),
  // the user session's environment (LD_PRELOAD, PATH for every program the session starts)
  { rel: 'environment.d', base: 'config', label: "the session's environment folder ~/.config/environment.d" },
  { rel: 'Library/LaunchAgents', base: 'home', label: 'the login agents folder ~/Library/LaunchAgents' },
  // a .desktop entry here shadows the system's launcher of the same name: the user's next click runs its Exec=
  { rel: 'applications', base: 'data', label: 'the application launchers folder ~/.local/share/applications' },
  // Python runs each `import` line of a .pth file (and usercustomize.py) in its user site-packages at every start,
  // any version's folder, made or not yet: ~/.local/lib/pythonX.Y (or $PYTHONUSERBASE/lib), ~/Library/Python on macOS,
  // %APPDATA%\Python on Windows. (What else ~/.local/lib holds — a user-wide npm prefix's packages — runs too.)
  { rel: 'lib', base: 'pyuser', label: "Python's user site-packages folder ~/.local/lib (a .pth file there runs at each Python start)" },
  { rel: 'Library/Python', base: 'home', label: "Python's user site-packages folder ~/Library/Python (a .pth file there runs at each Python start)" },
  { rel: 'Python', base: 'appdata', label: "Python's user site-packages folder %APPDATA%\\Python (a .pth file there runs at each Python start)" },
  // Windows: what the Startup folder holds runs at the next sign-in; PowerShell runs its profile scripts at each
  // start and loads a module from Modules/ when one of its commands is typed (Documents may live in OneDrive)
  { rel: 'Microsoft/Windows/Start Menu/Programs/Startup', base: 'appdata', label: 'the Windows Startup folder (%APPDATA%\\…\\Startup)' },
  ...['Documents', 'OneDrive/Documents'].flatMap((docs) =>
    ['PowerShell', 'WindowsPowerShell'].map((ps) => ({ rel: `${docs}/${ps}`, base: 'home' as const, label: `PowerShell's profile folder ~/${docs}/${ps}` })),
  ),
  // Mercurial: like ~/.gitconfig — [hooks] run on commit/pull, an [alias] starting with `!` is a shell command
  // (hg reads $XDG_CONFIG_HOME/hg/hgrc, ~/.hgrc and, on Windows, ~/mercurial.ini)
  ...['.hgrc', 'mercurial.ini'].map((f) => ({ rel: f, base: 'home' as const, label: `Mercurial's user config ~/${f}`, when: 'hg runs its [hooks] and `!` aliases without asking' })),
  { rel: 'hg', base: 'config', label: "Mercurial's user config folder ~/.config/hg", when: 'hg runs its [hooks] and `!` aliases without asking' },
  // tmux: run-shell and if-shell in its config run at each server start; ~/.tmux/ holds what it sources (TPM's plugins)
  { rel: '.tmux.conf', base: 'home', label: "tmux's config ~/.tmux.conf", when: 'its run-shell lines run at the next tmux start' },
  { rel: '.tmux', base: 'home', label: "tmux's folder ~/.tmux (sourced files, TPM's plugins)", when: 'its run-shell lines run at the next tmux start' },
  { rel: 'tmux', base: 'config', label: "tmux's config folder ~/.config/tmux", when: 'its run-shell lines run at the next tmux start' },
  // debuggers: gdb's init files run `shell`/`python` commands at each start (gdb 11+ also reads ~/.config/gdb/); lldb's alike
  ...['.gdbinit', '.gdbearlyinit', '.lldbinit'].map((f) => ({ rel: f, base: 'home' as const, label: `the debugger's init file ~/${f}`, when: 'the next debugger start runs it without asking' })),
  { rel: 'gdb', base: 'config', label: "gdb's config folder ~/.config/gdb", when: 'the next gdb start runs it without asking' },
  // vim: the vimrc and everything under ~/.vim (plugin/, ftplugin/, after/, autoload/, pack/) is Vim script it runs;
  // Windows spells them _vimrc and vimfiles; Vim 9.1 also reads ~/.config/vim
  ...['.vimrc', '.gvimrc', '.exrc', '_vimrc', '_gvimrc', '.vim', 'vimfiles'].map((f) => ({ rel: f, base: 'home' as const, label: `Vim's start-up ~/${f}`, when: EDITOR })),
  { rel: 'vim', base: 'config', label: "Vim's config folder ~/.config/vim", when: EDITOR },
  // neovim: its config folder, and the data folder its plugin managers install into (site/pack, lazy/) — all run
  { rel: 'nvim', base: 'config', label: "Neovim's config folder ~/.config/nvim", when: EDITOR },
  { rel: 'nvim', base: 'data', label: "Neovim's plugin folder ~/.local/share/nvim", when: EDITOR },
  // Emacs: its init file (the compiled one is loaded when newer), ~/.emacs.d (init.el, elpa/), ~/.config/emacs (27+)
  ...['.emacs', '.emacs.el', '.emacs.elc', '.emacs.d'].map((f) => ({ rel: f, base: 'home' as const, label: `Emacs's start-up ~/${f}`, when: EDITOR })),
  { rel: 'emacs', base: 'config', label: "Emacs's config folder ~/.config/emacs", when: EDITOR },
  // direnv: direnvrc and lib/*.sh run before every .envrc, direnv.toml's [whitelist] allows .envrc files unasked,
  // and its data folder's allow/ entries are the .envrc files the user allowed
  { rel: 'direnv', base: 'config', label: "direnv's config folder ~/.config/direnv", when: 'direnv runs it on the next cd into a folder with an .envrc' },
  { rel: 'direnv', base: 'data', label: "direnv's allow list ~/.local/share/direnv", when: 'direnv runs the .envrc files it lists on the next cd' },
  { rel: '.direnvrc', base: 'home', label: "direnv's start-up file ~/.direnvrc", when: 'direnv runs it on the next cd into a folder with an .envrc' },
  // Cargo: config.toml (build.rustc-wrapper, target.*.runner, [alias]), bin/ (on PATH), env (sourced by ~/.profile),
  // registry/ and git/ (dependency sources whose build.rs runs at the next build): all of ~/.cargo; rustup's
  // toolchains are the rustc and cargo every project runs
  { rel: '', base: 'cargo', label: "Cargo's folder ~/.cargo (config, installed commands, dependency sources)", when: 'the next cargo build or command runs it without asking' },
  { rel: '', base: 'rustup', label: "rustup's folder ~/.rustup (the installed Rust toolchains)", when: 'the next cargo or rustc run runs it without asking' },
  // Yarn: yarnPath (Berry's .yarnrc.yml) and yarn-path (classic .yarnrc) name a JS file every yarn call runs
  ...['.yarnrc.yml', '.yarnrc'].map((f) => ({ rel: f, base: 'home' as const, label: `Yarn's user config ~/${f}`, when: 'its yarnPath runs at every yarn call' })),
  // pip (and uv, conda): no command of their own, but the index URL chooses the packages the next install
  // downloads, and installing runs their build code — a supply-chain switch the user never approved
  ...[
    { rel: 'pip', base: 'config' as const, label: "pip's config folder ~/.config/pip" },
    { rel: '.pip', base: 'home' as const, label: "pip's config folder ~/.pip" },
    { rel: 'Library/Application Support/pip', base: 'home' as const, label: "pip's config folder ~/Library/Application Support/pip" },
    { rel: 'pip', base: 'appdata' as const, label: "pip's config folder %APPDATA%\\pip" },
    { rel: 'uv', base: 'config' as const, label: "uv's config folder ~/.config/uv" },
    { rel: '.condarc', base: 'home' as const, label: "conda's config ~/.condarc" },
  ].map((e) => ({ ...e, when: 'its index URL picks the packages, and so the build code, the next install runs' })),
  // Python's interactive start-up file ($PYTHONSTARTUP when set: see envFiles; ~/.pythonrc.py by convention)
  ...['.pythonrc.py', '.pythonrc'].map((f) => ({ rel: f, base: 'home' as const, label: `Python's start-up file ~/${f}`, when: 'the next interactive python runs it without asking' })),
  // readline has no command of its own, but a macro types keys: one bound to Return can prefix every line the
  // user enters in bash (or any readline prompt) with a command of the model's
  { rel: '.inputrc', base: 'home', label: "readline's key bindings ~/.inputrc", when: 'a macro bound to a key types a command at the next shell prompt' },
]

/** Files an environment variable names (read only when set to an absolute path). */
const ENV_FILES: ReadonlyArray<{ name: string; label: string; when: string }> = [
  { name: 'PYTHONSTARTUP', label: "Python's start-up file ($PYTHONSTARTUP)", when: 'the next interactive python runs it without asking' },
  { name: 'PIP_CONFIG_FILE', label: "pip's config file ($PIP_CONFIG_FILE)", when: 'its index URL picks the packages, and so the build code, the next install runs' },
  { name: 'INPUTRC', label: "readline's key bindings ($INPUTRC)", when: 'a macro bound to a key types a command at the next shell prompt' },
]

/** The environment variables the fence list is read from (startupPaths, $HGRCPATH): its cache key holds each. */
export const STARTUP_ENV = ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'ZDOTDIR', 'APPDATA', 'PYTHONUSERBASE', 'CARGO_HOME', 'RUSTUP_HOME', 'PATH', 'HGRCPATH', ...ENV_FILES.map((e) => e.name)] as const

/** The start-up locations under `home` (`env`: the STARTUP_ENV variables), as absolute paths. */
export function startupPaths(home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): Array<{ file: string; label: string; when?: string; onPath?: true }> {
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
    appdata: withEnv(path.join(home, 'AppData', 'Roaming'), env.APPDATA),
    pyuser: withEnv(path.join(home, '.local'), env.PYTHONUSERBASE),
    cargo: withEnv(path.join(home, '.cargo'), env.CARGO_HOME),
    rustup: withEnv(path.join(home, '.rustup'), env.RUSTUP_HOME),
  }
  const fixed = STARTUP_PATHS.flatMap((s) =>
    bases[s.base].map((b) => ({ file: path.join(b, ...s.rel.split('/').filter(Boolean)), label: s.label, ...(s.when ? { when: s.when } : {}) })),
  )
  const named = ENV_FILES.flatMap((e) => {
    const v = env[e.name]
    return v && path.isAbsolute(v) ? [{ file: path.resolve(v), label: e.label, when: e.when }] : []
  })
  return [...fixed, ...named, ...pathFolders(home, env.PATH)]
}

/**
 * The folders on $PATH inside the home folder (~/.local/bin, ~/bin: Ubuntu's ~/.profile puts them first): a file
 * there is a command the user types — overwriting one keeps its executable mode (atomic-write.ts), and a new one
 * shadows the system's of the same name once made executable. Folders outside the home folder are not the user's
 * to write, or are a project's own (node_modules/.bin).
 * A relative entry (`bin`, `.`, an empty one: the current folder) is looked up from whatever folder the shell is
 * in; it is fenced where a new terminal starts, the home folder (`bin` → ~/bin). In a project folder it names the
 * project's own scripts, which the user runs from there anyway, and a file write or edit makes is never newly
 * executable (a new file gets 0666 less the umask), so only an existing executable changes: left to the project.
 * `.` and an empty entry make the home folder itself a PATH folder: see homeOnPath.
 */
function pathFolders(home: string, envPath: string | undefined): Array<{ file: string; label: string; onPath: true }> {
  return pathEntries(envPath, home)
    .filter((d) => path.resolve(home, d) !== home && isInside(home, path.resolve(home, d)))
    .map((d) => ({
      file: path.resolve(home, d),
      label: path.isAbsolute(d)
        ? `a folder on your PATH (${d}: its files run as commands)`
        : `a folder on your PATH (${d}, relative: ${path.resolve(home, d)} in a terminal opened in the home folder; its files run as commands)`,
      onPath: true,
    }))
}

/**
 * $PATH's entries, an empty one as `.` (the shells read it as the current folder); none when PATH is unset or empty.
 * A literal `~/bin` (a quoted `PATH="~/bin:$PATH"` leaves one) is the home folder's: bash expands it at each lookup.
 */
function pathEntries(envPath: string | undefined, home: string): string[] {
  return envPath ? envPath.split(path.delimiter).map((d) => (d === '~' || d.startsWith('~/') ? path.join(home, d.slice(1)) : d || '.')) : []
}

/**
 * Whether the home folder itself is on $PATH (by its path, `.` or an empty entry — a terminal starts there). It is
 * not fenced whole (every note in it would be), but an existing executable file directly in it is a command the
 * user's next terminal runs by name, and a write or edit keeps its mode: that is refused (homeExecutable).
 */
function homeOnPath(home: string, envPath: string | undefined): boolean {
  return pathEntries(envPath, home).some((d) => path.resolve(home, d) === home)
}

/** Whether `abs` (a real path) is an existing executable directly in the home folder while that is on $PATH. */
export function homeExecutableOnPath(abs: string, home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): boolean {
  return onPathExecutable(abs, resolveFences(home, env).homeOnPath)
}

function onPathExecutable(abs: string, homeOnPathKey: string | undefined): boolean {
  return homeOnPathKey !== undefined && fenceKey(path.dirname(abs)) === homeOnPathKey && isExecutableFile(abs)
}

/** An existing file with an executable bit (lstat: a link is replaced by the write, not followed). */
function isExecutableFile(abs: string): boolean {
  try {
    const st = fs.lstatSync(abs)
    return st.isFile() && (st.mode & 0o111) !== 0
  } catch {
    return false
  }
}

/** A start-up location by the key paths.ts compares fences with (fenceKey of its real path). */
export interface StartupFence {
  key: string
  /** a single file (what ~/.gitconfig includes): only that name; otherwise the path and all under it */
  fileOnly: boolean
  /** what it is ("shell start-up file ~/.bashrc", "a config file git includes /home/u/dot/extra") */
  label: string
  /** the refusal's reason, after `writing "…" is refused: ` */
  reason: string
  /**
   * a folder on $PATH: the home folder's key. Inside a workspace that does not hold the home folder it is the
   * project's own (direnv's `PATH_add bin`, a venv's bin, node_modules/.bin): the user put it there for that project
   */
  onPathHome?: string
}

/**
 * How long a computed fence list is reused. Each fence's real path costs a realpath per missing level (~0.5 ms for
 * the list on an idle machine, several times that on a busy one), and a write checks twice (atomic-write.ts, before
 * and after the temp file; an edit once more before it reads) — a batch of small writes spent more time here than
 * writing. What makes a cached list stale is a symlink or a ~/.gitconfig change outside the file tools (they write
 * neither): the user's own, or an exec command the user approved (which could write the start-up file directly).
 * The key holds the environment the list is read from and ~/.gitconfig's stat, so those count at once.
 */
const CACHE_MS = 2_000
let cached: { key: string; at: number; fences: StartupFence[]; relHooks: RelativeHooks[]; homeOnPath?: string } | undefined

/** A relative core.hooksPath from git's user-wide config: a hooks folder in every working tree (git-hooks-relative.ts). */
export interface RelativeHooks {
  rel: string
  from: string
}

// (throwIfNoEntry: most of these files do not exist, and a thrown ENOENT costs more than the stat)
function statSig(file: string): string {
  try {
    const st = fs.statSync(file, { throwIfNoEntry: false })
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-'
  } catch {
    return '-'
  }
}

/**
 * paths.ts realOrPlanned with its folders' answers remembered for one resolve: some 90 locations share a few
 * parents (~/.config, ~/.local/share), and each missing one cost a failed realpath per location that walked it.
 */
function plannedMemo(): (p: string) => string {
  const memo = new Map<string, string>()
  const planned = (p: string): string => {
    const abs = path.resolve(p)
    let real = memo.get(abs)
    if (real !== undefined) return real
    try {
      real = fs.realpathSync.native(abs)
    } catch {
      const parent = path.dirname(abs)
      real = parent === abs ? abs : path.join(planned(parent), path.basename(abs))
    }
    memo.set(abs, real)
    return real
  }
  return planned
}

/** The start-up locations and what git's user-wide config pulls in, resolved (see CACHE_MS). */
export function startupFences(home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): StartupFence[] {
  return resolveFences(home, env).fences
}

/** The relative core.hooksPath values git's user-wide config (and what it includes) sets, read with the fences. */
export function relativeHooksPaths(home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): RelativeHooks[] {
  return resolveFences(home, env).relHooks
}

function resolveFences(home: string, env: NodeJS.ProcessEnv): { fences: StartupFence[]; relHooks: RelativeHooks[]; homeOnPath?: string } {
  const roots = userGitConfigFiles(home, env.XDG_CONFIG_HOME, env.GIT_CONFIG_GLOBAL)
  const hgRoots = userHgrcFiles(home, env)
  const key = [home, ...STARTUP_ENV.map((k) => env[k]), ...[...roots, ...hgRoots].map((r) => `${r}=${statSig(r)}`)].join('\0')
  const now = Date.now()
  if (cached && cached.key === key && now - cached.at >= 0 && now - cached.at < CACHE_MS) return cached
  const realOrPlanned = plannedMemo()
  const homeKey = fenceKey(realOrPlanned(home))
  const refs = gitConfigRefs(home, roots)
  const fences: StartupFence[] = [
    ...startupPaths(home, env).map((s) => ({
      key: fenceKey(realOrPlanned(s.file)),
      fileOnly: false,
      label: s.label,
      reason: `${s.label} runs commands outside approval (${s.when ?? 'the next shell, login or session runs it without asking'})`,
      ...(s.onPath ? { onPathHome: homeKey } : {}),
    })),
    // $HGRCPATH's entries (read instead of ~/.hgrc) and what hg's user config %includes
    ...hgrcPathEntries(env).map((file) => ({
      key: fenceKey(realOrPlanned(file)),
      fileOnly: false,
      label: `Mercurial's config ${file} ($HGRCPATH)`,
      reason: `Mercurial's config ${file} ($HGRCPATH) runs commands outside approval (hg runs its [hooks] and \`!\` aliases without asking)`,
    })),
    ...hgrcIncludes(home, hgRoots, env).map((r) => ({
      key: fenceKey(realOrPlanned(r.file)),
      fileOnly: true,
      label: `a config file Mercurial includes ${r.file}`,
      reason: `it is a config file Mercurial includes (from ${r.from}), which names commands hg runs outside approval`,
    })),
    ...refs.filter((r) => !r.relative).map((r) => ({
      key: fenceKey(realOrPlanned(r.file)),
      fileOnly: !r.folder,
      label: `${r.why} ${r.file}`,
      reason: `it is ${r.why} (from ${r.from}), which names commands git runs outside approval`,
    })),
  ]
  cached = {
    key,
    at: now,
    fences,
    relHooks: refs.filter((r) => r.relative).map((r) => ({ rel: r.file, from: r.from })),
    ...(homeOnPath(home, env.PATH) ? { homeOnPath: homeKey } : {}),
  }
  return cached
}

/**
 * Whether a workspace (`rootKey`: the fenceKey of its real path) owns fence `f`, so that what lies in both is the
 * user's to edit there: a start-up folder the workspace is or lies in (~/.config/nvim, ~/bin opened as the
 * project), and a PATH folder inside a project workspace that does not hold the home folder (its bin/ on PATH).
 */
export function workspaceOwns(f: StartupFence, rootKey: string): boolean {
  if (!f.fileOnly && isInside(f.key, rootKey)) return true
  return f.onPathHome !== undefined && isInside(rootKey, f.key) && !isInside(rootKey, f.onPathHome)
}

/**
 * Throws when `abs` (a real path, or the real path a file not made yet will have) is a start-up file or lies in a
 * start-up folder, or is a file or folder git's user-wide config pulls in. Compared as paths.ts compares fences:
 * case-, normalization-, trailing-dot- and NTFS-stream-insensitive, so a new `.BASHRC` on macOS is the one bash reads.
 * `root`, the workspace's real path: a start-up folder the workspace is (or lies in) is the project the user
 * opened — ~/.config/fish, ~/bin, a project folder that is on $PATH — and does not fence the whole workspace off
 * (nor does a PATH folder inside a project workspace that does not hold the home folder: its bin/ put on PATH by direnv),
 * as a workspace inside Loopdesk's state folder is not fenced from it (paths.ts privateFences); the fences inside
 * a workspace (a home-folder one) still hold.
 */
export function refuseStartupWrite(abs: string, shown: string, root?: string): void {
  const target = fenceKey(abs)
  const rootKey = root === undefined ? undefined : fenceKey(root)
  // one resolve for the three checks below: each looks the cached list up by its key, which stats the config files
  const resolved = resolveFences(os.homedir(), process.env)
  for (const f of resolved.fences) {
    if (!(f.fileOnly ? f.key === target : isInside(f.key, target))) continue
    if (rootKey !== undefined && workspaceOwns(f, rootKey)) continue
    throw new WorkspaceEscapeError(
      `Access denied: writing "${shown}" is refused: ${f.reason}. Reading it is fine; change it through exec, which the user approves.`,
    )
  }
  // the home folder on PATH (`.`, an empty entry): its existing executables are commands a new terminal runs
  if (onPathExecutable(abs, resolved.homeOnPath)) {
    throw new WorkspaceEscapeError(
      `Access denied: writing "${shown}" is refused: it is an executable file in your home folder, which is on your PATH (a terminal opened there runs it by name), and a write keeps its executable mode. Change it through exec, which the user approves.`,
    )
  }
  // a relative core.hooksPath: that folder in each git working tree holds hooks the user's next commit runs
  for (const h of resolved.relHooks) {
    const dir = relativeHooksFolder(abs, h.rel)
    if (dir === undefined || (rootKey !== undefined && isInside(fenceKey(dir), rootKey))) continue
    throw new WorkspaceEscapeError(
      `Access denied: writing "${shown}" is refused: it is in ${dir}, this repository's hooks folder (core.hooksPath = ${h.rel} in ${h.from}), ` +
        'whose hooks git runs outside approval. Reading it is fine; change it through exec, which the user approves.',
    )
  }
}
