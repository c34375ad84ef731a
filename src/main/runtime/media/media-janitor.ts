// When inbound media is collected: a pass shortly after start-up, then periodically, plus a targeted pass
// for the files a deleted transcript named. Passes run one at a time (never two over the same files), in
// the background, and stop at the runtime's shutdown.
import fs from 'node:fs'
import { schedulePeriodicPass, type PeriodicPass } from '../periodic-pass'
import { collectInboundMedia, transcriptUuids, type CollectOptions, type CollectReport } from './media-gc'

export interface MediaJanitorOptions {
  stateDir: string
  /** only files last changed this long ago may go (default 1 h) */
  graceMs?: number
  /** between periodic passes (default 1 h) */
  intervalMs?: number
  /** first pass this long after start() (default 30 s: start-up and crash recovery come first) */
  startDelayMs?: number
  pendingRefs?: CollectOptions['pendingRefs']
  log?: Pick<Console, 'info' | 'warn'>
}

export const MEDIA_GC_DEFAULTS = { graceMs: 60 * 60_000, intervalMs: 60 * 60_000, startDelayMs: 30_000 } as const

export class MediaJanitor {
  private chain: Promise<unknown> = Promise.resolve()
  private schedule: PeriodicPass | undefined
  private readonly abort = new AbortController()
  private readonly graceMs: number
  private readonly log: Pick<Console, 'info' | 'warn'>

  constructor(private readonly opts: MediaJanitorOptions) {
    this.graceMs = opts.graceMs ?? MEDIA_GC_DEFAULTS.graceMs
    this.log = opts.log ?? console
  }

  /** Schedules the start-up pass and the periodic ones (timers never keep the process alive). */
  start(): void {
    if (this.schedule || this.abort.signal.aborted) return
    this.schedule = schedulePeriodicPass(
      this.opts.startDelayMs ?? MEDIA_GC_DEFAULTS.startDelayMs,
      this.opts.intervalMs ?? MEDIA_GC_DEFAULTS.intervalMs,
      () => this.sweep(),
      () => this.abort.signal.aborted,
    )
  }

  /** A full pass (grace age applies). Resolves with what it did, or undefined when it failed or was stopped. */
  sweep(): Promise<CollectReport | undefined> {
    return this.enqueue('sweep', { graceMs: this.graceMs })
  }

  /**
   * Removes those of the given uuids' files that nothing references any more. For files a deleted transcript
   * named: those were saved long before, so no grace age (the reference check still covers everything).
   */
  release(uuids: Iterable<string>): Promise<CollectReport | undefined> {
    const only = new Set(uuids)
    if (only.size === 0) return Promise.resolve(undefined)
    return this.enqueue('release', { graceMs: 0, only })
  }

  /**
   * Deletes a transcript file, then (in the background) the inbound files only it named. The names are read
   * first; a crash between the two leaves those files to the periodic pass.
   */
  async deleteTranscript(file: string): Promise<void> {
    let uuids: Set<string> | undefined
    try {
      uuids = await transcriptUuids(file, this.abort.signal)
    } catch (err) {
      this.log.warn(`[runtime] media: could not read ${file} before deleting it (its files wait for the periodic pass):`, (err as Error).message)
    }
    fs.rmSync(file, { force: true })
    if (uuids?.size) void this.release(uuids)
  }

  /** Resolves when every pass asked for so far has finished. */
  async idle(): Promise<void> {
    for (let last: Promise<unknown> | undefined; last !== this.chain; ) {
      last = this.chain
      await last.catch(() => undefined)
    }
  }

  /** No more passes; a running one stops at its next file. */
  async stop(): Promise<void> {
    this.abort.abort(new Error('runtime shutting down'))
    this.schedule?.cancel()
    await this.idle()
  }

  private enqueue(kind: string, o: Pick<CollectOptions, 'graceMs' | 'only'>): Promise<CollectReport | undefined> {
    const run = this.chain.then(async () => {
      if (this.abort.signal.aborted) return undefined
      try {
        const r = await collectInboundMedia({ stateDir: this.opts.stateDir, pendingRefs: this.opts.pendingRefs, signal: this.abort.signal, ...o })
        if (r.removed.length) {
          this.log.info(`[runtime] media: removed ${r.removed.length} unreferenced inbound file(s), ${(r.removedBytes / 1024 / 1024).toFixed(1)} MB (${kind}, ${r.durationMs} ms)`)
        }
        if (r.skipped) this.log.warn(`[runtime] media: ${kind} removed nothing: ${r.skipped}`)
        return r
      } catch (err) {
        if (!this.abort.signal.aborted) this.log.warn(`[runtime] media: ${kind} failed, nothing more removed:`, (err as Error).message)
        return undefined
      }
    })
    this.chain = run
    return run
  }
}
