// Binding the HTTP server: the desktop app falls back to a free port when the configured one is taken
// (the real port goes into gateway.json); the headless CLI fails loudly instead.
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export class PortInUseError extends Error {
  constructor(readonly port: number, readonly host: string) {
    super(`port ${port} on ${host} is already in use`)
    this.name = 'PortInUseError'
  }
}

function listenOnce(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(port, host) : err)
    }
    const onListening = () => {
      server.off('error', onError)
      resolve((server.address() as AddressInfo).port)
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen({ port, host, exclusive: true })
  })
}

/**
 * Listens on `port` (0 = any free port). When the port is taken and `fallback` is set, listens on a
 * free port chosen by the OS instead. Resolves with the port actually bound.
 */
export async function listenWithFallback(
  server: Server,
  opts: { port: number; host: string; fallback: boolean },
): Promise<{ port: number; fellBack: boolean }> {
  try {
    return { port: await listenOnce(server, opts.port, opts.host), fellBack: false }
  } catch (err) {
    if (!(err instanceof PortInUseError) || !opts.fallback || opts.port === 0) throw err
    return { port: await listenOnce(server, 0, opts.host), fellBack: true }
  }
}
