// Durable record of acknowledged messages: nothing the runtime acknowledged may be lost in a crash.
// `agent` / `chat.send` acknowledge a message before its run has written it to the transcript (the run may
// wait in the session lane or a chat queue for minutes), so each accepted message is appended here first —
// one O_APPEND line, like transcript lines: a crash can only tear the last one — and settled when its run
// ends or its session has nothing left running or queued. At start-up the open records of dead processes
// are what a crash left unanswered (recovery puts them into their sessions and marks those interrupted).
//
// Every runtime writes its own file (`accepted.<pid>-<random>.jsonl` in the agent's sessions dir, first line
// names the owner with its process start time), so truncating it never touches another live runtime's records.
//
// A message the user paused (held in its queue after a Stop: loopdesk.queue.hold) is open too, but it is not
// unanswered: `hold` / `release` lines say so, and the next start puts it back in its queue, held, instead of
// into the transcript as a message the crash left without an answer.
//
// A run that ended before its message reached the transcript, and whose own write of it failed too (a full
// disk, a lock timeout: runner/unsent-turn.ts), leaves its record open (`keepOpen`): neither its lifecycle end
// nor its session going idle settles it, so the next start's recovery puts the message into its transcript.
// A run stopped while it waited behind its session's earlier run is held open the same way until its message is
// written in its place in the session lane, after that run's reply (`kept` then settles it).
// A run whose transcript write failed with a storage error part-way through (its message written, its reply
// refused) is held open too, with an `unwritten` line naming the error (best effort: the disk may still be full),
// so recovery closes the run with that error and the reply as far as it streamed.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { keepCorruptCopy } from '../corrupt-copy'
import { openRegularFileSync, readRegularFileTextSync } from '../open-regular-file'
import { readFailure } from '../read-small-file'
import { endsInNewline, writeWholeOrUndo } from '../sessions/write-whole'
import { isPidAlive, ownProcessStartTime, processStartTime } from '../sessions/process-info'
import { moveRunModels, parseAcceptedRun, type AcceptedRun } from './accepted-run'

export interface AcceptedRecord {
  runId: string
  sessionKey: string
  /** the message text the run will send (after command parsing) */
  text: string
  /** when it was accepted (ms) */
  at: number
  /** saved paths of the message's attachments (the text references them too, so recovery keeps them) */
  media?: string[]
  /** paused by the user (held in its queue): it waits for them, not for an answer */
  held?: boolean
  /** what its run was asked for besides the text (thinking, timeout, …): a restored message starts the same way */
  run?: AcceptedRun
  /** its run's transcript write failed with this error (storage): recovery closes the run with it */
  error?: string
}

type Line =
  | { op: 'owner'; pid: number; starttime?: string }
  | ({ op: 'accept' } & AcceptedRecord)
  | { op: 'end'; runId: string }
  | { op: 'idle'; sessionKey: string; at: number }
  | { op: 'hold' | 'release'; runIds: string[] }
  | { op: 'unwritten'; runId: string; error: string }
  | { op: 'rename'; from: string; to: string }

const FILE_RE = /^accepted\.(\d+)-[0-9a-f]+\.jsonl$/
/** The pid of the runtime that writes a journal file of this name, or undefined when it is not one. */
export const journalOwnerPid = (name: string): number | undefined => {
  const m = FILE_RE.exec(name)
  return m ? Number(m[1]) : undefined
}
// journals of runtimes alive in this process (shared across duplicated module copies, like write locks)
const LIVE_KEY = Symbol.for('loopdesk.runtime.acceptedJournals')
const live: Set<string> = ((globalThis as unknown as Record<symbol, Set<string> | undefined>)[LIVE_KEY] ??= new Set())
/** rewrite the file with only the open records once it has this many lines */
const COMPACT_LINES = 4096

export class AcceptedJournal {
  readonly file: string
  private readonly open = new Map<string, AcceptedRecord>()
  /** runIds whose message never reached its transcript: open until the next start recovers them */
  private readonly unwritten = new Set<string>()
  private lines = 0
  private created = false
  /** byte length of the owner line at the start of the file */
  private headerBytes = 0
  /** the file's length after our last append (-1: unknown — it may end in a torn line) */
  private endOfOurAppend = -1
  private compactWarned = false
  /**
   * closed at shutdown: what settles after that (the queues emptied by their own shutdown) is not answered, so
   * the records stay for the next start
   */
  private closed = false

  constructor(readonly dir: string) {
    this.file = path.join(dir, `accepted.${process.pid}-${randomBytes(4).toString('hex')}.jsonl`)
    live.add(path.resolve(this.file))
  }

