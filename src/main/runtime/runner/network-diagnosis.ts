// Why a model request could not connect, found after the fact. Most provider clients take the runner's
// recording fetch (network-failure.ts), so the socket's error is known. Google's client refuses a custom
// fetch and reports only "fetch failed"; for it (and any other bare connection error) the runner retraces
// the connection once: the name lookup, the TCP connection (to the proxy, when the request used one),
// and for https without a proxy the TLS handshake with the same certificate checks. The first step that
// fails is the cause, reported as a NetworkFailure so it is worded like the recorded ones.
import dns from 'node:dns/promises'
import net from 'node:net'
import tls from 'node:tls'
import { activeProxy, proxyFor } from '../net/proxy'
import type { NetworkFailure } from './network-failure'

/** each step's limit: a diagnosis must not hold the run's end long */
const STEP_TIMEOUT_MS = 3_000

/** The run error texts that carry no cause: the SDKs' "Connection error." and fetch's "fetch failed". */
export function isBareConnectionError(text: string | undefined): boolean {
  return /^(Connection error|fetch failed)\.?$/i.test((text ?? '').trim())
}

/**
 * Retraces a connection to `baseUrl` and returns the step that fails, or undefined when every step
 * succeeds now (or the URL is unusable).
 */
export async function diagnoseConnection(baseUrl: string | undefined): Promise<NetworkFailure | undefined> {
  let url: URL
  try {
    url = new URL(baseUrl ?? '')
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  const proxy = proxyFor(url, activeProxy())
  const target = proxy ?? url
  const host = target.hostname.replace(/^\[|\]$/g, '')
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80)
  const fail = (error: unknown): NetworkFailure => ({ url, error, ...(proxy ? { proxy } : {}) })
  let address: string
  try {
    address = net.isIP(host) ? host : (await withTimeout(dns.lookup(host), 'ETIMEDOUT')).address
  } catch (err) {
    return fail(err)
  }
  // a TLS handshake only to the server itself: through a proxy it would be the proxy's own certificate
  const handshake = !proxy && url.protocol === 'https:'
  try {
    await connectOnce(address, port, handshake ? (net.isIP(host) ? undefined : host) : null)
  } catch (err) {
    return fail(err)
  }
  return undefined
}

/**
 * One connection and nothing sent: resolves when connected (and, with a servername other than null, when
 * the certificate was accepted), rejects with the socket's error.
 */
function connectOnce(address: string, port: number, servername: string | undefined | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket =
      servername === null
        ? net.connect({ host: address, port })
        : tls.connect({ host: address, port, ...(servername ? { servername } : {}), ALPNProtocols: ['http/1.1'] })
    const done = (err?: Error) => {
      clearTimeout(timer)
      socket.destroy()
      if (err) reject(err)
      else resolve()
    }
    const timer = setTimeout(() => done(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), STEP_TIMEOUT_MS)
    socket.once(servername === null ? 'connect' : 'secureConnect', () => done())
    socket.once('error', done)
  })
}

function withTimeout<T>(p: Promise<T>, code: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code })), STEP_TIMEOUT_MS)
  })
  return Promise.race([p, limit]).finally(() => clearTimeout(timer))
}
