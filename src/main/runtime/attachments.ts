// Message attachments (OpenClaw `attachments` on agent / chat.send / sessions.send): normalized, checked
// and written to `<stateDir>/media/inbound` BEFORE the call is acknowledged, so an accepted message never
// refers to bytes that only lived in the request. Images reach the model as pi ImageContent (loaded from
// the saved file); other files are referenced in the prompt text by their saved path so tools can read them.
import fs from 'node:fs'
import path from 'node:path'
import { invalid, ApiError } from '../api/errors'
import { newInboundName } from './media/inbound-names'
import { ATTACHMENT_LIMITS, MESSAGE_ATTACHMENTS_MAX_BYTES, attachmentLine as lineOf, formatMb as mb, sniffImage as sniffShared, withAttachmentLines } from '../../shared/attachments'

/** A saved attachment (what the journal, the queue and the run carry; never the bytes). */
export interface SavedAttachment {
  /** absolute path of the saved file */
  path: string
  fileName: string
  mimeType: string
  sizeBytes: number
  /** true when the bytes are a png/jpeg/gif/webp image (sent to the model inline) */
  image: boolean
}

/** One decoded attachment, not yet saved. */
export interface DecodedAttachment {
  fileName: string
  mimeType: string
  bytes: Buffer
  image: boolean
}

const IMAGE_EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' }

/** The image type the bytes are, by magic number; undefined when they are no supported image. */
export const sniffImage = (b: Buffer): string | undefined => sniffShared(b)

/** A file name safe to show and to use as a hint: no directories, no control characters, bounded. */
export function sanitizeFileName(name: unknown, fallback: string): string {
  if (typeof name !== 'string') return fallback
  // the last path segment only (either separator): "../../etc/passwd" → "passwd"
  let base = name.split(/[\\/]/).pop() ?? ''
  base = base.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  if (base === '' || base === '.' || base === '..') return fallback
  return base.length > 200 ? base.slice(0, 200) : base
}

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/

function decodeBase64(s: string, label: string): Buffer {
  // a data URL is accepted too ("data:image/png;base64,....")
  const m = /^data:[^;,]*;base64,/i.exec(s)
  const body = (m ? s.slice(m[0].length) : s).replace(/\s+/g, '')
  if (body.length % 4 === 1 || !B64_RE.test(body.replace(/-/g, '+').replace(/_/g, '/'))) {
    throw invalid(`${label}: content is not valid base64`)
  }
  return Buffer.from(body, 'base64')
}

/**
 * Normalizes the request's attachments (OpenClaw shapes `{type?, mimeType?, fileName?, content}` and
 * Anthropic-style `{source:{type:"base64", media_type, data}}`). Items without content are dropped.
 * Throws INVALID_REQUEST naming the item for bad base64 or an oversize item. A declared image whose bytes
 * are not an image is kept as a plain file (never sent to the model as an image).
 */
export function normalizeAttachments(raw: unknown[] | undefined): DecodedAttachment[] {
  if (!raw?.length) return []
  if (raw.length > ATTACHMENT_LIMITS.maxCount) throw invalid(`too many attachments (max ${ATTACHMENT_LIMITS.maxCount})`)
  const out: DecodedAttachment[] = []
  let total = 0
  raw.forEach((item, i) => {
    if (!item || typeof item !== 'object') throw invalid(`attachments[${i}] must be an object`)
    const a = item as Record<string, unknown>
    const src = a.source && typeof a.source === 'object' ? (a.source as Record<string, unknown>) : undefined
    let content: unknown = a.content
    let declared = typeof a.mimeType === 'string' ? a.mimeType : undefined
    if ((content === undefined || content === null || content === '') && src) {
      if (src.type !== undefined && src.type !== 'base64') throw invalid(`attachments[${i}]: source.type "${String(src.type)}" is not supported (base64 only)`)
      content = src.data
      if (!declared && typeof src.media_type === 'string') declared = src.media_type
    }
    if (content === undefined || content === null || content === '') return // no content: dropped (OpenClaw)
    const fileName0 = typeof a.fileName === 'string' ? a.fileName : undefined
    const label = `attachments[${i}]${fileName0 ? ` (${sanitizeFileName(fileName0, 'file')})` : ''}`
    if (typeof content !== 'string') throw invalid(`${label}: content must be a base64 string`)
    // cheap bound before decoding: base64 is 4/3 of the bytes
    if (Math.floor((content.length * 3) / 4) > ATTACHMENT_LIMITS.maxBytes + 3 + 64) {
      throw invalid(`${label} is larger than the ${mb(ATTACHMENT_LIMITS.maxBytes)} attachment limit`)
    }
    const bytes = decodeBase64(content, label)
    if (bytes.length === 0) return
    if (bytes.length > ATTACHMENT_LIMITS.maxBytes) throw invalid(`${label} is larger than the ${mb(ATTACHMENT_LIMITS.maxBytes)} attachment limit`)
    // IPC has no frame limit, so the per-message total is enforced here too (the gateway's frame bounds it anyway)
    total += bytes.length
    if (total > MESSAGE_ATTACHMENTS_MAX_BYTES) {
      throw invalid(`attachments together are larger than the ${mb(MESSAGE_ATTACHMENTS_MAX_BYTES)} per-message limit (at ${label})`)
    }
    const sniffed = sniffImage(bytes)
    if (sniffed && bytes.length > ATTACHMENT_LIMITS.maxImageBytes) {
      throw invalid(`${label} is an image larger than the ${mb(ATTACHMENT_LIMITS.maxImageBytes)} image limit`)
    }
    const declaredClean = declared && /^[\w.+-]+\/[\w.+-]+$/.test(declared) ? declared.toLowerCase() : undefined
    // the bytes decide: a "image/png" that is really text is a file; a png sent as octet-stream is an image
    const mimeType = sniffed ?? (declaredClean && !declaredClean.startsWith('image/') ? declaredClean : 'application/octet-stream')
    const fallback = `attachment-${i + 1}${sniffed ? `.${IMAGE_EXT[sniffed]}` : ''}`
    out.push({ fileName: sanitizeFileName(fileName0, fallback), mimeType, bytes, image: !!sniffed })
  })
  return out
}

