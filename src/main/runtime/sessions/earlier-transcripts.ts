// Which transcript file a (sessionKey, sessionId) pair names: the session's current one, or one a reset moved
// aside (`<id>.jsonl.new|reset.<ts>`, whose header line still names the session key). chat.history reads these
// for `messageId` anchors a client kept from before the reset. A deleted session's transcript is not offered.
import fs from 'node:fs'
import path from 'node:path'
import { openRegularFileSync } from '../open-regular-file'
import { isValidSessionId } from './paths'
import type { SessionStore } from './session-store'

const RESET_ARCHIVE = /^\.(new|reset)\.[0-9TZ-]+$/
/** the header is the first line; it is small, this only bounds a garbled file */
const HEAD_BYTES = 64 * 1024

/** The transcript file of `sessionId` when it is, or was before a reset, a transcript of `sessionKey`. */
export function transcriptOfSession(store: SessionStore, sessionKey: string, sessionId: string): string | undefined {
  if (store.get(sessionKey)?.sessionId === sessionId) return store.transcriptPath(sessionId)
  if (!isValidSessionId(sessionId)) return undefined
  const prefix = `${sessionId}.jsonl`
  let names: string[]
  try {
    names = fs.readdirSync(store.dir)
  } catch {
    return undefined
  }
  // newest first: the timestamps sort as text
  const archives = names.filter((n) => n.startsWith(prefix) && RESET_ARCHIVE.test(n.slice(prefix.length))).sort().reverse()
  for (const name of archives) {
    const file = path.join(store.dir, name)
    if (headerKey(file) === sessionKey) return file
  }
  return undefined
}

function headerKey(file: string): string | undefined {
  let fd: number | undefined
  try {
    fd = openRegularFileSync(file) // a FIFO under an archive's name is no transcript, and not waited on
    const buf = Buffer.alloc(HEAD_BYTES)
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0)
    const line = buf.subarray(0, n).toString('utf8').split('\n', 1)[0]
    const h = JSON.parse(line) as { type?: unknown; sessionKey?: unknown }
    return h.type === 'session' && typeof h.sessionKey === 'string' ? h.sessionKey : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
