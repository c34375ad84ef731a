// What a crash cut off: the reply the user was watching stream is written to the transcript only when its
// message ends, so after a kill -9 only the Inspector's event log (events/event-log.ts, appended every 250 ms)
// still has it. Recovery rebuilds from it the text of the assistant message that was streaming and when the
// run was last seen alive. Nothing is added to the streaming path: the log is written anyway, and a crash
// loses at most its last unflushed 250 ms.
// A run's events carry consecutive seq numbers, and the log writes them all: a gap means appends were lost (a
// full disk refused them, then took later ones). The text stops at the gap — the reply as far as it is known
// whole, never one with its middle missing (text after a later tool event is a new message, whole again).
// The log's size cap keeps its newest half from a line start (EventLog.keepNewestHalf), which can fall inside a
// streaming run: then the run's first line left is not its seq 1, and the text up to its next tool event has
// lost its beginning — it is treated as past a gap, never a reply that starts mid-way as if whole.
// `incomplete` says the log lost some of the run's text (a gap or a trimmed start): recovery says so.
import fs from 'node:fs'
import type { AgentEvent } from '../../../shared/events'
import { openRegularFileSync } from '../open-regular-file'

export interface PartialReply {
  /** visible text of the message that was streaming ('' when none had started or the log has none of it) */
  text: string
  /** when that message's first text arrived */
  textStartedAt?: number
  /** when the run started (its lifecycle start), if the log has it */
  startedAt?: number
  /** the run's last logged event: the last moment it is known to have been alive */
  lastAt: number
  /** the error its lifecycle ended with, if the log has it (a run that ended on a storage error it could not write) */
  error?: string
  /** text of the message that was streaming is missing from the log (a seq gap before it, or its start trimmed away) */
  incomplete?: true
}

/** the log is bounded (~1 MiB, EventLog's maxFileBytes): never read more than twice that */
const MAX_READ = 2 * 1024 * 1024

function readTail(file: string): string {
  const fd = openRegularFileSync(file) // a FIFO under the log's name would hang the start's recovery
  try {
    const size = fs.fstatSync(fd).size
    const len = Math.min(size, MAX_READ)
    const buf = Buffer.alloc(len)
    const n = fs.readSync(fd, buf, 0, len, size - len)
    const text = buf.subarray(0, n).toString('utf8')
    return len < size ? text.slice(text.indexOf('\n') + 1) : text
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The run's streaming message as far as the event log holds it, or undefined when the log has no event of the
 * run (missing file, nothing flushed yet). `persistedText`: the visible text of the run's last assistant message
 * already in the transcript, which a steer (no tool event in between) may leave at the start of the segment.
 */
export function readPartialReply(file: string, runId: string, persistedText = ''): PartialReply | undefined {
  let raw: string
  try {
    raw = readTail(file)
  } catch {
    return undefined
  }
  let found = false
  let text = ''
  let textStartedAt: number | undefined
  let startedAt: number | undefined
  let lastAt = 0
  let error: string | undefined
  let seq: number | undefined
  let gap = false
  /** assistant text of the current message was skipped past a gap */
  let lost = false
  for (const line of raw.split('\n')) {
    // cheap filter before parsing: most lines of a busy session's log belong to other runs
    if (!line || !line.includes(runId)) continue
    let ev: AgentEvent
    try {
      ev = JSON.parse(line) as AgentEvent
    } catch {
      continue // the torn last line of a killed append
    }
    if (ev.runId !== runId) continue
    found = true
    if (typeof ev.ts === 'number') lastAt = Math.max(lastAt, ev.ts)
    if (typeof ev.seq === 'number') {
      // the run's first line left must be its first event: else the trim took its start
      if (seq === undefined ? ev.seq !== 1 : ev.seq !== seq + 1) gap = true
      seq = ev.seq
    }
    // past a gap the message's text is not known whole; a tool starts the next message afresh
    if (gap && ev.stream !== 'lifecycle' && ev.stream !== 'tool') {
      if (ev.stream === 'assistant') lost = true
      continue
    }
    const d = (ev.data ?? {}) as { phase?: unknown; delta?: unknown; text?: unknown; replace?: unknown }
    if (ev.stream === 'lifecycle' && d.phase === 'start') startedAt ??= ev.ts
    else if (ev.stream === 'lifecycle' && d.phase === 'error') error = typeof (d as { error?: unknown }).error === 'string' ? (d as { error: string }).error : undefined
    else if (ev.stream === 'tool') {
      // tools run after their message ended (and was written): text after them is a new message
      text = ''
      textStartedAt = undefined
      gap = false
      lost = false
    } else if (ev.stream === 'assistant') {
      // a replacement (think-tag split, a repeat of a message send) carries its whole text; other events only their delta
      text = d.replace === true && typeof d.text === 'string' ? d.text : text + (typeof d.delta === 'string' ? d.delta : '')
      // the message's text starts when shown text does (a replacement may take it all back)
      if (text) textStartedAt ??= ev.ts
      else textStartedAt = undefined
    }
  }
  if (!found) return undefined
  if (persistedText && text.startsWith(persistedText)) text = text.slice(persistedText.length)
  return { text, textStartedAt, startedAt, lastAt, ...(error !== undefined ? { error } : {}), ...(lost ? { incomplete: true as const } : {}) }
}
