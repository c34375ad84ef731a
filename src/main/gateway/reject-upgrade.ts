// An upgrade the gateway refuses (shutting down, a full pre-handshake budget): a plain HTTP answer, then close.
import type { Duplex } from 'node:stream'

export function rejectUpgrade(socket: Duplex, status: number, message: string) {
  const body = `${message}\n`
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}
