// Runs `/bin/sh -c` as the leader of its own process group, so the whole tree (including background
// grandchildren) can be killed at once with kill(-pgid). A process that leaves the group (`setsid`,
// `nohup setsid …`, a daemonizing server) is still found on Linux: every command's environment carries a
// random LOOPDESK_EXEC_ID that its descendants inherit, and a kill also ends the processes whose
// /proc/<pid>/environ holds it. (A command that clears its environment on purpose can still escape; this
// is cleanup of runaway work, not a sandbox.)
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
