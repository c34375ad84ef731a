// Runs `/bin/sh -c` as the leader of its own process group, so the whole tree (including background
// grandchildren) can be killed at once with kill(-pgid). A process that leaves the group (`setsid`,
// `nohup setsid …`, a daemonizing server) is still found on Linux: every command's environment carries a
// random LOOPDESK_EXEC_ID that its descendants inherit, and a kill also ends the processes whose
// /proc/<pid>/environ holds it. A command that also clears its environment (`env -i setsid …`) is found by
// its parent links instead: at kill time the shell's descendants are read from /proc/*/stat (before any
// kill — a dead parent's children are re-parented and the link is gone).
//
// Re-parenting is what let a process escape: one whose parent exited before the kill (a double fork,
// `(env -i setsid cmd &)`) went to init, with neither group, tag nor link. On Linux x86-64/arm64 the shell
// is therefore made a child subreaper (prctl PR_SET_CHILD_SUBREAPER, kept across its exec of /bin/sh): an
// orphan below it is re-parented to the shell instead of init, so the parent links still lead to it while
// the command runs. Node has no prctl and a native addon is not wanted, so perl does the one syscall and
// execs the shell (perl-base is an Essential package on Debian/Ubuntu and present on nearly every distro);
// without perl, or on another architecture, the shell starts as before and such an orphan still escapes.
// Cost: ~4 ms more per command (perl's start, measured on a loaded 2-core box). The role goes with the pid,
// so a program the shell execs in its place holds it: an adopted orphan that exits is reaped by sh's wait,
// or, under a program that waits only for its own children, stays a zombie until that program exits.
// Not chosen: a PID namespace (`unshare --user --pid --fork --kill-child`) would kill the whole tree with
// its init, but it needs unprivileged user namespaces (refused by AppArmor on recent Ubuntu desktops), and
// inside one every file not owned by the user shows as nobody and setuid programs (sudo) stop working;
// `systemd-run --user --scope` needs a user bus (absent in containers and headless boxes). Still escaping:
// what a process hands to a service manager (systemd-run, a daemon's own supervisor) — not its descendant.
// This is cleanup of runaway work, not a sandbox. macOS/Windows have no procfs: the group kill is all there is.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'

export const EXEC_ID_VAR = 'LOOPDESK_EXEC_ID'

const tags = new WeakMap<ChildProcess, string>()

