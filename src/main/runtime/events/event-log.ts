// The Inspector's memory across restarts: each session's agent events, appended to
// `<stateDir>/agents/<agentId>/events/<sessionId>.jsonl` (outside the sessions dir: not a transcript, and
// nothing that scans transcripts reads it). The bus's in-memory ring serves live sessions; this log fills
// in the runs a restart took from the ring.
//
// Cheap on the hot path: an event is serialized when it is emitted (small, spread out), assistant and
// thinking events without their cumulative text (rebuilt from the deltas on read: a long reply is not stored
// over and over; its length is, so a new message's text starts afresh); lines are appended every 250 ms, one
// write per session, off the event loop (a crash loses at most that much of the Inspector's history — and of
// a cut-off reply, which recovery rebuilds from this log; shutdown writes everything). A streaming session's
// file stays open between appends: open + write + close four times a second was three thread-pool round trips
// per append (measured with 4–30 sessions: ~120–240 µs of main thread per append before, ~30–65 µs with the
// file kept open; serializing is ~12 µs per delta either way). It is closed after `idleCloseMs` without a
// write, past `maxOpenFiles` open ones (the least recently written first: more streaming sessions than that
// cost what they did before), before its trim replaces it, when the session is reset, deleted or archived,
// and on shutdown. Opens, writes, closes and removals run one at a time on one chain, so a file removed or
// replaced here is never written through its old descriptor (one deleted by hand while open takes the appends
// until the idle close; the next ones make a new file). Bounded: a file past `maxFileBytes` keeps its newest
// half. A session's file goes with its transcript (reset, delete); a file that cannot be written loses only
// Inspector history, never a run.
//
// A full disk (ENOSPC, EDQUOT) does not drop the lines it refused: they are held in memory (up to
// `maxHeldBytes` for all sessions, the oldest dropped first past it) and written first, in order, by the next
// flush the disk takes — the timer retries every `retryMs` while some are held (its ticks in between add the new
// lines to them), a flush asked for (recovery, shutdown) at once. A dropped line left a gap in its
// run's seq, and recovery rebuilds a cut-off reply only up to the first gap (runner/partial-reply.ts): holding
// them, a 200 KB reply the disk refused for a while comes back whole. At shutdown, what the last flush could not
// write gets one more, synchronous try; what even that loses is said in one line (counts and sessions, no
// content). A process that exits without a shutdown (a second SIGTERM) makes the same synchronous try from its
// 'exit' hook, for the pending lines too.
import fs from 'node:fs'
import path from 'node:path'
import type { AgentEvent } from '../../../shared/events'
import { openRegularFile, openRegularFileForAppend, openRegularFileForAppendSync, readRegularFileText } from '../open-regular-file'
import { writeFileAtomic } from '../sessions'
import { writeWholeOrUndo } from '../sessions/write-whole'

export interface EventLogOptions {
  /** the file a session's events go to, or undefined (unknown session: not kept) */
  fileFor(sessionKey: string): string | undefined
  /** default 1 MiB */
  maxFileBytes?: number
  /** longest a written event waits for its append (default 250 ms; a slow disk stretches it: one append at a time) */
  flushMs?: number
  /** a file not written for this long is closed (default 5 s) */
  idleCloseMs?: number
  /** most files kept open at once (default 32): past it the least recently written one is closed */
  maxOpenFiles?: number
  /** most bytes of lines a full disk refused kept for the next flush, all sessions together (default 8 MiB) */
  maxHeldBytes?: number
  /** while lines are held, a flush is tried this often even with nothing new (default 1 s) */
  retryMs?: number
  onError?(err: unknown): void
  /** the one line saying what was lost at exit (default console.warn) */
  warn?(line: string): void
}

/** one session's event-log lines that could not be written before the process ended */
export interface LostLines {
  /** the session id (the file's name) */
  sessionId: string
  lines: number
  bytes: number
}

/** how often pending lines are appended: at most this much of a streaming reply is lost to a kill -9 */
export const EVENT_LOG_FLUSH_MS = 250
const IDLE_CLOSE_MS = 5_000
const MAX_OPEN_FILES = 32
const MAX_HELD_BYTES = 8 * 1024 * 1024
const RETRY_MS = 1_000
/** the disk (or the user's quota) is full: the lines may go in once there is room again */
const isFull = (err: unknown) => ['ENOSPC', 'EDQUOT'].includes((err as NodeJS.ErrnoException | undefined)?.code ?? '')