/** The extension a saved file gets (from the sniffed image type, else the name's own, else .bin). */
function extOf(a: DecodedAttachment): string {
  if (a.image) return IMAGE_EXT[a.mimeType] ?? 'bin'
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(a.fileName)
  return m ? m[1].toLowerCase() : 'bin'
}

/** The directory inbound attachments are saved in. */
export const inboundMediaDir = (stateDir: string) => path.join(stateDir, 'media', 'inbound')

/**
 * Writes each attachment to `<stateDir>/media/inbound/<uuid>.<ext>` (dir 0700, files 0600, fsynced; the
 * name is what media/media-gc.ts recognizes, and files nothing references any more are removed by it) and
 * returns what was saved. On a write failure, whatever this call already wrote is removed and UNAVAILABLE
 * is thrown (nothing was accepted).
 */
export function saveAttachments(stateDir: string, items: DecodedAttachment[]): SavedAttachment[] {
  if (items.length === 0) return []
  const dir = inboundMediaDir(stateDir)
  const saved: SavedAttachment[] = []
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fs.chmodSync(dir, 0o700)
    for (const a of items) {
      const file = path.join(dir, newInboundName(extOf(a)))
      const fd = fs.openSync(file, 'wx', 0o600)
      try {
        fs.writeSync(fd, a.bytes)
        fs.fsyncSync(fd)
      } finally {
        fs.closeSync(fd)
      }
      saved.push({ path: file, fileName: a.fileName, mimeType: a.mimeType, sizeBytes: a.bytes.length, image: a.image })
    }
  } catch (err) {
    removeAttachments(saved)
    throw new ApiError('UNAVAILABLE', `could not save attachment: ${(err as Error).message}`, undefined, true)
  }
  return saved
}

/** Removes saved files (the call that saved them failed before it was acknowledged). */
export function removeAttachments(saved: SavedAttachment[]): void {
  for (const s of saved) fs.rmSync(s.path, { force: true })
}

/** The prompt line that tells the agent about one attachment (name, type, size, where its tools can read it). */
export function attachmentLine(a: SavedAttachment): string {
  return lineOf(a)
}

/**
 * The message text with one reference line per attachment. Images are listed too: a mode that cannot carry
 * the image itself (steering into a running turn, crash recovery) still tells the agent where it is.
 */
export function messageWithAttachments(message: string, saved: SavedAttachment[]): string {
  return withAttachmentLines(message, saved.map(attachmentLine))
}

/** Images to send inline, read back from their saved files (a file gone since is skipped). */
export function loadImages(saved: SavedAttachment[] | undefined): Array<{ type: 'image'; data: string; mimeType: string }> {
  const out: Array<{ type: 'image'; data: string; mimeType: string }> = []
  for (const s of saved ?? []) {
    if (!s.image) continue
    try {
      out.push({ type: 'image', data: fs.readFileSync(s.path).toString('base64'), mimeType: s.mimeType })
    } catch (err) {
      console.warn(`[attachments] image ${s.path} could not be read:`, (err as Error).message)
    }
  }
  return out
}
