// The Inspector's memory across restarts: each session's agent events, appended to
// `<stateDir>/agents/<agentId>/events/<sessionId>.jsonl` (outside the sessions dir: not a transcript, and
// nothing that scans transcripts reads it). The bus's in-memory ring serves live sessions; this log fills
// in the runs a restart took from the ring.
//
// Cheap on the hot path: an event is serialized when it is emitted (small, spread out), assistant and
// thinking events without their cumulative text (rebuilt from the deltas on read: a long reply is not stored
// over and over); lines are appended every 250 ms, one write per session, off the event loop (a crash loses at
// most that much of the Inspector's history — and of a cut-off reply, which recovery rebuilds from this log;
// shutdown writes everything). Measured (100 sessions, 50 deltas/s each): ~12 µs of main thread per delta
// whatever the interval, ~60 µs per append — 250 ms instead of 1 s adds ~0.2 ms a second per streaming session.
// Bounded: a file past `maxFileBytes` keeps its newest half. A session's file goes with its transcript
// (reset, delete); a file that cannot be written loses only Inspector history, never a run.
import fs from 'node:fs'
import path from 'node:path'
import type { AgentEvent } from '../../../shared/events'
import { writeFileAtomic } from '../sessions'

export interface EventLogOptions {
  /** the file a session's events go to, or undefined (unknown session: not kept) */
  fileFor(sessionKey: string): string | undefined
  /** default 1 MiB */
  maxFileBytes?: number
  /** longest a written event waits for its append (default 250 ms; a slow disk stretches it: one append at a time) */
  flushMs?: number
  onError?(err: unknown): void
}

/** how often pending lines are appended: at most this much of a streaming reply is lost to a kill -9 */
export const EVENT_LOG_FLUSH_MS = 250

const CUMULATIVE = new Set(['assistant', 'thinking'])

export class EventLog {
  private readonly pending = new Map<string, string[]>()
  /** files' sizes as written here (one stat per file, not one per append) */
  private readonly sizes = new Map<string, number>()
  private readonly dirs = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()
  /** appends handed to the disk and not done yet */
  private busy = false
  private readonly maxFileBytes: number
  private readonly flushMs: number

  constructor(private readonly o: EventLogOptions) {
    this.maxFileBytes = o.maxFileBytes ?? 1024 * 1024
    this.flushMs = o.flushMs ?? EVENT_LOG_FLUSH_MS
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
    if (this.busy) this.timer = setTimeout(() => this.tick(), this.flushMs).unref()
    else void this.flush()
  }

  /** Appends what is pending (one write per file); resolves when every earlier write is done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.size === 0) return this.writing
    const batch = [...this.pending]
    this.pending.clear()
    this.busy = true
    const done = (this.writing = this.writing.then(async () => {
      for (const [file, lines] of batch) {
        try {
          const dir = path.dirname(file)
          if (!this.dirs.has(dir)) {
            await fs.promises.mkdir(dir, { recursive: true })
            this.dirs.add(dir)
          }
          const text = lines.join('\n') + '\n'
          let size = this.sizes.get(file) ?? (await fs.promises.stat(file).then((st) => st.size, () => 0))
          await fs.promises.appendFile(file, text, { mode: 0o600 })
          size += Buffer.byteLength(text)
          if (size > this.maxFileBytes) size = await this.keepNewestHalf(file)
          this.sizes.set(file, size)
        } catch (err) {
          this.sizes.delete(file)
          this.o.onError?.(err)
        }
      }
    }))
    void done.then(() => {
      if (this.writing === done) this.busy = false
    })
    return done
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
      if (CUMULATIVE.has(ev.stream)) {
        const k = `${ev.runId}\u0000${ev.stream}`
        const d = ev.data as { delta?: unknown; text?: unknown; replace?: unknown }
        // a replacement (think-tag-text.ts) keeps its text: it is not the previous text + delta
        const text = d.replace === true && typeof d.text === 'string' ? d.text : (cumulative.get(k) ?? '') + (typeof d.delta === 'string' ? d.delta : '')
        cumulative.set(k, text)
        ev.data = { ...ev.data, text }
      }
      events.push(ev)
    }
    return events.slice(-limit)
  }

  /** Drops a session's file (its transcript was reset or deleted); pending lines for it go too. */
  async remove(file: string): Promise<void> {
    this.pending.delete(file)
    this.sizes.delete(file)
    await this.writing
    await fs.promises.rm(file, { force: true }).catch((err: unknown) => this.o.onError?.(err))
  }

  async close(): Promise<void> {
    await this.flush()
  }

  // whole runs are not tracked here: the cut may start mid-run, and read() rebuilds that run's text from
  // the deltas it still has (a partial reply, marked by the missing start)
  private async keepNewestHalf(file: string): Promise<number> {
    const text = await fs.promises.readFile(file, 'utf8')
    const from = text.indexOf('\n', Math.floor(text.length / 2))
    const kept = from < 0 ? '' : text.slice(from + 1)
    await writeFileAtomic(file, kept, { mode: 0o600, fsync: false })
    return Buffer.byteLength(kept)
  }
}

/**
 * The file, or only its last `max` bytes from a line start when it is larger (a file the bound missed —
 * its trim failed, or another writer — never makes a read load all of it).
 */
async function readTail(file: string, max: number): Promise<string> {
  const fh = await fs.promises.open(file, 'r')
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

/** One line: assistant/thinking events without their cumulative text (read() rebuilds it), except replacements. */
function serialize(ev: AgentEvent): string {
  if (!CUMULATIVE.has(ev.stream) || (ev.data as { replace?: unknown }).replace === true) return JSON.stringify(ev)
  const { text: _text, ...rest } = ev.data as { text?: unknown }
  return JSON.stringify({ ...ev, data: rest })
}

export const eventLogFile = (stateDir: string, agentId: string, sessionId: string): string =>
  path.join(stateDir, 'agents', agentId, 'events', `${sessionId}.jsonl`)