  /**
   * The runtime stops: a journal with nothing open is removed; one with open records (messages that were
   * accepted but never ran) stays for the next start to recover.
   */
  close(): void {
    this.closed = true
    live.delete(path.resolve(this.file))
    if (this.open.size === 0) fs.rmSync(this.file, { force: true })
  }

  /** Records an accepted message. Throws the fs error when it cannot be written (the call must then fail). */
  accept(rec: AcceptedRecord): void {
    this.append({ op: 'accept', ...rec })
    this.open.set(rec.runId, rec)
  }

  /** The run carrying `runId` ended (or will never run). */
  end(runId: string): void {
    if (this.unwritten.has(runId) || !this.open.delete(runId)) return
    this.settle({ op: 'end', runId })
  }

  /**
   * The run carrying `runId` ends without its message in the transcript (writing it failed), or without all of
   * its run (a storage error part-way): the record stays open for the rest of this process, so the next start's
   * recovery writes the message, and closes the run with `error` when one is given.
   */
  keepOpen(runId: string, error?: string): void {
    const r = this.open.get(runId)
    if (!r) return
    this.unwritten.add(runId)
    if (error === undefined || r.error === error) return
    r.error = error
    this.settle({ op: 'unwritten', runId, error })
  }

  /** A record held open by keepOpen was written into its transcript after all (in its place in the session lane): settle it. */
  kept(runId: string): void {
    if (this.unwritten.delete(runId)) this.end(runId)
  }

  /** The user paused these messages (held in their queue) / let them go again. Best effort, like settling. */
  hold(runIds: string[]): void {
    this.mark(runIds, true)
  }

  release(runIds: string[]): void {
    this.mark(runIds, false)
  }

  private mark(runIds: string[], held: boolean): void {
    const changed: string[] = []
    for (const id of runIds) {
      const r = this.open.get(id)
      if (!r || !!r.held === held) continue
      if (held) r.held = true
      else delete r.held
      changed.push(id)
    }
    if (changed.length > 0) this.settle({ op: held ? 'hold' : 'release', runIds: changed })
  }

  /**
   * A provider was renamed: the open records' models (`<from>/…`) name `<to>/…` now, in memory (a compaction
   * writes them so) and by a `rename` line that a reader applies to every record before it. Best effort, like
   * settling. Returns the run ids whose model moved.
   */
  renameProvider(from: string, to: string): string[] {
    const moved: string[] = []
    for (const r of this.open.values()) if (r.run && moveRunModels(r.run, from, to)) moved.push(r.runId)
    if (moved.length > 0) this.settle({ op: 'rename', from, to })
    return moved
  }

  /** Nothing of the session is running or queued: every message accepted for it so far was handled. */
  idle(sessionKey: string): void {
    const settled: string[] = []
    let kept = false
    for (const [id, r] of this.open) {
      if (r.sessionKey !== sessionKey) continue
      if (this.unwritten.has(id)) kept = true
      else {
        this.open.delete(id)
        settled.push(id)
      }
    }
    if (settled.length === 0) return
    // an idle line settles every earlier record of the session when read back: with one left open, name the
    // settled ones instead
    if (kept) this.settle(...settled.map((runId): Line => ({ op: 'end', runId })))
    else this.settle({ op: 'idle', sessionKey, at: Date.now() })
  }

  openCount(): number {
    return this.open.size
  }

  /** The accepted messages not settled yet (the media collector keeps the files they name). */
  pending(): IterableIterator<AcceptedRecord> {
    return this.open.values()
  }

  private settle(...lines: Line[]): void {
    if (this.closed) return
    try {
      if (this.open.size === 0) this.reset([])
      else if (!(this.lines >= COMPACT_LINES && this.compact())) this.append(...lines)
    } catch (err) {
      // settling is an optimization: an unwritten settle only means recovery re-checks a handled message
      console.warn(`[runtime] accepted-message journal ${this.file}: ${(err as Error).message}`)
    }
  }

  /**
   * Rewrites the file with only the open records; false when that failed (a nearly full disk takes a short
   * settle line but not the copy): the caller appends its line instead, so the settle is not lost.
   */
  private compact(): boolean {
    try {
      this.reset([...this.open.values()])
      return true
    } catch (err) {
      if (!this.compactWarned) console.warn(`[runtime] accepted-message journal ${this.file}: could not compact: ${(err as Error).message}`)
      this.compactWarned = true
      return false
    }
  }

  private header(): string {
    const owner: Line = { op: 'owner', pid: process.pid }
    const st = ownProcessStartTime()
    if (st) owner.starttime = st
    const text = JSON.stringify(owner) + '\n'
    this.headerBytes = Buffer.byteLength(text)
    return text
  }

