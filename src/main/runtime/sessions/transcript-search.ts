// Content search over transcripts (the sidebar's "search sessions and messages"): the newest user or
// assistant message whose visible text contains the query, with a snippet around the match. A line is only
// parsed when its raw JSON already contains the query as JSON would encode it, so a search over many
// sessions reads the files but parses almost nothing. Tool calls, tool output and metadata are not searched.
import fs from 'node:fs'
import { matchSnippet } from '../../../shared/message-search'

export interface TranscriptHit {
  role: 'user' | 'assistant'
  /** one line of the message around the match, with … where it was cut */
  snippet: string
}

/** The newest matching message of one transcript's text (JSONL), or undefined. `query` is matched case-insensitively. */
export function searchTranscriptText(jsonl: string, query: string): TranscriptHit | undefined {
  const needle = query.toLowerCase()
  if (!needle) return undefined
  // how the query appears inside a JSON string (quotes, backslashes and control characters escaped)
  const encoded = JSON.stringify(needle).slice(1, -1)
  let end = jsonl.length
  while (end > 0) {
    const start = jsonl.lastIndexOf('\n', end - 1) + 1
    const line = jsonl.slice(start, end)
    end = start - 1
    if (!line.toLowerCase().includes(encoded)) continue
    let entry: { type?: unknown; message?: { role?: unknown; content?: unknown } }
    try {
      entry = JSON.parse(line) as typeof entry
    } catch {
      continue // a torn last line
    }
    const role = entry.message?.role
    if (entry.type !== 'message' || (role !== 'user' && role !== 'assistant')) continue
    const snippet = matchSnippet(entry.message?.content, needle)
    if (snippet !== undefined) return { role, snippet }
  }
  return undefined
}

/** As searchTranscriptText, reading the file; a missing or unreadable file has no match. */
export async function searchTranscriptFile(file: string, query: string): Promise<TranscriptHit | undefined> {
  let text: string
  try {
    text = await fs.promises.readFile(file, 'utf8')
  } catch {
    return undefined
  }
  return searchTranscriptText(text, query)
}
