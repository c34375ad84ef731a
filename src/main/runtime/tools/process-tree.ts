// Runs `/bin/sh -c` as the leader of its own process group, so the whole tree (including background
// grandchildren) can be killed at once with kill(-pgid).
import { spawn, type ChildProcess } from 'node:child_process'

export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('/bin/sh', ['-c', command], {
    cwd,
    env,
    detached: true, // setsid(): new session + process group led by the shell
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** SIGKILL the child's whole process group; falls back to the child alone. Never throws. */
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
}