const CUMULATIVE = new Set(['assistant', 'thinking'])

export class EventLog {
  private readonly pending = new Map<string, string[]>()
  /** lines a full disk refused, per file, the file held longest first; touched only on the chain (and by remove) */
  private readonly held = new Map<string, string[]>()
  private heldBytes = 0
  /** the timer's flushes leave held lines alone until then (the disk refused them a moment ago) */
  private retryAt = 0
  /** files' sizes as written here (one stat per file, not one per append) */
  private readonly sizes = new Map<string, number>()
  private readonly dirs = new Set<string>()
  /** open files, least recently written first (re-inserted on each write); touched only on the chain */
  private readonly handles = new Map<string, { fd: number; usedAt: number }>()
  private timer: NodeJS.Timeout | undefined
  private idleTimer: NodeJS.Timeout | undefined
  /** every disk operation, one at a time: appends, closes, removals */
  private writing: Promise<void> = Promise.resolve()
  /** appends handed to the disk and not done yet */
  private busy = 0
  private readonly maxFileBytes: number
  private readonly flushMs: number
  private readonly idleCloseMs: number
  private readonly maxOpenFiles: number
  private readonly maxHeldBytes: number
  private readonly retryMs: number
  /** close() or the exit hook has made the last try: nothing is written after it */
  private ended = false

  constructor(private readonly o: EventLogOptions) {
    this.maxFileBytes = o.maxFileBytes ?? 1024 * 1024
    this.flushMs = o.flushMs ?? EVENT_LOG_FLUSH_MS
    this.idleCloseMs = o.idleCloseMs ?? IDLE_CLOSE_MS
    this.maxOpenFiles = Math.max(1, o.maxOpenFiles ?? MAX_OPEN_FILES)
    this.maxHeldBytes = o.maxHeldBytes ?? MAX_HELD_BYTES
    this.retryMs = o.retryMs ?? RETRY_MS
    live.add(this)
    ensureExitHook()
  }

  add(ev: AgentEvent): void {
    if (!ev.sessionKey) return
    let file: string | undefined
    try {
      file = this.o.fileFor(ev.sessionKey)
    } catch {
      return
    }
    if (!file) return
    let lines = this.pending.get(file)
    if (!lines) this.pending.set(file, (lines = []))
    lines.push(serialize(ev))
    this.timer ??= setTimeout(() => this.tick(), this.flushMs).unref()
  }

  /** The timer's flush: while the previous appends are still being written, the lines wait for the next tick. */
  private tick(): void {
    this.timer = undefined
    if (this.busy > 0) this.timer = setTimeout(() => this.tick(), this.flushMs).unref()
    else void this.write(false)
  }

  /** Runs `op` after every disk operation before it; the chain never rejects. */
  private enqueue(op: () => Promise<void>): Promise<void> {
    return (this.writing = this.writing.then(op).catch((err: unknown) => this.o.onError?.(err)))
  }

  /**
   * Appends what is pending (one write per file), lines a full disk refused first; resolves when every earlier
   * write is done.
   */
  flush(): Promise<void> {
    return this.write(true)
  }

