// One rule for "the process a record names still runs and is the one that wrote it", for gateway.json and the
// runtime records under gateway/runtimes/ alike. A pid alone proves nothing: the OS hands a dead gateway's pid to
// the next process, so an old (or forged) record would make the CLI talk to — or `gateway run` give way to — a
// process that merely reuses it. Where this process can read start times (Linux /proc), a record must carry the
// start time the kernel reports for its pid. A record without one (this app's versions before pidStart was
// written) still counts when its process started no later than the record was written: a process that took the
// pid over afterwards started later. Elsewhere (macOS, Windows) only the pid can be checked.
import { readFileSync } from 'node:fs'
import { isPidAlive, ownProcessStartTime, processStartTime } from '../runtime/sessions/process-info'

export interface ProcessRecord {
  pid: number
  /** the kernel's start time of `pid` when the record was written (clock ticks since boot, as /proc tells it) */
  pidStart?: string
  /** Date.now() when the record was written (0: unknown) */
  startedAt?: number
}

/**
 * Clock ticks per second in /proc's start times: USER_HZ, 100 on every architecture Node runs on (the kernel's own
 * HZ is hidden from user space behind it).
 */
const USER_HZ = 100
/** /proc/stat's btime is whole seconds, and a process starts a moment before it writes its record. */
const SLACK_MS = 3_000

/** Boot time in ms since the epoch (Linux), from /proc/stat's btime; undefined where unavailable. */
function bootTimeMs(): number | undefined {
  try {
    const m = /^btime\s+(\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))
    return m ? Number(m[1]) * 1000 : undefined
  } catch {
    return undefined
  }
}

/** When a process with this /proc start time started, in ms since the epoch; undefined when not known. */
export function startTimeMs(pidStart: string): number | undefined {
  const boot = bootTimeMs()
  const ticks = Number(pidStart)
  if (boot === undefined || !Number.isFinite(ticks)) return undefined
  return boot + (ticks * 1000) / USER_HZ
}

/** True when the process `info` names runs and is the one that wrote the record (see the file's comment). */
export function recordedProcessAlive(info: ProcessRecord): boolean {
  if (!isPidAlive(info.pid)) return false
  if (ownProcessStartTime() === undefined) return true
  const now = processStartTime(info.pid)
  if (now === undefined) return false // hidden from us (hidepid): nothing verifies it
  if (info.pidStart !== undefined) return now === info.pidStart
  if (!info.startedAt) return false
  const started = startTimeMs(now)
  return started !== undefined && started <= info.startedAt + SLACK_MS
}
