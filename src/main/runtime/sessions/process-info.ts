// Liveness of lock holders. A pid alone can be recycled by the OS after a crash, so on Linux the
// process start time (field 22 of /proc/<pid>/stat) is recorded too and compared.
import fs from 'node:fs'

export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists but belongs to someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Kernel start time of a process (clock ticks since boot) as a string; undefined where unavailable. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] // field 22 overall; fields[0] is field 3
  } catch {
    return undefined
  }
}

let ownStartTime: string | undefined | null = null
export function ownProcessStartTime(): string | undefined {
  if (ownStartTime === null) ownStartTime = processStartTime(process.pid)
  return ownStartTime
}
