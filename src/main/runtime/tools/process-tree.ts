// Runs `/bin/sh -c` as the leader of its own process group, so the whole tree (including background
// grandchildren) can be killed at once with kill(-pgid). A process that leaves the group (`setsid`,
// `nohup setsid …`, a daemonizing server) is still found on Linux: every command's environment carries a
// random LOOPDESK_EXEC_ID that its descendants inherit, and a kill also ends the processes whose
// /proc/<pid>/environ holds it. A command that also clears its environment (`env -i setsid …`) is found by
// its parent links instead: at kill time the shell's descendants are read from /proc/*/stat (before any
// kill — a dead parent's children are re-parented and the link is gone). A process already re-parented
// before the kill (its parent exited) with a cleared environment still escapes: this is cleanup of runaway
// work, not a sandbox. macOS/Windows have no procfs: the process group kill is all there is.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'

export const EXEC_ID_VAR = 'LOOPDESK_EXEC_ID'

const tags = new WeakMap<ChildProcess, string>()

export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  const tag = randomBytes(12).toString('hex')
  const child = spawn('/bin/sh', ['-c', command], {
    cwd,
    env: { ...env, [EXEC_ID_VAR]: tag },
    detached: true, // setsid(): new session + process group led by the shell
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  tags.set(child, tag)
  return child
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
