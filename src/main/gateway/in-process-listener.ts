// The gateway's listener on the main thread (the default): the HTTP server and `ws` in this thread.
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { upgradeInfoOf, wsSocket } from './gateway-socket'
import { createEndpoint } from './http-endpoint'
import { listenWithFallback } from './listen'
import { rejectUpgrade } from './reject-upgrade'
import type { GatewayListener, ListenerHooks } from './socket-thread'

export interface ListenerOptions {
  port: number
  host: string
  fallback: boolean
  staticDir: string | undefined
  /** the Host names allowed for the bound port (undefined: any) */
  allowedHosts: () => Set<string> | undefined
  preauthMaxPayload: number
}

export async function listenInProcess(opts: ListenerOptions, hooks: ListenerHooks): Promise<GatewayListener> {
  let port = 0
  const { httpServer, wss } = createEndpoint({ staticDir: opts.staticDir, port: () => port, allowedHosts: opts.allowedHosts, preauthMaxPayload: opts.preauthMaxPayload })
  wss.on('connection', (ws, req: IncomingMessage) => hooks.onConnection(wsSocket(ws), upgradeInfoOf(req)))
  httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    const refused = hooks.admit(upgradeInfoOf(req))
    if (refused) return rejectUpgrade(socket, refused.status, refused.message)
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })
  const bound = await listenWithFallback(httpServer, { port: opts.port, host: opts.host, fallback: opts.fallback })
  port = bound.port
  return {
    port,
    fellBack: bound.fellBack,
    openSockets: () => wss.clients.size,
    terminateAll: () => {
      for (const ws of wss.clients) ws.terminate()
    },
    closing: () => {},
    noteRun: () => {},
    close: async () => {
      wss.close()
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve())
        httpServer.closeAllConnections()
      })
    },
  }
}