  /**
   * `retry`: also when the disk refused lines less than `retryMs` ago (a flush asked for: recovery, shutdown);
   * the timer's ticks then add new lines to the held ones instead of writing megabytes in vain four times a second.
   */
  private write(retry: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.size === 0 && this.held.size === 0) return this.writing
    const batch = [...this.pending]
    this.pending.clear()
    this.busy++
    const done = this.enqueue(async () => {
      if (!retry && this.held.size > 0 && Date.now() < this.retryAt) {
        for (const [file, lines] of batch) this.hold(file, lines)
        this.timer ??= setTimeout(() => this.tick(), this.retryAt - Date.now()).unref()
        return
      }
      // what a full disk refused before goes first, in order, ahead of the newer lines of its file
      const files = new Map(this.held)
      this.held.clear()
      this.heldBytes = 0
      for (const [file, lines] of batch) {
        const before = files.get(file)
        files.set(file, before ? before.concat(lines) : lines)
      }
      for (const [file, lines] of files) {
        try {
          const text = lines.join('\n') + '\n'
          const fd = await this.handleFor(file)
          let size = this.sizes.get(file) ?? (await fdSize(fd))
          await writeAll(fd, Buffer.from(text))
          size += Buffer.byteLength(text)
          this.sizes.set(file, size)
          if (size > this.maxFileBytes) {
            await this.closeHandle(file) // the trim replaces the file: the next append opens the new one
            try {
              this.sizes.set(file, await this.keepNewestHalf(file))
            } catch (err) {
              // the lines are in the file: a trim the disk refused is tried again after the next append, and
              // they are not held (held, they were written a second time: a run's deltas twice in its log)
              this.o.onError?.(err)
            }
          }
        } catch (err) {
          this.sizes.delete(file)
          await this.closeHandle(file)
          if (isFull(err)) {
            this.hold(file, lines)
            this.retryAt = Date.now() + this.retryMs
          }
          this.o.onError?.(err)
        }
      }
      this.scheduleIdleClose()
      if (this.held.size > 0) this.timer ??= setTimeout(() => this.tick(), this.retryMs).unref()
    })
    void done.then(() => this.busy--)
    return done
  }

  /**
   * On the chain: keeps lines the disk refused (after those of the file held already) for the next flush; past
   * the bound the oldest held go (a gap, as before).
   */
  private hold(file: string, lines: string[]): void {
    const kept = this.held.get(file)
    if (kept) for (const l of lines) kept.push(l)
    else this.held.set(file, lines)
    for (const l of lines) this.heldBytes += Buffer.byteLength(l) + 1
    for (const [f, ls] of this.held) {
      if (this.heldBytes <= this.maxHeldBytes) break
      let drop = 0
      while (drop < ls.length && this.heldBytes > this.maxHeldBytes) this.heldBytes -= Buffer.byteLength(ls[drop++]) + 1
      if (drop === ls.length) this.held.delete(f)
      else this.held.set(f, ls.slice(drop))
    }
  }

  /** Bytes of lines a full disk refused, waiting for the next flush (for tests and diagnostics). */
  heldSize(): number {
    return this.heldBytes
  }

  /** The files open now (for tests and diagnostics). */
  openFiles(): string[] {
    return [...this.handles.keys()]
  }

  /** On the chain: the file's open descriptor, opened (append-only, 0600) when it has none. */
  private async handleFor(file: string): Promise<number> {
    const open = this.handles.get(file)
    if (open) {
      this.handles.delete(file) // to the end: most recently written
      this.handles.set(file, { fd: open.fd, usedAt: Date.now() })
      return open.fd
    }
    const dir = path.dirname(file)
    if (!this.dirs.has(dir)) {
      await fs.promises.mkdir(dir, { recursive: true })
      this.dirs.add(dir)
    }
    while (this.handles.size >= this.maxOpenFiles) await this.closeHandle(this.handles.keys().next().value!)
    // non-blocking, regular files only: a FIFO under the name would hold a thread-pool thread, and the chain, for good
    const fd = await openRegularFileForAppend(file, 0o600)
    this.handles.set(file, { fd, usedAt: Date.now() })
    return fd
  }

  /** On the chain: closes the file's handle if it has one (a failed close is reported, the handle forgotten). */
  private async closeHandle(file: string): Promise<void> {
    const open = this.handles.get(file)
    if (!open) return
    this.handles.delete(file)
    await new Promise<void>((res) => fs.close(open.fd, (err) => (err && this.o.onError?.(err), res())))
  }

  /** While files are open, a pass every `idleCloseMs` closes the ones not written since the last one. */
  private scheduleIdleClose(): void {
    if (this.idleTimer || this.handles.size === 0) return
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined
      void this.enqueue(async () => {
        const before = Date.now() - this.idleCloseMs
        for (const [file, open] of [...this.handles]) if (open.usedAt <= before) await this.closeHandle(file)
        this.scheduleIdleClose()
      })
    }, this.idleCloseMs).unref()
  }

  /** The newest `limit` events of a session's file (written ones: call flush() first for the rest). */
  async read(sessionKey: string, limit: number): Promise<AgentEvent[]> {
    const file = this.o.fileFor(sessionKey)
    if (!file) return []
    let text: string
    try {
      text = await readTail(file, 2 * this.maxFileBytes)
    } catch {
      return []
    }
    const events: AgentEvent[] = []
    const cumulative = new Map<string, string>()
    for (const line of text.split('\n')) {
      if (!line) continue
      let ev: AgentEvent
      try {
        ev = JSON.parse(line) as AgentEvent
      } catch {
        continue // a torn last line (crash mid-append)
      }
      if (ev.stream === 'tool') {
        // a tool runs after its message ended: text after it is a new message (lines without textLength)
        cumulative.delete(`${ev.runId}\u0000assistant`)
      } else if (CUMULATIVE.has(ev.stream)) {
        const k = `${ev.runId}\u0000${ev.stream}`
        const { textLength, ...data } = ev.data as { delta?: unknown; text?: unknown; replace?: unknown; textLength?: unknown }
        ev.data = data
        const delta = typeof data.delta === 'string' ? data.delta : ''
        const prev = cumulative.get(k) ?? ''
        // a replacement (think-tag-text.ts) keeps its text: it is not the previous text + delta; a text that
        // does not extend the previous one is a new message (or one whose start the trim took): its delta
        const text =
          data.replace === true && typeof data.text === 'string'
            ? data.text
            : typeof textLength === 'number' && textLength !== prev.length + delta.length
              ? delta
              : prev + delta
        cumulative.set(k, text)
        data.text = text
      }
      events.push(ev)
    }
    return events.slice(-limit)
  }

  /** Drops a session's file (its transcript was reset or deleted); pending lines for it go too. */
  async remove(file: string): Promise<void> {
    this.pending.delete(file)
    this.sizes.delete(file)
    // after the appends already queued, and closed first: a later append opens a new file, never the removed one
    await this.enqueue(async () => {
      this.dropHeld(file) // on the chain: also what a flush before this one held again
      await this.closeHandle(file)
      await fs.promises.rm(file, { force: true })
    })
  }

  private dropHeld(file: string): void {
    const lines = this.held.get(file)
    if (!lines) return
    this.held.delete(file)
    for (const l of lines) this.heldBytes -= Buffer.byteLength(l) + 1
  }

  /** Closes a session's file without dropping it (the session was archived: nothing streams into it now). */
  release(file: string): Promise<void> {
    return this.enqueue(() => this.closeHandle(file))
  }

  /**
   * Writes what is pending and closes every file (shutdown). Lines the disk still refused get one more try, then
   * what is lost is said in one line: the process ends, and nothing retries them after it.
   */
  async close(): Promise<void> {
    await this.flush()
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.enqueue(async () => {
      for (const file of [...this.handles.keys()]) await this.closeHandle(file)
      this.lastTry()
    })
    live.delete(this)
  }

  /**
   * The process is exiting without close() (a second signal, process.exit): the event loop is gone, so what is
   * pending and held is written synchronously, once. An append still in flight may land after these lines or
   * never: recovery reads either as a gap in the run's seq and stops the text there.
   */
  exitSync(): void {
    live.delete(this)
    if (this.ended) return
    if (this.timer) clearTimeout(this.timer)
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.lastTry()
  }

  /** Synchronous: held lines (then pending ones) appended whole or not at all; what fails is reported, once. */
  private lastTry(): void {
    this.ended = true
    const files = new Map(this.held)
    this.held.clear()
    this.heldBytes = 0
    for (const [file, lines] of this.pending) files.set(file, (files.get(file) ?? []).concat(lines))
    this.pending.clear()
    const lost: LostLines[] = []
    let why = ''
    for (const [file, lines] of files) {
      const buf = Buffer.from(lines.join('\n') + '\n')
      try {
        // its own folder only: a state dir removed meanwhile is not made again
        if (!fs.existsSync(path.dirname(file))) fs.mkdirSync(path.dirname(file))
        const fd = openRegularFileForAppendSync(file, 0o600) // a FIFO would hang the exit
        try {
          writeWholeOrUndo(fd, buf, fs.fstatSync(fd).size, 'event-log')
        } finally {
          fs.closeSync(fd)
        }
      } catch (err) {
        why ||= (err as NodeJS.ErrnoException).code ?? (err as Error).message
        lost.push({ sessionId: path.basename(file, '.jsonl'), lines: lines.length, bytes: buf.length })
      }
    }
    if (lost.length) (this.o.warn ?? console.warn)(lostLine(lost, why))
  }

  // whole runs are not tracked here: the cut may start mid-run, and read() rebuilds that run's text from
  // the deltas it still has; recovery (partial-reply.ts) sees the missing start — the run's first line left is
  // not its seq 1 — and keeps no text that starts mid-way, saying part of it was not saved
  private async keepNewestHalf(file: string): Promise<number> {
    const text = await readRegularFileText(file)
    const from = text.indexOf('\n', Math.floor(text.length / 2))
    const kept = from < 0 ? '' : text.slice(from + 1)
    await writeFileAtomic(file, kept, { mode: 0o600, fsync: false })
    return Buffer.byteLength(kept)
  }
}

