// One append-only JSONL transcript per session (line 1 = header). Every entry is written with a single
// O_APPEND write ending in '\n', so a crash can only tear the LAST line; readers skip a torn or garbled
// line and keep everything else, and the next append first terminates a torn line so it stays separate
// (followed by TORN_LINE_MARK, so readers know that fragment was a crash, not damage worth reporting).
// A write that fails part-way (a full disk) is cut back to where the file ended before it: no torn line is
// left behind by a process that lives on, and the space it took is free again for what comes next.
import fs from 'node:fs'
import path from 'node:path'
import type { TranscriptEntry } from '../contracts'
import { sessionsDir, transcriptFile } from './paths'
import { writeWholeOrUndo, endsInNewline } from './write-whole'
import { cleanEndOf, parseTranscript, readTranscript, TORN_LINE_MARK, type TranscriptRead } from './transcript-cache'

export { parseTranscript, type TranscriptRead }

export type TranscriptHeader = Extract<TranscriptEntry, { type: 'session' }>

/** The first line of a new session's transcript (its id, the workspace it ran in, the key it belongs to). */
export function sessionHeader(sessionId: string, cwd: string, sessionKey: string, at = Date.now()): TranscriptHeader {
  return { type: 'session', version: 1, id: sessionId, timestamp: new Date(at).toISOString(), cwd, sessionKey }
}

export interface TranscriptOptions {
  /** fsync after every append (default false: a process crash cannot lose written data, only power loss) */
  fsync?: boolean
}

export class Transcript {
  static sessionsDir(stateDir: string, agentId: string): string {
    return sessionsDir(stateDir, agentId)
  }

  static pathFor(dir: string, sessionId: string): string {
    return transcriptFile(dir, sessionId)
  }

  static forSession(stateDir: string, agentId: string, sessionId: string, opts?: TranscriptOptions): Transcript {
    return new Transcript(transcriptFile(sessionsDir(stateDir, agentId), sessionId), opts)
  }

  /**
   * a size at which the file is known to end with '\n' (right after this object's last complete append, or
   * as this object last read it): an append at that size needs no torn-line check; -1 = unknown
   */
  private endOfOurAppend = -1

  constructor(
    readonly file: string,
    private readonly opts: TranscriptOptions = {},
  ) {}

  exists(): boolean {
    return fs.existsSync(this.file)
  }

  /** Writes the header line when the file is missing or empty. Returns true when it wrote one. */
  async ensureHeader(header: TranscriptHeader): Promise<boolean> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    let fd: number
    try {
      fd = fs.openSync(this.file, 'wx', 0o600)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      if (fs.statSync(this.file).size > 0) return false
      fd = fs.openSync(this.file, 'a', 0o600)
    }
    try {
      writeWholeOrUndo(fd, Buffer.from(JSON.stringify(header) + '\n', 'utf8'), fs.fstatSync(fd).size, 'transcript')
      if (this.opts.fsync) fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    return true
  }

  async append(entry: TranscriptEntry): Promise<void> {
    this.appendLines([entry])
  }

  /** Appends several entries in one write (still one line each). */
  async appendMany(entries: TranscriptEntry[]): Promise<void> {
    if (entries.length) this.appendLines(entries)
  }

  /** Every entry (torn / garbled lines skipped, garbled ones reported in `damaged`). Only what was appended since the last read is parsed. */
  async readAll(): Promise<TranscriptRead> {
    const read = readTranscript(this.file)
    const end = cleanEndOf(this.file)
    if (end !== undefined) this.endOfOurAppend = end
    return read
  }

  private openForAppend(): number {
    try {
      return fs.openSync(this.file, 'a+', 0o600)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      // only the first append of a new session finds the directory missing: no mkdir per append
      fs.mkdirSync(path.dirname(this.file), { recursive: true })
      return fs.openSync(this.file, 'a+', 0o600)
    }
  }

  private appendLines(entries: TranscriptEntry[]): void {
    let body = ''
    for (const e of entries) body += JSON.stringify(e) + '\n'
    const fd = this.openForAppend()
    try {
      // A previous writer died mid-line: end that line first so ours is not glued onto it. Not needed when
      // the file still ends exactly where our own last append (ending in '\n') left it.
      const size = fs.fstatSync(fd).size
      if (size > 0 && size !== this.endOfOurAppend && !endsInNewline(fd, size)) body = '\n' + TORN_LINE_MARK + '\n' + body
      const buf = Buffer.from(body, 'utf8')
      this.endOfOurAppend = -1
      writeWholeOrUndo(fd, buf, size, 'transcript')
      if (this.opts.fsync) fs.fsyncSync(fd)
      this.endOfOurAppend = size + buf.length
    } finally {
      fs.closeSync(fd)
    }
  }
}
