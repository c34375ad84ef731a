// Content search over transcripts (the sidebar's "search sessions and messages"): the newest message whose
// text, tool call (name and arguments) or tool output contains the query, with a snippet around the match
// (message-search.ts: bounded per message). A line is only parsed when its raw JSON already contains the
// query as JSON would encode it, or each of its words and marks for a reply whose rendering may show it
// (rendered-find.ts `mayShow`), so a search over many sessions reads the files but parses almost nothing.
// Metadata is not searched.
import { countOccurrences, matchMessageSnippet, type SearchRole } from '../../../shared/message-search'
import { mayShow, queryShape, type QueryShape } from '../../../shared/rendered-find'
import { readTranscriptForFind } from './transcript-text-cache'
import { readRegularFileText } from '../open-regular-file'

export interface TranscriptHit {
  /** the transcript entry's id: chat.history's row id (`__openclaw.id`), so a window can be loaded around it */
  messageId: string
  role: SearchRole
  /** one line of the message around the match, with … where it was cut */
  snippet: string
}

/** The newest matching message of one transcript's text (JSONL), or undefined. `query` is matched case-insensitively. */
export function searchTranscriptText(jsonl: string, query: string): TranscriptHit | undefined {
  const scan = new TranscriptScan(jsonl, query)
  return scan.next(Infinity)
}

export interface TranscriptFind {
  /** the matching messages, oldest first: the newest `limit` of them, each with how often the query occurs in it */
  matches: Array<{ messageId: string; role: SearchRole; count: number }>
  /** how many messages match in all (more than `matches` holds when over `limit`) */
  total: number
  /** how many occurrences in all (those of messages not listed too) */
  occurrences: number
  partial?: true
}

/**
 * Every matching message of one transcript file (find in a conversation), counted, the newest `limit` kept;
 * a slice at a time as searchTranscriptFile. Past `deadline`: what was found so far, `partial`.
 */
export async function findInTranscriptFile(file: string, query: string, limit: number, deadline = Infinity): Promise<TranscriptFind> {
  const read = await readTranscriptForFind(file)
  if (!read) return { matches: [], total: 0, occurrences: 0 }
  const scan = new TranscriptScan(read.text, query, true, read.lower)
  const newestFirst: TranscriptFind['matches'] = []
  let total = 0
  let occurrences = 0
  for (;;) {
    // a slice may hold many matches: each call returns one and goes on from there
    const stopAt = scan.position - SLICE_CHARS
    for (let hit = scan.next(SLICE_CHARS); hit; hit = scan.next(scan.position - stopAt)) {
      total++
      // a match found in the raw line but not in what find reads of the message is no match (snippet: undefined)
      const count = Math.max(1, hit.count ?? 1)
      occurrences += count
      if (newestFirst.length < limit) newestFirst.push({ messageId: hit.messageId, role: hit.role, count })
    }
    if (scan.done) break
    if (Date.now() > deadline) return { matches: newestFirst.reverse(), total, occurrences, partial: true }
    await new Promise((r) => setImmediate(r))
  }
  return { matches: newestFirst.reverse(), total, occurrences }
}

/** characters scanned between two turns of the event loop (~3 ms each): a large transcript does not hold it */
const SLICE_CHARS = 1_000_000

/**
 * A backwards scan over one transcript's lines that can stop after a number of characters and go on later.
 * The query is matched case-insensitively against the raw line first (as JSON would encode it, or word by word
 * for a reply that may show it once rendered: rendered-find.ts `mayShow`), so only a line that may match is parsed.
 */
class TranscriptScan {
  private end: number
  private readonly needle: string
  private readonly encoded: string
  private readonly shape: QueryShape

  constructor(
    private readonly jsonl: string,
    query: string,
    /** find: each hit says how often the query occurs in its message */
    private readonly counting = false,
    /** `jsonl` lowercase, offset for offset (else each line is lowercased as it is read) */
    private readonly lowerJsonl?: string,
  ) {
    this.needle = query.toLowerCase()
    // how the query appears inside a JSON string (quotes, backslashes and control characters escaped)
    this.encoded = JSON.stringify(this.needle).slice(1, -1)
    this.shape = queryShape(this.needle)
    this.end = this.needle ? jsonl.length : 0
  }

  get done(): boolean {
    return this.end <= 0
  }

  /** where the scan goes on (it moves towards 0) */
  get position(): number {
    return this.end
  }

  /** Scans at most about `chars` characters; the hit, or undefined (check `done` to tell "none" from "not yet"). */
  next(chars: number): (TranscriptHit & { count?: number }) | undefined {
    const { jsonl, needle, encoded } = this
    const stop = this.end - chars
    let end = this.end
    while (end > 0 && end > stop) {
      const start = jsonl.lastIndexOf('\n', end - 1) + 1
      const line = jsonl.slice(start, end)
      const lower = this.lowerJsonl ? this.lowerJsonl.slice(start, end) : line.toLowerCase()
      end = start - 1
      // a reply may show the query where its source has it not (`AT&amp;T` shows "AT&T"): such a line is parsed too
      const inSource = lower.includes(encoded)
      if (!inSource && !mayShow(lower, this.shape)) continue
      let entry: { type?: unknown; id?: unknown; message?: { role?: unknown; content?: unknown } }
      try {
        entry = JSON.parse(line) as typeof entry
      } catch {
        continue // a torn last line
      }
      const role = entry.message?.role
      if (entry.type !== 'message' || typeof entry.id !== 'string' || (role !== 'user' && role !== 'assistant' && role !== 'toolResult')) continue
      if (this.counting) {
        // find counts what the window shows (a reply's rendered markdown): a match only in its source (a URL,
        // `**` between words) is none there, one only in its rendering (`&amp;`, `\*`, across `**`) is one
        const count = countOccurrences(entry.message!, needle)
        if (count === 0) continue
        // the next call goes on before this line (finding every match of a session)
        this.end = end
        return { messageId: entry.id, role, snippet: '', count }
      }
      // a user message or tool output shows as written: only a reply can match where its line did not
      if (!inSource && role !== 'assistant') continue
      const snippet = matchMessageSnippet(entry.message!, needle)
      if (snippet !== undefined) {
        this.end = end
        return { messageId: entry.id, role, snippet }
      }
    }
    this.end = end
    return undefined
  }
}

/**
 * As searchTranscriptText, reading the file, a slice at a time with the event loop turning in between;
 * a missing or unreadable file has no match. Past `deadline` (ms, Date.now) it gives up: `partial`.
 */
export async function searchTranscriptFile(file: string, query: string, deadline = Infinity): Promise<{ hit?: TranscriptHit; partial?: true }> {
  let text: string
  try {
    text = await readRegularFileText(file)
  } catch {
    return {}
  }
  const scan = new TranscriptScan(text, query)
  for (;;) {
    const hit = scan.next(SLICE_CHARS)
    if (hit) return { hit }
    if (scan.done) return {}
    if (Date.now() > deadline) return { partial: true }
    await new Promise((r) => setImmediate(r))
  }
}