export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  const tag = randomBytes(12).toString('hex')
  const shellEnv = { ...env, [EXEC_ID_VAR]: tag }
  const perl = subreaperPerl()
  const [file, args, spawnEnv] = perl ? reaperLaunch(perl, command, shellEnv) : ['/bin/sh', ['-c', command], shellEnv]
  const child = spawn(file, args, {
    cwd,
    env: spawnEnv,
    detached: true, // setsid(): new session + process group led by the shell
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  tags.set(child, tag)
  return child
}

/** prctl's syscall number where the subreaper launch is known to work (Node's names for the architectures) */
const PRCTL_SYSCALL: Partial<Record<string, number>> = { x64: 157, arm64: 167 }
const PR_SET_CHILD_SUBREAPER = 36
let perlPath: string | null | undefined

/** The perl that makes the shell a subreaper, or undefined where that launch is unavailable. */
export function subreaperPerl(): string | undefined {
  if (perlPath === undefined) {
    perlPath = null
    if (process.platform === 'linux' && PRCTL_SYSCALL[process.arch] !== undefined) {
      for (const p of ['/usr/bin/perl', '/bin/perl']) {
        try {
          fs.accessSync(p, fs.constants.X_OK)
          perlPath = p
          break
        } catch {
          // not here
        }
      }
    }
  }
  return perlPath ?? undefined
}

/**
 * perl: prctl(PR_SET_CHILD_SUBREAPER, 1), then exec /bin/sh -c COMMAND in its place (same pid, so the group,
 * the pid Node knows and the parent links are the shell's). A failed prctl still runs the command. PERL5OPT
 * (could load modules or the debugger into the one-liner) is taken from perl's environment and put back
 * for the shell.
 */
function reaperLaunch(perl: string, command: string, env: NodeJS.ProcessEnv): [string, string[], NodeJS.ProcessEnv] {
  const script =
    `syscall(${PRCTL_SYSCALL[process.arch]}, ${PR_SET_CHILD_SUBREAPER}, 1, 0, 0, 0);` +
    `my $c = shift; $ENV{PERL5OPT} = shift if @ARGV;` +
    `exec { '/bin/sh' } '/bin/sh', '-c', $c; print STDERR "failed to start /bin/sh: $!\n"; exit 127`
  const { PERL5OPT, ...rest } = env
  return [perl, ['-e', script, '--', command, ...(PERL5OPT === undefined ? [] : [PERL5OPT])], rest]
}

/** SIGKILL the child's whole process group and what left it; falls back to the child alone. Never throws. */
export function killTree(child: ChildProcess): void {
  const pid = child.pid
  if (!pid) return
  // Only while the shell is unreaped: after its exit event its pid may belong to someone else (and its
  // children were re-parented anyway). Freeze the tree first so nothing forks between the snapshot and the
  // kill, then look once more for children forked just before the freeze.
  if (child.exitCode === null && child.signalCode === null) {
    const tree = new Set(treeOf(pid))
    signalAll(tree, 'SIGSTOP')
    const stragglers = treeOf(pid).filter((p) => !tree.has(p))
    signalAll(stragglers, 'SIGSTOP')
    signalAll([...tree, ...stragglers], 'SIGKILL')
  }
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    try {
      child.kill('SIGKILL')
    } catch {
      // already gone
    }
  }
  const tag = tags.get(child)
  // a few passes: a process may fork between the scan and the kill
  if (tag) for (let pass = 0; pass < 3 && killTagged(tag) > 0; pass++);
}

/** `root` and its descendants now; empty without procfs or when `root` is not listed. */
function treeOf(root: number): number[] {
  const links = parentLinks()
  return links.has(root) ? descendantsOf(root, links) : []
}

function signalAll(pids: Iterable<number>, sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig)
    } catch {
      // gone meanwhile, or not ours
    }
  }
}

/** pid → parent pid of every process in `procDir` (Linux); empty without procfs. */
export function parentLinks(procDir = '/proc'): Map<number, number> {
  const links = new Map<number, number>()
  let names: string[]
  try {
    names = fs.readdirSync(procDir)
  } catch {
    return links
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = fs.readFileSync(`${procDir}/${name}/stat`, 'utf8')
    } catch {
      continue // exited meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (Number.isInteger(ppid)) links.set(Number(name), ppid)
  }
  return links
}

/** `root` and every process below it by parent links (root first; only root when it is not listed). */
export function descendantsOf(root: number, links: Map<number, number>): number[] {
  const children = new Map<number, number[]>()
  for (const [pid, ppid] of links) {
    const list = children.get(ppid)
    if (list) list.push(pid)
    else children.set(ppid, [pid])
  }
  const out = [root]
  for (let i = 0; i < out.length; i++) for (const c of children.get(out[i]) ?? []) if (c !== process.pid) out.push(c)
  return out
}

/** SIGKILLs the live processes whose environment holds `LOOPDESK_EXEC_ID=<tag>`; returns how many (Linux). */
export function killTagged(tag: string, procDir = '/proc'): number {
  let names: string[]
  try {
    names = fs.readdirSync(procDir)
  } catch {
    return 0 // no procfs (macOS, Windows): the process group kill is all there is
  }
  const needle = Buffer.from(`\0${EXEC_ID_VAR}=${tag}\0`)
  let killed = 0
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    let environ: Buffer
    try {
      // another user's processes are unreadable: they cannot be ours
      environ = fs.readFileSync(`${procDir}/${name}/environ`)
    } catch {
      continue
    }
    // the variable may be the first one (no NUL before it)
    const hit = environ.includes(needle) || environ.subarray(0, needle.length - 1).equals(needle.subarray(1))
    if (!hit) continue
    try {
      process.kill(Number(name), 'SIGKILL')
      killed++
    } catch {
      // gone meanwhile
    }
  }
  return killed
}
