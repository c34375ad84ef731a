// sessions.create `fork`: a new session that starts with a copy of its parent's conversation ("try this
// another way" without losing the original). The parent's transcript is only read; the child gets its own
// file with the parent's messages and compaction summaries — not the parent's run markers, which describe
// runs of the parent (a copied unfinished one would look like an interrupted run of the child).
import { isCompletedReply, textOf } from '../../../shared/history-row'
import type { TranscriptEntry } from '../contracts'
import { sessionHeader, Transcript } from './transcript'

/**
 * The entries a fork starts with: the parent's messages and compactions, all of them or (`last-completed`)
 * through its last completed reply. Undefined when `last-completed` finds no completed reply.
 */
export function forkEntries(entries: readonly TranscriptEntry[], from?: 'last-completed'): TranscriptEntry[] | undefined {
  let end = entries.length
  if (from === 'last-completed') {
    end = entries.findLastIndex((e) => e.type === 'message' && isCompletedReply(e.message)) + 1
    if (end === 0) return undefined
  }
  return entries.slice(0, end).filter((e) => e.type === 'message' || e.type === 'compaction')
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
  const wrote = await t.ensureHeader(sessionHeader(header.sessionId, header.cwd, header.sessionKey))
  if (!wrote) throw new Error(`a transcript for session ${header.sessionId} already exists`)
  await t.appendMany(entries)
}