/** One line for the log: how much of which sessions' event logs the process could not write (no content). */
export function lostLine(lost: readonly LostLines[], why: string): string {
  const lines = lost.reduce((n, l) => n + l.lines, 0)
  const bytes = lost.reduce((n, l) => n + l.bytes, 0)
  const each = lost.map((l) => `${l.sessionId} (${l.lines} line${l.lines === 1 ? '' : 's'}, ${l.bytes} bytes)`).join(', ')
  return `[runtime] the Inspector's event log lost ${lines} line${lines === 1 ? '' : 's'} (${bytes} bytes) at exit, the disk refusing them (${why}) — session${lost.length === 1 ? '' : 's'} ${each}`
}

/** event logs not closed yet: a process that exits without closing them gives each a last synchronous try */
const live = new Set<EventLog>()
let exitHooked = false
function ensureExitHook(): void {
  if (exitHooked) return
  exitHooked = true
  process.on('exit', () => {
    for (const log of [...live]) log.exitSync()
  })
}

/**
 * Writes all of `buf` (a write may take only part of it); a write that fails part-way (a full disk) is cut back
 * off the file's end, so no torn line is left for the next append to be glued onto (that would lose the next
 * event too: a gap recovery stops at). The async twin of `sessions/write-whole.ts`, on plain descriptors and
 * callbacks: FileHandle's promise API measured ~10–30 % more main thread per append.
 */
