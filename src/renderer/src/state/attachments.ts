// Composer attachments: what the user picked, pasted or dropped, checked against the runtime's limits when
// added (from the size and a few header bytes: nothing too large is ever read), read as base64 only when
// the message is sent. Pending attachments live in memory only — a reload drops them (drafts persist
// their text, never file bytes or handles).
import {
  ATTACHMENT_LIMITS,
  MESSAGE_ATTACHMENTS_MAX_BYTES,
  attachmentLine,
  formatMb,
  sniffImage,
} from '../../../shared/attachments'
import { formatBytes } from '../lib/format'
import { readBase64, readHeader } from '../lib/read-file'

export interface PendingAttachment {
  id: string
  /** a handle on the file; its bytes are read when the message is sent */
  file: File
  fileName: string
  sizeBytes: number
  /** what the runtime will record: the sniffed image type, else the declared non-image type */
  mimeType: string
  /** png/jpeg/gif/webp by its bytes: the runtime sends it to the model as an image */
  image: boolean
  /** object URL of the thumbnail (images only); revoked when the attachment goes away */
  previewUrl?: string
}

/** One attachment as `chat.send` carries it. */
export interface WireAttachment {
  type: 'image' | 'file'
  mimeType: string
  fileName: string
  content: string
}

const DECLARED_TYPE = /^[\w.+-]+\/[\w.+-]+$/

/** The runtime's rule: the bytes decide an image; a declared "image/…" that is not one is a plain file. */
function mimeOf(file: File, sniffed: string | undefined): string {
  if (sniffed) return sniffed
  const declared = file.type.toLowerCase()
  return DECLARED_TYPE.test(declared) && !declared.startsWith('image/') ? declared : 'application/octet-stream'
}

/** “name” (size); the size in bytes when rounding would make it look like the limit it exceeds */
function named(f: File, limit?: number): string {
  const size = formatBytes(f.size)
  const exact = limit !== undefined && size === formatMb(limit) ? `${f.size.toLocaleString('en')} bytes` : size
  return `“${f.name || 'pasted file'}” (${exact})`
}

function preview(file: File): string | undefined {
  try {
    return typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : undefined
  } catch {
    return undefined
  }
}

/**
 * Checks `files` against the limits, given what is already attached. Returns the ones that may be sent and
 * one message per refused file naming it and the limit it exceeds.
 */
export async function admitFiles(current: PendingAttachment[], files: File[], newId: () => string): Promise<{ added: PendingAttachment[]; errors: string[] }> {
  const added: PendingAttachment[] = []
  const errors: string[] = []
  let total = current.reduce((n, a) => n + a.sizeBytes, 0)
  const tooMany: File[] = []
  for (const file of files) {
    if (current.length + added.length >= ATTACHMENT_LIMITS.maxCount) {
      tooMany.push(file)
      continue
    }
    if (file.size === 0) {
      errors.push(`${named(file)} is empty.`)
      continue
    }
    if (file.size > ATTACHMENT_LIMITS.maxBytes) {
      errors.push(`${named(file, ATTACHMENT_LIMITS.maxBytes)} is larger than the ${formatMb(ATTACHMENT_LIMITS.maxBytes)} limit for one attachment.`)
      continue
    }
    let header: Uint8Array
    try {
      header = await readHeader(file)
    } catch (err) {
      errors.push(`${named(file)} could not be read: ${(err as Error).message}`)
      continue
    }
    const sniffed = sniffImage(header)
    if (sniffed && file.size > ATTACHMENT_LIMITS.maxImageBytes) {
      errors.push(`${named(file, ATTACHMENT_LIMITS.maxImageBytes)} is an image larger than the ${formatMb(ATTACHMENT_LIMITS.maxImageBytes)} image limit.`)
      continue
    }
    if (total + file.size > MESSAGE_ATTACHMENTS_MAX_BYTES) {
      errors.push(`${named(file)} would bring this message’s attachments to ${formatBytes(total + file.size)}, over the ${formatMb(MESSAGE_ATTACHMENTS_MAX_BYTES)} one message can carry.`)
      continue
    }
    total += file.size
    added.push({
      id: newId(),
      file,
      fileName: file.name || `pasted-file${sniffed ? `.${sniffed.slice(6).replace('jpeg', 'jpg')}` : ''}`,
      sizeBytes: file.size,
      mimeType: mimeOf(file, sniffed),
      image: !!sniffed,
      previewUrl: sniffed ? preview(file) : undefined,
    })
  }
  if (tooMany.length) {
    const names = tooMany.map((f) => `“${f.name || 'pasted file'}”`).join(', ')
    errors.push(`Not added: ${names}. A message can carry at most ${ATTACHMENT_LIMITS.maxCount} attachments.`)
  }
  return { added, errors }
}

/** Reads each attachment as base64 for `chat.send` (throws naming the file that could not be read). */
export async function encodeAttachments(list: PendingAttachment[]): Promise<WireAttachment[]> {
  const out: WireAttachment[] = []
  for (const a of list) {
    let content: string
    try {
      content = await readBase64(a.file)
    } catch (err) {
      throw new Error(`“${a.fileName}” could not be read: ${(err as Error).message}`, { cause: err })
    }
    out.push({ type: a.image ? 'image' : 'file', mimeType: a.mimeType, fileName: a.fileName, content })
  }
  return out
}

/** The lines the runtime will add to the message (without the saved path, which only it knows). */
export const echoLines = (list: PendingAttachment[]) => list.map((a) => attachmentLine(a))

export function releasePreviews(list: PendingAttachment[]): void {
  for (const a of list) if (a.previewUrl) URL.revokeObjectURL(a.previewUrl)
}
