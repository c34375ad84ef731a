// Runs a crash cut off before recovery closed them with a message of their own (runner/recovery.ts writes an
// `interrupted` assistant message since 2026-11-27; before that it wrote only tool results for dangling calls and
// a `run` entry with phase `interrupted`). Such a run cut off after a tool turn ends, in its transcript, with that
// turn (stopReason `toolUse`) and reloaded as "Done". The `run` entry is the evidence: only recovery writes it,
// for the run that was active when the process died. A run with such an entry whose last assistant message
// called tools did not finish; one that ended on a reply, was stopped or failed, or that recovery closed itself,
// is left as it reads.
import type { TranscriptEntry } from '../contracts'

/** The entry ids of the assistant messages (a tool turn each) with which such runs end; empty for most transcripts. */
export function cutOffToolTurns(entries: readonly TranscriptEntry[]): Set<string> {
  const marked = new Set<string>()
  for (const e of entries) if (e.type === 'run' && e.phase === 'interrupted') marked.add(e.runId)
  const out = new Set<string>()
  if (marked.size === 0) return out
  const lastAssistant = new Map<string, Extract<TranscriptEntry, { type: 'message' }>>()
  const closed = new Set<string>()
  for (const e of entries) {
    if (e.type !== 'message' || !e.runId || !marked.has(e.runId) || e.message.role !== 'assistant') continue
    lastAssistant.set(e.runId, e)
    if ((e.message as { interrupted?: unknown }).interrupted === true) closed.add(e.runId)
  }
  for (const [runId, e] of lastAssistant) if (!closed.has(runId) && e.message.stopReason === 'toolUse') out.add(e.id)
  return out
}
