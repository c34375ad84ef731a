// Archived transcripts (`<sessionId>.jsonl.<reason>.<time>`: what /new, /reset and deleting a session keep)
// would pile up forever. The runtime removes those past a retention age on its own — a pass at start-up, then
// periodically — as OpenClaw's session maintenance does (`session.maintenance.resetArchiveRetention`, 30 days
// by default). `session.archiveRetentionDays` sets the age; 0 switches it off. `loopdesk sessions prune`
// is the on-request variant. Only names an archive has are looked at: a live `<id>.jsonl`, sessions.json,
// journals and anything else are never touched. Attachments only a removed archive named go with the next
// media pass.
import fs from 'node:fs'
import path from 'node:path'
import { sessionDirs } from '../media/reference-scan'
import { archivedAt } from './paths'
import { schedulePeriodicPass, type PeriodicPass } from '../periodic-pass'

export const DAY_MS = 86_400_000

export interface ArchivedTranscript {
  file: string
  /** when its name says it was archived */
  archivedAt: number
  /** last modified (a restored or copied archive is newer than its name) */
  mtimeMs: number
  bytes: number
}

/** Every archived transcript under `<stateDir>/agents/<id>/sessions/`, oldest archive first. */
export async function listArchivedTranscripts(stateDir: string): Promise<ArchivedTranscript[]> {
  const out: ArchivedTranscript[] = []
  for (const dir of await sessionDirs(stateDir)) {
    let names: string[]
    try {
      names = await fs.promises.readdir(dir)
    } catch {
      continue // an agent folder removed meanwhile
    }
    for (const name of names) {
      const at = archivedAt(name)
      if (at === undefined) continue
      const file = path.join(dir, name)
      const st = await fs.promises.lstat(file).catch(() => undefined)
      // a symlink or folder with an archive's name is not ours to delete
      if (st?.isFile()) out.push({ file, archivedAt: at, mtimeMs: st.mtimeMs, bytes: st.size })
    }
  }
  return out.sort((a, b) => a.archivedAt - b.archivedAt)
}

export interface PruneReport {
  removed: string[]
  bytes: number
  /** archives past retention that could not be deleted (in use on Windows, no permission): tried next pass */
  failed: number
}

/**
 * Deletes the archived transcripts older than `retentionDays` — by both the time in the name and the file's
 * mtime, so everything younger (what chat.history's earlier-transcripts lookup can still serve within
 * retention) stays. `retentionDays <= 0` deletes nothing.
 */
export async function pruneArchivedTranscripts(stateDir: string, retentionDays: number, now = Date.now()): Promise<PruneReport> {
  const report: PruneReport = { removed: [], bytes: 0, failed: 0 }
  if (!(retentionDays > 0)) return report
  const cutoff = now - retentionDays * DAY_MS
  for (const a of await listArchivedTranscripts(stateDir)) {
    if (Math.max(a.archivedAt, a.mtimeMs) >= cutoff) continue
    try {
      await fs.promises.unlink(a.file)
      report.removed.push(a.file)
      report.bytes += a.bytes
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') report.failed++
    }
  }
  return report
}

export interface ArchivePrunerOptions {
  stateDir: string
  /** read at each pass, so a config change applies to the next one */
  retentionDays: () => number
  /** between passes (default 6 h) */
  intervalMs?: number
  /** first pass this long after start() (default 0: start() is called once crash recovery is done) */
  startDelayMs?: number
  log?: Pick<Console, 'info' | 'warn'>
}

export const ARCHIVE_PRUNE_DEFAULTS = { intervalMs: 6 * 60 * 60_000, startDelayMs: 0 } as const

/** Runs pruneArchivedTranscripts after start-up and then periodically (timers never keep the process alive). */
export class ArchivePruner {
  private schedule: PeriodicPass | undefined
  private running: Promise<PruneReport | undefined> | undefined
  private stopped = false
  private readonly log: Pick<Console, 'info' | 'warn'>

  constructor(private readonly opts: ArchivePrunerOptions) {
    this.log = opts.log ?? console
  }

  start(): void {
    if (this.schedule || this.stopped) return
    this.schedule = schedulePeriodicPass(
      this.opts.startDelayMs ?? ARCHIVE_PRUNE_DEFAULTS.startDelayMs,
      this.opts.intervalMs ?? ARCHIVE_PRUNE_DEFAULTS.intervalMs,
      () => this.sweep(),
      () => this.stopped,
    )
  }

  /** One pass (never two at once); undefined when it failed or the pruner is stopped. */
  sweep(): Promise<PruneReport | undefined> {
    if (this.stopped) return Promise.resolve(undefined)
    if (!this.running) {
      const run = this.pass()
      this.running = run
      void run.finally(() => {
        if (this.running === run) this.running = undefined
      })
    }
    return this.running
  }

  private async pass(): Promise<PruneReport | undefined> {
    try {
      const r = await pruneArchivedTranscripts(this.opts.stateDir, this.opts.retentionDays())
      if (r.removed.length) {
        this.log.info(`[runtime] sessions: removed ${r.removed.length} archived transcript(s) past retention, ${(r.bytes / 1024 / 1024).toFixed(1)} MB`)
      }
      if (r.failed) this.log.warn(`[runtime] sessions: ${r.failed} archived transcript(s) past retention could not be deleted`)
      return r
    } catch (err) {
      this.log.warn('[runtime] sessions: archive pruning failed:', (err as Error).message)
      return undefined
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.schedule?.cancel()
    await this.running
  }
}