async function writeAll(fd: number, buf: Buffer): Promise<void> {
  let off = 0
  try {
    while (off < buf.length) {
      off += await new Promise<number>((res, rej) => fs.write(fd, buf, off, buf.length - off, null, (err, n) => (err ? rej(err) : res(n))))
    }
  } catch (err) {
    if (off > 0) {
      const end = await fdSize(fd).catch(() => undefined)
      if (end !== undefined) await new Promise<void>((res) => fs.ftruncate(fd, Math.max(0, end - off), () => res()))
    }
    throw err
  }
}

const fdSize = (fd: number) => new Promise<number>((res, rej) => fs.fstat(fd, (err, st) => (err ? rej(err) : res(st.size))))

/**
 * The file, or only its last `max` bytes from a line start when it is larger (a file the bound missed —
 * its trim failed, or another writer — never makes a read load all of it).
 */
async function readTail(file: string, max: number): Promise<string> {
  const fh = await openRegularFile(file)
  try {
    const { size } = await fh.stat()
    if (size <= max) return (await fh.readFile()).toString('utf8')
    const buf = Buffer.alloc(max)
    const { bytesRead } = await fh.read(buf, 0, max, size - max)
    const text = buf.subarray(0, bytesRead).toString('utf8')
    return text.slice(text.indexOf('\n') + 1)
  } finally {
    await fh.close()
  }
}

/**
 * One line: assistant/thinking events without their cumulative text (read() rebuilds it), except replacements;
 * its length stays (`textLength`, as in the compact wire form), so read() sees where a new message starts.
 */
function serialize(ev: AgentEvent): string {
  if (!CUMULATIVE.has(ev.stream) || (ev.data as { replace?: unknown }).replace === true) return JSON.stringify(ev)
  const { text, ...rest } = ev.data as { text?: unknown }
  return JSON.stringify({ ...ev, data: typeof text === 'string' ? { ...rest, textLength: text.length } : rest })
}

export const eventLogFile = (stateDir: string, agentId: string, sessionId: string): string =>
  path.join(stateDir, 'agents', agentId, 'events', `${sessionId}.jsonl`)
