// Removes saved inbound attachments that nothing refers to any more. A file may go only when all of this
// holds: its name is ours (`<uuid>.<ext>`, directly in media/inbound, a regular file — never a symlink or
// anything under a symlinked directory), it was last changed longer ago than the grace age (a message being
// accepted right now saves its files before it journals them), and its uuid appears in no transcript, archived
// transcript, accepted-message journal (any runtime's) or message this runtime holds unsettled in memory.
//
// Removal is one unlink per file and nothing else is written: a crash at any point leaves only files that were
// unreferenced anyway, for the next pass.
import fs from 'node:fs'
import path from 'node:path'
import { inboundMediaDir } from '../attachments'
import { inboundUuid, uuidTokens } from './inbound-names'
import { findReferences, scanFile, type ReferenceScanReport } from './reference-scan'

export interface CollectOptions {
  stateDir: string
  /** only files last changed (mtime and ctime) at least this long ago may go */
  graceMs: number
  /** only files with these uuids may go (after a transcript was deleted) */
  only?: ReadonlySet<string>
  /** texts and paths held in memory that may name files (messages accepted but not settled yet) */
  pendingRefs?: () => Iterable<string>
  signal?: AbortSignal
  now?: () => number
  /** reference passes before giving up on sources that keep changing (default 10) */
  maxRounds?: number
  /** told after each removal (tests use it to crash mid-pass) */
  onRemoved?: (file: string) => void
}

export interface CollectReport {
  /** our files old enough to go (before the reference check) */
  candidates: number
  removed: string[]
  removedBytes: number
  /** candidates kept: referenced, or changed since they were listed */
  kept: number
  scan?: ReferenceScanReport
  /** why the pass removed nothing without looking at references */
  skipped?: string
  durationMs: number
}

interface Candidate {
  file: string
  ino: number
  size: number
  mtimeMs: number
  ctimeMs: number
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT'

/** One collection pass over `<stateDir>/media/inbound`. Throws on unreadable reference sources (nothing removed then). */
export async function collectInboundMedia(opts: CollectOptions): Promise<CollectReport> {
  const started = performance.now()
  const report: CollectReport = { candidates: 0, removed: [], removedBytes: 0, kept: 0, durationMs: 0 }
  const done = (skipped?: string) => ({ ...report, ...(skipped ? { skipped } : {}), durationMs: Math.round(performance.now() - started) })
  const dir = inboundMediaDir(opts.stateDir)
  // never through a symlink: media/ and media/inbound must both be real directories
  for (const d of [path.dirname(dir), dir]) {
    try {
      if (!(await fs.promises.lstat(d)).isDirectory()) return done(`${d} is not a directory (a symlink is not followed)`)
    } catch (err) {
      if (isMissing(err)) return done()
      throw err
    }
  }

  const now = opts.now?.() ?? Date.now()
  const byUuid = new Map<string, Candidate[]>()
  for await (const ent of await fs.promises.opendir(dir)) {
    const uuid = inboundUuid(ent.name)
    // (the entry's own type is not trusted: some file systems report none; lstat decides)
    if (!uuid || (opts.only && !opts.only.has(uuid))) continue
    const file = path.join(dir, ent.name)
    let st: fs.Stats
    try {
      st = await fs.promises.lstat(file)
    } catch (err) {
      if (isMissing(err)) continue
      throw err
    }
    if (!st.isFile()) continue
    // young: its message may be between saving the file and journaling it (in this or another process)
    if (Math.max(st.mtimeMs, st.ctimeMs) > now - opts.graceMs) continue
    const list = byUuid.get(uuid) ?? []
    list.push({ file, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs })
    byUuid.set(uuid, list)
    report.candidates++
  }
  if (byUuid.size === 0) return done()

  const wanted = new Set(byUuid.keys())
  const found = new Set<string>()
  const addPending = () => {
    for (const text of opts.pendingRefs?.() ?? []) for (const id of uuidTokens(text)) if (wanted.has(id)) found.add(id)
  }
  // in memory before and after the disk pass: an unsettled message is journaled too, this is belt and braces
  addPending()
  report.scan = await findReferences({ stateDir: opts.stateDir, wanted, found, signal: opts.signal, maxRounds: opts.maxRounds })
  if (!report.scan.stable) return done('the reference sources kept changing; trying again next time')
  addPending()

  for (const [uuid, files] of byUuid) {
    if (found.has(uuid)) {
      report.kept += files.length
      continue
    }
    for (const c of files) {
      opts.signal?.throwIfAborted()
      let st: fs.Stats
      try {
        st = await fs.promises.lstat(c.file)
      } catch (err) {
        if (isMissing(err)) continue
        throw err
      }
      // still the same old regular file: nothing was swapped in or touched since it was listed
      if (!st.isFile() || st.ino !== c.ino || st.mtimeMs !== c.mtimeMs || st.ctimeMs !== c.ctimeMs) {
        report.kept++
        continue
      }
      try {
        await fs.promises.unlink(c.file)
      } catch (err) {
        if (isMissing(err)) continue
        throw err
      }
      report.removed.push(c.file)
      report.removedBytes += c.size
      opts.onRemoved?.(c.file)
    }
  }
  return done()
}

/** Most uuids remembered from one deleted transcript (the rest wait for the periodic pass). */
const MAX_TRANSCRIPT_UUIDS = 100_000

/** The uuid tokens a transcript mentions (read in chunks). Empty when the file is gone. */
export async function transcriptUuids(file: string, signal?: AbortSignal): Promise<Set<string>> {
  const found = new Set<string>()
  try {
    await scanFile(file, { found, signal, maxFound: MAX_TRANSCRIPT_UUIDS })
  } catch (err) {
    if (!isMissing(err)) throw err
  }
  return found
}
