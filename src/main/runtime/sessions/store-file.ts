// sessions.json codec. The file is `JSON.stringify(store, null, 2)`; each entry's text is cached so a write
// only re-serializes the entries that changed (100 sessions with prompt reports are ~100 KB).
import type { SessionEntry } from '../contracts'

export interface DecodedStore {
  entries: Map<string, SessionEntry>
  /** keys whose value was not a usable entry (no sessionId / updatedAt) */
  invalidKeys: string[]
}

export function decodeStore(text: string): DecodedStore {
  const entries = new Map<string, SessionEntry>()
  const invalidKeys: string[] = []
  if (text.trim() === '') return { entries, invalidKeys }
  const raw = JSON.parse(text) as unknown
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new SyntaxError('sessions store must be a JSON object')
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (isEntry(value)) entries.set(key, deepFreeze(value))
    else invalidKeys.push(key)
  }
  return { entries, invalidKeys }
}

export function isEntry(v: unknown): v is SessionEntry {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false
  const e = v as Partial<SessionEntry>
  return typeof e.sessionId === 'string' && e.sessionId !== '' && typeof e.updatedAt === 'number'
}

/**
 * The text of one `"key": {...}` member, indented as JSON.stringify(store, null, 2) would: stringifying a
 * one-member object and dropping its braces gives exactly that, without re-indenting the text by regex.
 */
export const encodeMember = (key: string, entry: SessionEntry): string => JSON.stringify({ [key]: entry }, null, 2).slice(2, -2)

const OPEN = Buffer.from('{\n')
const SEP = Buffer.from(',\n')
const CLOSE = Buffer.from('\n}\n')
const EMPTY = Buffer.from('{}\n')

/**
 * The file `{\n<member>,\n<member>\n}\n` (`{}\n` when empty) as a list of buffers for one vectored write:
 * each member is UTF-8 encoded once after its entry changes, so a write neither re-encodes nor
 * concatenates the whole store.
 */
export function memberChunks(members: Iterable<Uint8Array>): Uint8Array[] {
  const chunks: Uint8Array[] = [OPEN]
  for (const m of members) {
    if (chunks.length > 1) chunks.push(SEP)
    chunks.push(m)
  }
  if (chunks.length === 1) return [EMPTY]
  chunks.push(CLOSE)
  return chunks
}

/** Cached entries are shared with callers of get(): freezing turns accidental mutation into an error. */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const child of Object.values(v as Record<string, unknown>)) deepFreeze(child)
  }
  return v
}
