/**
 * Largest WebSocket frame the gateway accepts after hello-ok (its `LIMITS.maxPayload`). One request is one
 * frame, so whatever a client sends in one call — attachments included, as base64 — must fit in it.
 */
export const GATEWAY_MAX_FRAME_BYTES = 25 * 1024 * 1024

/** Length of the base64 text of `bytes` bytes (padded). */
export const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4

/**
 * Attachment limits the gateway advertises (hello-ok v4 `policy.attachments`) and the runtime enforces.
 * Sizes are of the decoded bytes of one attachment.
 */
export const ATTACHMENT_LIMITS = {
  /**
   * any one attachment. 18 MiB is the largest whole MiB whose base64 (24 MiB) still leaves room in one
   * gateway frame (25 MiB) for the rest of the request; 19 MiB would be 25.33 MiB of base64.
   */
  maxBytes: 18 * 1024 * 1024,
  /** any one image (images are sent to the model inline) */
  maxImageBytes: 6 * 1024 * 1024,
  /** attachments per message */
  maxCount: 32,
} as const

/**
 * All attachments of one message together (decoded). The composer checks it before sending (over WebSocket
 * a larger request would not fit in one frame and the gateway would close the socket, 1009, instead of
 * answering) and the runtime enforces it too, for callers without a frame limit (IPC, embedded).
 */
export const MESSAGE_ATTACHMENTS_MAX_BYTES = ATTACHMENT_LIMITS.maxBytes

/** Image types the runtime sends to the model inline (decided by the bytes, see `sniffImage`). */
export const INLINE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const

const latin1 = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to))

/** The image type the bytes are, by magic number (the first 12 bytes decide); undefined for anything else. */
export function sniffImage(b: Uint8Array): string | undefined {
  const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (b.length >= 8 && PNG.every((x, i) => b[i] === x)) return 'image/png'
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg'
  if (b.length >= 6 && (latin1(b, 0, 6) === 'GIF87a' || latin1(b, 0, 6) === 'GIF89a')) return 'image/gif'
  if (b.length >= 12 && latin1(b, 0, 4) === 'RIFF' && latin1(b, 8, 12) === 'WEBP') return 'image/webp'
  return undefined
}

/** "12.3 MB" (MiB, one decimal; whole numbers without it), the unit the runtime's messages use. */
export const formatMb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`

/**
 * The line that stands for one attachment in a user message: the runtime appends it to the message it
 * accepts (with `path`, where the file was saved) and the composer shows the same line (without it) until
 * the transcript's message replaces the local echo.
 */
export function attachmentLine(a: { image: boolean; fileName: string; mimeType: string; sizeBytes: number; path?: string }): string {
  return `[${a.image ? 'Image' : 'File'} attached: ${a.fileName} (${a.mimeType}, ${a.sizeBytes} bytes)${a.path ? ` saved at ${a.path}` : ''}]`
}

/** The message text followed by one line per attachment (a blank line between them). */
export function withAttachmentLines(message: string, lines: string[]): string {
  if (lines.length === 0) return message
  const joined = lines.join('\n')
  return message.trim() ? `${message}\n\n${joined}` : joined
}
