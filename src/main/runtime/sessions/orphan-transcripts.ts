// Start-up: when sessions.json lists no session at all and is not a valid empty store (what deleting the last
// session leaves), every live transcript (`<sessionId>.jsonl`) gets its row back. sessions.json is the only index of the conversations: when it is lost (a power loss leaving it
// NUL-filled or empty, a hand edit gone wrong, a deleted file) the store starts empty and every conversation
// vanished from the list although each transcript is still on disk — and the next message to `main` started a
// new one. Each transcript's header names its session key, so the row can be rebuilt: the key, the session id
// and its times (the rest — labels, model choices — was only in the lost row). Per key, the newest transcript
// wins. A store that still lists sessions is not second-guessed: a transcript it does not name may be one
// sessions.delete was stopped from archiving (its row goes first), and that session must stay deleted.
// Archived transcripts (`<id>.jsonl.<reason>.<ts>`) are not looked at: their names never match.
import fs from 'node:fs'
import path from 'node:path'
import { NONBLOCK } from '../open-regular-file'
import { isValidSessionId } from './paths'
import { readStoreText } from './store-core'
import type { SessionStore } from './session-store'

/** the header is one short line; a first line longer than this is not one */
const HEADER_MAX_BYTES = 64 * 1024
const LIVE_RE = /^(.+)\.jsonl$/

export interface AdoptedTranscript {
  sessionKey: string
  sessionId: string
}

interface Orphan {
  key: string
  sessionId: string
  mtimeMs: number
  createdAt?: number
}

/** With no session listed: every live transcript with a readable header gets its row back; returns what was re-added. */
export async function adoptOrphanTranscripts(store: SessionStore): Promise<AdoptedTranscript[]> {
  // checked first: every start passes here, and a store that lists sessions needs no folder listing
  if (store.list().length > 0 || storeEmptiedOnPurpose(store.path)) return []
  let names: string[]
  try {
    names = fs.readdirSync(store.dir)
  } catch {
    return []
  }
  const newest = new Map<string, Orphan>()
  for (const name of names) {
    const id = LIVE_RE.exec(name)?.[1]
    if (!id || !isValidSessionId(id)) continue
    const o = readOrphan(path.join(store.dir, name), id, store)
    if (!o) continue
    const cur = newest.get(o.key)
    if (!cur || o.mtimeMs > cur.mtimeMs) newest.set(o.key, o)
  }
  const out: AdoptedTranscript[] = []
  for (const o of newest.values()) {
    // the row is written only where there is none (another process may have made one meanwhile)
    const stored = await store.update(o.key, (cur) =>
      cur ? undefined : { sessionId: o.sessionId, updatedAt: Math.round(o.mtimeMs), ...(o.createdAt ? { createdAt: o.createdAt } : {}) },
    )
    if (stored?.sessionId === o.sessionId) out.push({ sessionKey: o.key, sessionId: o.sessionId })
  }
  if (out.length) console.warn(`[sessions] ${store.path} listed no session: ${out.length} restored from their transcripts`)
  return out
}

/**
 * sessions.json is a valid store with no session in it: what deleting the last session writes (its row goes first,
 * then its transcript is archived), so a deletion stopped in between must not bring it back. A lost store is not
 * that: missing, emptied, NUL-filled or unparsable (and one whose rows were all unusable has keys).
 */
function storeEmptiedOnPurpose(file: string): boolean {
  try {
    const raw: unknown = JSON.parse(readStoreText(file))
    return !!raw && typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0
  } catch {
    return false
  }
}

/** The header's session key (this agent's, canonical) when the file is a regular transcript of `id`. */
function readOrphan(file: string, id: string, store: SessionStore): Orphan | undefined {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | NONBLOCK)
    const st = fs.fstatSync(fd)
    if (!st.isFile()) return undefined
    const buf = Buffer.alloc(Math.min(HEADER_MAX_BYTES, st.size))
    const n = fs.readSync(fd, buf, 0, buf.length, 0)
    const nl = buf.subarray(0, n).indexOf(0x0a)
    // a header alone holds nothing to list (a fork whose copy failed, a run that never wrote its message)
    if (nl < 0 || st.size <= nl + 1) return undefined
    const h = JSON.parse(buf.subarray(0, nl).toString('utf8')) as { type?: unknown; id?: unknown; sessionKey?: unknown; timestamp?: unknown }
    if (h?.type !== 'session' || h.id !== id || typeof h.sessionKey !== 'string') return undefined
    const key = store.canonicalKey(h.sessionKey)
    if (!key) return undefined
    const createdAt = typeof h.timestamp === 'string' ? Date.parse(h.timestamp) : NaN
    return { key, sessionId: id, mtimeMs: st.mtimeMs, ...(Number.isFinite(createdAt) ? { createdAt } : {}) }
  } catch {
    return undefined // unreadable or no header: which session it was cannot be told
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
