// An HTTP response's body with its content-encoding undone (gzip, deflate, br), for web_fetch and the model
// client (runner/http-fetch.ts). Any other encoding, or none, is the response itself.
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
