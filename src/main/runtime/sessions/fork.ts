// sessions.create `fork`: a new session that starts with a copy of its parent's conversation ("try this
// another way" without losing the original). The parent's transcript is only read; the child gets its own
// file with the parent's messages and compaction summaries — not the parent's run markers, which describe
// runs of the parent (a copied unfinished one would look like an interrupted run of the child).
import fs from 'node:fs'
import { isCompletedReply, textOf } from '../../../shared/history-row'
import type { TranscriptEntry } from '../contracts'
import { sessionHeader, Transcript } from './transcript'

/**
 * Where a fork ends: the parent's end, its last completed reply (`last-completed`), or just before one of its
 * user messages (`sessions.fork`: the copy ends where that message was sent, so it can be sent again, edited
 * or not, without the reply it got).
 */
export type ForkPoint = 'last-completed' | { beforeEntryId: string }

/**
 * The entries a fork starts with: the parent's messages and compactions up to the fork point. Undefined when
 * there is no such point (no completed reply; no user message with that id).
 */
export function forkEntries(entries: readonly TranscriptEntry[], from?: ForkPoint): TranscriptEntry[] | undefined {
  let end = entries.length
  if (from === 'last-completed') {
    end = entries.findLastIndex((e) => e.type === 'message' && isCompletedReply(e.message)) + 1
    if (end === 0) return undefined
  } else if (from) {
    end = entries.findIndex((e) => e.type === 'message' && e.id === from.beforeEntryId && e.message.role === 'user')
    if (end < 0) return undefined
  }
  return entries.slice(0, end).filter((e) => e.type === 'message' || e.type === 'compaction')
}

/** The text of the user message with that entry id (what `sessions.fork` hands back for the composer). */
export function userMessageText(entries: readonly TranscriptEntry[], entryId: string): string | undefined {
  const e = entries.find((x) => x.type === 'message' && x.id === entryId && x.message.role === 'user')
  return e?.type === 'message' ? textOf(e.message.content) : undefined
}

/** The text of the last assistant reply among the entries (the new row's preview), at most 200 chars. */
export function lastReplyPreview(entries: readonly TranscriptEntry[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type !== 'message' || e.message.role !== 'assistant') continue
    const text = textOf(e.message.content)
    if (text.trim()) return text.slice(0, 200)
  }
  return undefined
}

/** Writes the child's transcript (header + the forked entries, one append). The file must not exist yet. */
export async function writeForkTranscript(
  file: string,
  header: { sessionId: string; sessionKey: string; cwd: string },
  entries: TranscriptEntry[],
): Promise<void> {
  const t = new Transcript(file)
  if (t.exists()) throw new Error(`a transcript for session ${header.sessionId} already exists`)
  try {
    await t.ensureHeader(sessionHeader(header.sessionId, header.cwd, header.sessionKey))
    await t.appendMany(entries)
  } catch (err) {
    // a copy the disk refused leaves no empty or header-only file behind (no row names it: nothing would remove it)
    fs.rmSync(file, { force: true })
    throw err
  }
}
