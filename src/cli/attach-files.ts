// `agent --file PATH`: files from disk as the attachments of the message, checked against the limits the
// gateway advertises and the runtime enforces (src/shared/attachments.ts) before anything is sent, so a
// file that is too big is one clear line, not a closed socket. The bytes decide an image, as in the window.
import fs from 'node:fs'
import path from 'node:path'
import { ATTACHMENT_LIMITS, formatMb, MESSAGE_ATTACHMENTS_MAX_BYTES, sniffImage } from '../shared/attachments'
import { UsageError } from './args'

export interface WireAttachment {
  type: 'image' | 'file'
  mimeType: string
  fileName: string
  content: string
}

/** common types by extension; anything else is application/octet-stream (the runtime names it by path) */
const TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.log': 'text/plain',
}

export function readAttachments(paths: string[]): WireAttachment[] {
  if (paths.length > ATTACHMENT_LIMITS.maxCount) throw new UsageError(`at most ${ATTACHMENT_LIMITS.maxCount} files per message (got ${paths.length})`)
  let total = 0
  return paths.map((p) => {
    let bytes: Buffer
    try {
      const st = fs.statSync(p)
      if (!st.isFile()) throw new Error('not a file')
      // checked before reading: a huge file is refused without loading it
      if (st.size > ATTACHMENT_LIMITS.maxBytes) throw new UsageError(`${p} is ${formatMb(st.size)}: a file may be at most ${formatMb(ATTACHMENT_LIMITS.maxBytes)}`)
      bytes = fs.readFileSync(p)
    } catch (err) {
      if (err instanceof UsageError) throw err
      const code = (err as NodeJS.ErrnoException).code
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (err as Error).message
      throw new UsageError(`cannot attach ${p}: ${why}`)
    }
    total += bytes.length
    if (total > MESSAGE_ATTACHMENTS_MAX_BYTES) throw new UsageError(`the files add up to more than ${formatMb(MESSAGE_ATTACHMENTS_MAX_BYTES)} for one message`)
    const image = sniffImage(bytes)
    if (image && bytes.length > ATTACHMENT_LIMITS.maxImageBytes) throw new UsageError(`${p} is an image of ${formatMb(bytes.length)}: images may be at most ${formatMb(ATTACHMENT_LIMITS.maxImageBytes)}`)
    return {
      type: image ? 'image' : 'file',
      mimeType: image ?? TYPES[path.extname(p).toLowerCase()] ?? 'application/octet-stream',
      fileName: path.basename(p),
      content: bytes.toString('base64'),
    }
  })
}
