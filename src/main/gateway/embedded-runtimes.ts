// Runtimes on a state dir: a `loopdesk agent --local` run, the desktop app (whose gateway may not have started
// yet, or failed to) and `loopdesk gateway run` (claimed before its runtime is built: gateway.json is written only
// once it listens, and a `--local` run starting meanwhile read "none" there) each leave a record — `gateway/runtimes/<pid>.json`, pid and kernel
// start time, as gateway.json does — so `gateway run`, the app and another `--local` run see them and never put
// a second runtime on the folder. Under gateway/ because backup and restore leave that folder out: a copied
// record of a live pid would make the restored folder look in use. A stale record (its process gone, or its pid
// now another process's) never blocks: it is removed when found. Where the OS tells start times (Linux), a record
// counts only when its start time matches the live process's: one without a start time, or naming a pid whose start
// cannot be read (another user's, a hidden /proc), cannot be told from a forged or recycled one, and a planted
// record naming any live process (the shell, init) would otherwise block every `agent --local` for good.
import { lstatSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { readSmallRegularFile } from '../runtime/read-small-file'
import { ownProcessStartTime } from '../runtime/sessions/process-info'
import { recordedProcessAlive } from './record-alive'
import { gatewayDir, withGatewayRecordLock, writeFileAtomic } from './state-files'

export interface EmbeddedRuntimeInfo {
  pid: number
  /** the process's kernel start time (Linux): a pid reused by another process does not match it */
  pidStart?: string
  /** the desktop app, `loopdesk agent --local`, or `loopdesk gateway run` (from before its runtime is built) */
  launchedBy: 'app' | 'local' | 'gateway'
  startedAt: number
}

const runtimesDir = (stateDir: string) => join(gatewayDir(stateDir), 'runtimes')
const recordPath = (stateDir: string, pid: number) => join(runtimesDir(stateDir), `${pid}.json`)

/**
 * Records this process's runtime on `stateDir`; the returned function removes the record (shutdown). A process
 * that exits without calling it (process.exit, a second signal) removes it from its 'exit' hook.
 */
export function registerEmbeddedRuntime(stateDir: string, launchedBy: EmbeddedRuntimeInfo['launchedBy']): () => void {
  const file = recordPath(stateDir, process.pid)
  const info: EmbeddedRuntimeInfo = { pid: process.pid, launchedBy, startedAt: Date.now() }
  const start = ownProcessStartTime()
  if (start !== undefined) info.pidStart = start
  mkdirSync(runtimesDir(stateDir), { recursive: true, mode: 0o700 })
  writeFileAtomic(file, JSON.stringify(info) + '\n', 0o600)
  const remove = () => {
    process.off('exit', remove)
    removeRecordFile(file)
  }
  process.on('exit', remove)
  return remove
}

/** Another runtime's live record was found by claimEmbeddedRuntime: this one must not start. */
export class RuntimeInUseError extends Error {
  constructor(readonly holder: EmbeddedRuntimeInfo) {
    super(`${embeddedRuntimeName(holder)} already uses this state dir`)
    this.name = 'RuntimeInUseError'
  }
}

/**
 * The in-use check and this process's record as one step across processes: two \`agent --local\` runs (or the app
 * and one) starting at the same moment both read "none" and both recorded themselves and ran. Taken under
 * gateway.json's record lock (as claimGatewayInfo takes it), so of two starting together the second sees the
 * first's record. Returns the record's remover; throws RuntimeInUseError when another live runtime holds the
 * folder, and the fs error when the record cannot be written.
 */
export function claimEmbeddedRuntime(stateDir: string, launchedBy: EmbeddedRuntimeInfo['launchedBy'], handoff?: number): () => void {
  mkdirSync(runtimesDir(stateDir), { recursive: true, mode: 0o700 })
  return withGatewayRecordLock(stateDir, () => {
    // `handoff`: the pid that claimed the folder for this process (the launcher of `gateway run`): its record is
    // this one's to take over, in the same locked step
    const holder = liveEmbeddedRuntime(stateDir, handoff)
    if (holder) throw new RuntimeInUseError(holder)
    const remove = registerEmbeddedRuntime(stateDir, launchedBy)
    if (handoff !== undefined) removeRecordFile(recordPath(stateDir, handoff))
    return remove
  })
}

/** A runtime of another live process (not `except`) recorded on `stateDir` (the oldest), else undefined; stale records go. */
export function liveEmbeddedRuntime(stateDir: string, except?: number): EmbeddedRuntimeInfo | undefined {
  let names: string[]
  try {
    names = readdirSync(runtimesDir(stateDir))
  } catch {
    return undefined
  }
  const live: EmbeddedRuntimeInfo[] = []
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue
    const file = join(runtimesDir(stateDir), name)
    let info: EmbeddedRuntimeInfo | undefined
    try {
      info = parse(JSON.parse(readRecord(file)))
    } catch {
      continue // being written (atomic: never torn) or removed meanwhile; or no record at all
    }
    if (!info || info.pid === process.pid || info.pid === except) continue
    if (recordedProcessAlive(info)) live.push(info)
    else removeRecordFile(file)
  }
  return live.sort((a, b) => a.startedAt - b.startedAt)[0]
}

// the rule for every runtime record and gateway.json: record-alive.ts
export { recordedProcessAlive }

/** Removes a record only if it is still a regular file: a FIFO, a symlink or a folder under a record's name is left. */
function removeRecordFile(file: string): void {
  try {
    if (lstatSync(file).isFile()) unlinkSync(file)
  } catch {
    // gone meanwhile, or the folder is not ours to change: the record stays stale and is skipped again
  }
}

/**
 * A record's text. Records are regular files (written by rename): anything else under that name — a FIFO, which
 * blocked every `gateway run`, `agent --local` and app start on open() for good, or a symlink to /dev/zero — is
 * refused (throws), opened without following a symlink and without waiting for a FIFO's writer.
 */
function readRecord(file: string): string {
  return readSmallRegularFile(file, 4096, { noFollow: true })
}

function parse(v: unknown): EmbeddedRuntimeInfo | undefined {
  const o = v as Partial<EmbeddedRuntimeInfo> | null
  if (!o || typeof o.pid !== 'number' || (o.launchedBy !== 'app' && o.launchedBy !== 'local' && o.launchedBy !== 'gateway')) return undefined
  const info: EmbeddedRuntimeInfo = { pid: o.pid, launchedBy: o.launchedBy, startedAt: typeof o.startedAt === 'number' ? o.startedAt : 0 }
  if (typeof o.pidStart === 'string') info.pidStart = o.pidStart
  return info
}

/** What the runtime is, for a one-line refusal: "the desktop app (pid 12)". */
export function embeddedRuntimeName(info: EmbeddedRuntimeInfo): string {
  if (info.launchedBy === 'app') return `the Loopdesk app (pid ${info.pid})`
  if (info.launchedBy === 'gateway') return `a \`loopdesk gateway run\` (pid ${info.pid})`
  return `a \`loopdesk agent --local\` run (pid ${info.pid})`
}