  /**
   * All or nothing, like a transcript append: a write the disk refuses part-way is cut back off the file, so a
   * torn accept line cannot swallow the line written after it; and when even that failed (the file does not end
   * where our last append left it), the next append starts on a new line.
   */
  private append(...lines: Line[]): void {
    let text = lines.map((l) => JSON.stringify(l) + '\n').join('')
    if (!this.created) {
      fs.mkdirSync(this.dir, { recursive: true })
      text = this.header() + text
    }
    const fd = fs.openSync(this.file, 'a+', 0o600)
    try {
      const size = fs.fstatSync(fd).size
      if (size !== this.endOfOurAppend && !endsInNewline(fd, size)) text = '\n' + text
      const buf = Buffer.from(text, 'utf8')
      this.endOfOurAppend = -1
      writeWholeOrUndo(fd, buf, size, 'accepted-message journal')
      this.endOfOurAppend = size + buf.length
    } finally {
      fs.closeSync(fd)
    }
    this.created = true
    this.lines += lines.length + (this.lines === 0 ? 1 : 0)
  }

  /** Replaces the file with the header + `records` (atomic rename). */
  private reset(records: AcceptedRecord[]): void {
    if (!this.created) return
    if (records.length === 0) {
      // Nothing open (after most runs): cut the file back to its owner line. A truncate is one metadata
      // update; replacing a file by rename makes ext4 write the new file out at once (~1.5 ms per run end
      // on a busy disk, blocking the event loop).
      fs.truncateSync(this.file, this.headerBytes)
      this.endOfOurAppend = this.headerBytes
      this.lines = 1
      return
    }
    const tmp = `${this.file}.tmp`
    let text = this.header()
    for (const r of records) text += JSON.stringify({ op: 'accept', ...r }) + '\n'
    try {
      fs.writeFileSync(tmp, text, { mode: 0o600 })
      fs.renameSync(tmp, this.file)
    } catch (err) {
      // a full disk took part of it: give the space back (the file still holds every record)
      fs.rmSync(tmp, { force: true })
      throw err
    }
    this.endOfOurAppend = Buffer.byteLength(text)
    this.lines = 1 + records.length
  }
}

export interface DeadJournals {
  /** open records, oldest first */
  records: AcceptedRecord[]
  /** the files they came from (remove them once the records are recovered) */
  files: string[]
  /**
   * journals of processes that are gone that could not be read at all (not a regular file, EACCES, EIO): their
   * messages are not recovered; they are left in place and said, not passed over without a word
   */
  unreadable: Array<{ file: string; why: string }>
  /**
   * files among them with whole lines that do not read as journal lines (not the torn last one a crash leaves):
   * a record there is lost, so the file is kept as a `.corrupt-` copy when it is removed, and said
   */
  damaged: Array<{ file: string; lines: number }>
}

/** Open records left by processes that are gone (this process's own earlier incarnation included). */
export function readDeadJournals(dir: string): DeadJournals {
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return { records: [], files: [], damaged: [], unreadable: [] }
  }
  const records: AcceptedRecord[] = []
  const files: string[] = []
  const damaged: DeadJournals['damaged'] = []
  const unreadable: DeadJournals['unreadable'] = []
  for (const name of names) {
    const m = FILE_RE.exec(name)
    if (!m) continue
    const file = path.join(dir, name)
    let text: string
    try {
      text = readRegularFileTextSync(file) // a FIFO under a journal's name would hang the start
    } catch (err) {
      // gone meanwhile (settled by its live owner), or a live owner's: nothing to say
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !ownerAlive(file, Number(m[1]), undefined)) unreadable.push({ file, why: readFailure(err) })
      continue
    }
    const lines = text.split('\n')
    const owner = parseLine(lines[0])
    const pid = Number(m[1])
    if (ownerAlive(file, pid, owner && owner.op === 'owner' ? owner.starttime : undefined)) continue
    const open = new Map<string, AcceptedRecord>()
    let badLines = 0
    for (const [i, raw] of lines.entries()) {
      const l = parseLine(raw) ?? parseGlued(raw)
      if (!l) {
        // the last piece has no newline after it: torn by a crash mid-append, never acknowledged; a whole line
        // that does not parse was damaged since (or is a torn append the next one started after a newline)
        if (raw.trim() && i < lines.length - 1) badLines++
        continue
      }
      if (l.op === 'accept') {
        const rec: AcceptedRecord = { runId: l.runId, sessionKey: l.sessionKey, text: l.text, at: l.at }
        if (Array.isArray(l.media)) rec.media = l.media
        if (l.held === true) rec.held = true
        // lines written before runs were kept have none: such a message runs with the defaults
        const run = parseAcceptedRun(l.run, rec.media)
        if (run) rec.run = run
        if (typeof l.error === 'string') rec.error = l.error
        open.set(l.runId, rec)
      } else if (l.op === 'end') open.delete(l.runId)
      else if (l.op === 'unwritten') {
        const r = open.get(l.runId)
        if (r) r.error = l.error
      }
      else if (l.op === 'hold' || l.op === 'release') {
        for (const id of l.runIds) {
          const r = open.get(id)
          if (!r) continue
          if (l.op === 'hold') r.held = true
          else delete r.held
        }
      }
      else if (l.op === 'rename') {
        for (const r of open.values()) if (r.run) moveRunModels(r.run, l.from, l.to)
      }
      else if (l.op === 'idle') for (const [id, r] of open) if (r.sessionKey === l.sessionKey && r.at <= l.at) open.delete(id)
    }
    records.push(...open.values())
    files.push(file)
    if (badLines) damaged.push({ file, lines: badLines })
  }
  records.sort((a, b) => a.at - b.at)
  return { records, files, damaged, unreadable }
}

