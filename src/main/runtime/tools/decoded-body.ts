// An HTTP response's body with its content-encoding undone (gzip, deflate, br), for web_fetch and the model
// client (runner/http-fetch.ts). Any other encoding, or none, is the response itself. And a body read up to
// a byte cap (web_fetch, the endpoint check).
import type http from 'node:http'
import type { Readable } from 'node:stream'
import zlib from 'node:zlib'

export function decodedBody(res: http.IncomingMessage): Readable {
  const enc = (res.headers['content-encoding'] ?? '').trim().toLowerCase()
  const decoder =
    enc === 'gzip' || enc === 'x-gzip'
      ? zlib.createGunzip()
      : enc === 'deflate'
        ? zlib.createInflate()
        : enc === 'br'
          ? zlib.createBrotliDecompress()
          : undefined
  if (!decoder) return res
  res.on('error', (err) => decoder.destroy(err))
  // destroying the decoded stream (an abort, a byte cap) also stops the socket's
  decoder.on('close', () => res.destroy())
  return res.pipe(decoder)
}

/**
 * The body's bytes, at most `maxBytes` of them: past the cap it stops reading, calls `stop` (close the
 * connection) and says it truncated.
 */
export async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number, stop: () => void): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = []
  let total = 0
  let truncated = false
  try {
    for await (const chunk of body) {
      if (total + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - total))
        total = maxBytes
        truncated = true
        break
      }
      chunks.push(chunk)
      total += chunk.length
    }
  } finally {
    if (truncated) stop()
  }
  return { bytes: Buffer.concat(chunks, total), truncated }
}
