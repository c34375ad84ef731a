// A reverse proxy for e2e specs that need a browser the gateway sees as remote (device pairing).
import { createServer, request, type Server } from 'node:http'
import { connect } from 'node:net'

/**
 * A reverse proxy in front of the gateway as one would put it there (nginx and the like): requests and
 * WebSocket upgrades go through with the gateway's Host and Origin and the client's address in
 * X-Forwarded-For — which makes the gateway treat the browser as remote. (Chromium does not add a page's
 * extra headers to its WebSocket handshakes, so a header alone cannot stand in for this.)
 */
export async function startProxy(gatewayOrigin: string, forwardedFor: string): Promise<{ origin: string; server: Server }> {
  const target = new URL(gatewayOrigin)
  const headersFor = (raw: string[]) => {
    const out: Array<[string, string]> = []
    for (let i = 0; i < raw.length; i += 2) if (!['host', 'origin', 'x-forwarded-for'].includes(raw[i].toLowerCase())) out.push([raw[i], raw[i + 1]])
    out.push(['Host', target.host], ['X-Forwarded-For', forwardedFor])
    return out
  }
  const server = createServer((req, res) => {
    const headers = Object.fromEntries(headersFor(req.rawHeaders))
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers)
      r.pipe(res)
    })
    up.on('error', () => res.destroy())
    req.pipe(up)
  })
  server.on('upgrade', (req, socket, head) => {
    const up = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...headersFor(req.rawHeaders).map(([k, v]) => `${k}: ${v}`), `Origin: ${target.origin}`]
      up.write(lines.join('\r\n') + '\r\n\r\n')
      if (head.length) up.write(head)
      up.pipe(socket)
      socket.pipe(up)
    })
    up.on('error', () => socket.destroy())
    socket.on('error', () => up.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('proxy did not listen')
  return { origin: `http://127.0.0.1:${address.port}`, server }
}