/** Removes dead journals once their records are recovered; a damaged one is kept as a copy first, and said, as is one that cannot be read. */
export function removeJournals(dead: Pick<DeadJournals, 'files' | 'damaged' | 'unreadable'>, warn: (line: string) => void = console.warn): void {
  for (const { file, why } of dead.unreadable) {
    warn(`[runtime] the run journal ${file} cannot be read (${why}): messages acknowledged there are not back in their sessions; it is left in place`)
  }
  for (const { file, lines } of dead.damaged) {
    const { copy, error } = keepCorruptCopy(file, { mode: 0o600 })
    const kept = error === undefined ? `a copy was kept at ${copy}` : `no copy could be kept: ${readFailure(error)}`
    warn(`[runtime] ${lines} line${lines === 1 ? '' : 's'} of the run journal ${file} could not be read: a message acknowledged there may be missing from its session (${kept})`)
  }
  for (const f of dead.files) fs.rmSync(f, { force: true })
}

/**
 * Whether the runtime writing this journal file still runs: its pid, and the start time its first line
 * recorded (a recycled pid is not it). For the readers outside a runtime: a backup leaves a live journal out,
 * a restore counts it as the state dir being in use. A file that is gone or not a journal: false.
 */
export function journalOwnerAlive(file: string): boolean {
  const pid = journalOwnerPid(path.basename(file))
  if (pid === undefined) return false
  let first: string
  try {
    // the owner line is short; the records after it may be long
    const fd = openRegularFileSync(file)
    try {
      const buf = Buffer.alloc(512)
      first = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8').split('\n', 1)[0]
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
  const owner = parseLine(first)
  return ownerAlive(file, pid, owner?.op === 'owner' ? owner.starttime : undefined)
}

function ownerAlive(file: string, pid: number, starttime: string | undefined): boolean {
  if (pid === process.pid) return live.has(path.resolve(file)) // else a dead predecessor that had our pid
  if (!isPidAlive(pid)) return false
  if (starttime) {
    const now = processStartTime(pid)
    if (now && now !== starttime) return false // pid recycled
  }
  return true
}

/**
 * A torn line with a whole one glued on after it (written before appends were cut back on a part-way failure):
 * the whole one, which starts at the last `{"op":"` — inside a JSON string that quote is escaped, so the text
 * of a message cannot fake one.
 */
function parseGlued(raw: string): Line | undefined {
  const at = raw.lastIndexOf('{"op":"')
  return at > 0 ? parseLine(raw.slice(at)) : undefined
}

function parseLine(raw: string | undefined): Line | undefined {
  if (!raw) return undefined
  try {
    const v = JSON.parse(raw) as Line
    if (!v || typeof v !== 'object') return undefined
    if (v.op === 'accept') {
      return typeof v.runId === 'string' && typeof v.sessionKey === 'string' && typeof v.text === 'string' && typeof v.at === 'number' ? v : undefined
    }
    if (v.op === 'end') return typeof v.runId === 'string' ? v : undefined
    if (v.op === 'unwritten') return typeof v.runId === 'string' && typeof v.error === 'string' ? v : undefined
    if (v.op === 'idle') return typeof v.sessionKey === 'string' && typeof v.at === 'number' ? v : undefined
    if (v.op === 'hold' || v.op === 'release') return Array.isArray(v.runIds) && v.runIds.every((id) => typeof id === 'string') ? v : undefined
    if (v.op === 'rename') return typeof v.from === 'string' && typeof v.to === 'string' ? v : undefined
    if (v.op === 'owner') return v
    return undefined
  } catch {
    return undefined
  }
}
