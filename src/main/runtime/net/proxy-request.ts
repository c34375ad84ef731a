// One http(s) request through an http or https proxy with node:http (for callers that need node:http's
// control rather than fetch: web_fetch's own connection handling). Plain http goes to the proxy in
// absolute form; https through a CONNECT tunnel, TLS with the target end to end (certificate checked
// against the target's name). socks proxies are not spoken here.
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import { describeProxy, proxyAuthorization } from './proxy'

export class ProxyRefusedError extends Error {
  constructor(
    readonly proxy: URL,
    readonly status: number,
    target: string,
  ) {
    super(
      `the proxy ${describeProxy(proxy)} refused the connection to ${target} (HTTP ${status}${status === 407 ? ': proxy authentication required — put the credentials in the proxy URL' : ''})`,
    )
  }
}

export function canRequestThrough(proxy: URL): boolean {
  return proxy.protocol === 'http:' || proxy.protocol === 'https:'
}

const portOf = (u: URL) => Number(u.port) || (u.protocol === 'https:' ? 443 : 80)
const bare = (host: string) => (host.startsWith('[') ? host.slice(1, -1) : host)

/**
 * Starts a request to `url` through `proxy`, with node:http options (method, headers, signal; no agent:
 * each request has its own connection). The callback gets the target's response, as http.request's does.
 */
export function requestThroughProxy(
  url: URL,
  proxy: URL,
  options: { method: string; headers: Record<string, string>; signal?: AbortSignal },
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const toProxy = proxy.protocol === 'https:' ? https : http
  const auth = proxyAuthorization(proxy)
  if (url.protocol === 'http:') {
    return toProxy.request(
      {
        host: bare(proxy.hostname),
        port: portOf(proxy),
        path: url.href,
        method: options.method,
        agent: false,
        signal: options.signal,
        headers: { ...options.headers, host: url.host, ...auth },
      },
      onResponse,
    )
  }
  const host = bare(url.hostname)
  const target = `${url.hostname}:${portOf(url)}`
  return https.request(
    {
      hostname: host,
      port: portOf(url),
      path: `${url.pathname}${url.search}`,
      method: options.method,
      // no agent: with one, node:http would ignore createConnection (each request has its own tunnel)
      agent: undefined,
      signal: options.signal,
      headers: options.headers,
      createConnection: ((_opts: unknown, done: (err: Error | null, socket?: net.Socket) => void) => {
        const connect = toProxy.request({
          host: bare(proxy.hostname),
          port: portOf(proxy),
          method: 'CONNECT',
          path: target,
          agent: false,
          signal: options.signal,
          headers: { host: target, ...auth },
        })
        connect.once('connect', (res, socket) => {
          if (res.statusCode !== 200) {
            socket.destroy()
            done(new ProxyRefusedError(proxy, res.statusCode ?? 0, target))
            return
          }
          done(null, tls.connect({ socket, host, servername: net.isIP(host) ? undefined : host }))
        })
        connect.once('error', (err) => done(err))
        connect.end()
        return undefined
      }) as unknown as https.RequestOptions['createConnection'],
    },
    onResponse,
  )
}
