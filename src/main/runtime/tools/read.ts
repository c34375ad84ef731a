// `read`: a text file (or a small image) from the workspace, paged by lines.
import fs, { constants as C } from 'node:fs'
import Type from 'typebox'
import { inboundMediaDir } from '../attachments'
import { openConfined, privateDirsOf, resolveInWorkspace } from './paths'
import { formatBytes, looksBinary, raceAbort, textResult, throwIfAborted, type ToolResult } from './result'
import { defineTool } from './spec'

export const READ_MAX_FILE_BYTES = 10 * 1024 * 1024
export const READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024
export const READ_DEFAULT_LINES = 2000
export const READ_MAX_CHARS = 50_000
/** files up to this size are read synchronously (a local read of this size takes well under a millisecond) */
const SYNC_READ_MAX_BYTES = 256 * 1024

const params = Type.Object({
  path: Type.String({ description: 'File path, relative to the workspace' }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: 'First line to return (1-based)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of lines (default ${READ_DEFAULT_LINES})` })),
})

/** Image formats recognised by their magic bytes, returned as image blocks the model can look at. */
function imageMime(buf: Uint8Array): string | undefined {
  const b = buf
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png'
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg'
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'image/gif'
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') {
    return 'image/webp'
  }
  return undefined
}

export const readTool = defineTool(
  {
    name: 'read',
    readOnly: true,
    label: 'Read file',
    description:
      `Read a file from the workspace. Returns its text (up to ${READ_DEFAULT_LINES} lines / ${READ_MAX_CHARS} characters per call; ` +
      'use offset/limit to page through longer files). PNG/JPEG/GIF/WebP images are returned as images. Binary files are refused.',
    parameters: params,
  },
  async (ctx, p, signal): Promise<ToolResult> => {
    throwIfAborted(signal, 'read')
    // the attachments folder too: a message's files are named in the prompt by their saved path, to be read
    const readRoots = ctx.stateDir ? [inboundMediaDir(ctx.stateDir)] : undefined
    const rp = await resolveInWorkspace(ctx.workspaceDir, p.path, { privateDirs: privateDirsOf(ctx), readRoots })
    const fh = await openConfined(rp, C.O_RDONLY)
    let buf: Buffer
    try {
      // fstat and small reads are synchronous: cheaper than a thread-pool round trip each (see paths.ts)
      const st = fs.fstatSync(fh.fd)
      if (st.isDirectory()) throw new Error(`"${rp.rel}" is a directory; use the ls tool to list it`)
      if (!st.isFile()) throw new Error(`"${rp.rel}" is not a regular file`)
      if (st.size > READ_MAX_FILE_BYTES) {
        throw new Error(
          `"${rp.rel}" is too large to read (${formatBytes(st.size)}, limit ${formatBytes(READ_MAX_FILE_BYTES)}); use grep or exec (head/tail/sed) instead`,
        )
      }
      buf = st.size <= SYNC_READ_MAX_BYTES ? fs.readFileSync(fh.fd) : await raceAbort(fh.readFile(), signal, 'read')
    } finally {
      await fh.close().catch(() => {})
    }

    const mime = imageMime(buf)
    if (mime) {
      if (buf.length > READ_MAX_IMAGE_BYTES) throw new Error(`Image "${rp.rel}" is too large (${formatBytes(buf.length)})`)
      return {
        content: [
          { type: 'text', text: `Image ${rp.rel} (${mime}, ${formatBytes(buf.length)})` },
          { type: 'image', data: buf.toString('base64'), mimeType: mime },
        ],
        details: { path: rp.rel, bytes: buf.length, mimeType: mime },
      }
    }
    if (looksBinary(buf)) throw new Error(`"${rp.rel}" looks like a binary file (${formatBytes(buf.length)}); it cannot be shown as text`)

    const text = buf.toString('utf8')
    if (text.length === 0) return textResult(`(${rp.rel} is empty)`, { path: rp.rel, lines: 0 })
    const lines = text.split('\n')
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop() // trailing newline is not a line
    const total = lines.length
    const start = (p.offset ?? 1) - 1
    if (start >= total) throw new Error(`offset ${p.offset} is beyond the end of "${rp.rel}" (${total} lines)`)
    const want = Math.min(p.limit ?? READ_DEFAULT_LINES, total - start)

    let out = ''
    let shown = 0
    for (; shown < want; shown++) {
      const line = lines[start + shown]
      const add = (shown ? '\n' : '') + line
      if (out.length + add.length > READ_MAX_CHARS) {
        if (shown === 0) out = line.slice(0, READ_MAX_CHARS) + ' …(line truncated)'
        if (shown === 0) shown = 1
        break
      }
      out += add
    }
    const end = start + shown
    if (start > 0 || end < total) {
      out += `\n\n[Showing lines ${start + 1}-${end} of ${total}.${end < total ? ` Use offset=${end + 1} to continue.` : ''}]`
    }
    return textResult(out, { path: rp.rel, lines: total, from: start + 1, to: end })
  },
)
