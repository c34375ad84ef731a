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

/** The text of one `"key": {...}` member, indented as JSON.stringify(store, null, 2) would. */
export const encodeMember = (key: string, entry: SessionEntry): string =>
  `  ${JSON.stringify(key)}: ${JSON.stringify(entry, null, 2).replace(/\n/g, '\n  ')}`

export const joinMembers = (members: Iterable<string>): string => {
  const parts = [...members]
  return parts.length ? `{\n${parts.join(',\n')}\n}\n` : '{}\n'
}

/** Cached entries are shared with callers of get(): freezing turns accidental mutation into an error. */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const child of Object.values(v as Record<string, unknown>)) deepFreeze(child)
  }
  return v
}
