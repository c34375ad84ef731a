// Why a model request never got a response, in words a user can act on. The SDKs turn every network
// failure into "Connection error." (the cause stays on the error object, which pi drops), so the runner's
// fetch records the failure itself and the run's error names it ("could not reach 127.0.0.1:11434: connection
// refused — is the server running?") instead of a bare "Connection error".
import { activeProxy, describeProxy, proxyFor } from '../net/proxy'

export interface NetworkFailure {
  url: URL
  error: unknown
  /** the proxy the request went through, if any */
  proxy?: URL
}

/** Wraps a fetch so each failed request (not an abort) is reported with its URL and the proxy it used. */
export function recordingFetch(base: typeof fetch, onFailure: (f: NetworkFailure) => void, onResponse?: (res: Response, url: URL | undefined) => void): typeof fetch {
  return async (input, init) => {
    try {
      const res = await base(input, init)
      onResponse?.(res, urlOf(input))
      return res
    } catch (err) {
      const url = urlOf(input)
      if (url && !isAbort(err)) onFailure({ url, error: err, proxy: proxyFor(url, activeProxy()) })
      throw err
    }
  }
}

function urlOf(input: Parameters<typeof fetch>[0]): URL | undefined {
  try {
    return new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
  } catch {
    return undefined
  }
}

function isAbort(err: unknown): boolean {
  return (err as { name?: unknown } | undefined)?.name === 'AbortError'
}

interface Cause {
  code?: string
  message?: string
}

/** The innermost error with a code (fetch wraps the socket's error as `cause`, sometimes twice). */
function rootCause(err: unknown): Cause {
  let cur = err as (Cause & { cause?: unknown; errors?: unknown[] }) | undefined
  let best: Cause = { message: cur?.message }
  for (let depth = 0; cur && depth < 5; depth++) {
    if (typeof cur.code === 'string') best = cur
    // several addresses tried (localhost → ::1 and 127.0.0.1): the last one's error
    const next = cur.cause ?? (Array.isArray(cur.errors) ? cur.errors.at(-1) : undefined)
    if (!next || typeof next !== 'object') break
    cur = next as typeof cur
    if (!best.code) best = { code: cur.code, message: cur.message }
  }
  return best
}

/** Ports only one local model server uses by default: a refused connection there names it. */
const LOCAL_SERVERS: Record<string, string> = { '11434': 'Ollama (`ollama serve`)', '1234': "LM Studio's local server" }

const TLS_CODES = /^(CERT_|ERR_TLS_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|ERR_SSL_)/

/**
 * "could not reach 127.0.0.1:11434 (provider ollama): connection refused — is the server running?" and the
 * like: what follows "Connection error: " in the run's error.
 */
export function describeNetworkFailure(f: NetworkFailure, provider?: string): string {
  const where = `${f.url.host}${provider ? ` (provider ${provider})` : ''}`
  const proxy = f.proxy ? describeProxy(f.proxy) : undefined
  const { code, message } = rootCause(f.error)
  const proxyStatus = /Proxy response \((\d{3})\)/.exec(message ?? '')?.[1]
  if (proxyStatus) {
    const why = proxyStatus === '407' ? 'proxy authentication required — put the credentials in the proxy URL' : `HTTP ${proxyStatus}`
    return `the proxy${proxy ? ` ${proxy}` : ''} refused the connection to ${where}: ${why}`
  }
  const reason = reasonOf(code, message, f)
  return `could not reach ${where}${proxy ? ` through the proxy ${proxy}` : ''}${reason ? `: ${reason}` : ''}`
}

/** The cause in words, from the socket error's code (or fetch's message when there is none). */
function reasonOf(code: string | undefined, message: string | undefined, f: NetworkFailure): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused — is ${f.proxy ? 'the proxy' : (LOCAL_SERVERS[f.url.port] ?? 'the server')} running?`
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_AGAIN':
      return `the name ${(f.proxy ?? f.url).hostname} could not be resolved${code === 'EAI_AGAIN' ? ' (DNS did not answer)' : ''}`
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out while connecting'
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the network cannot reach it'
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return 'the connection was reset'
  }
  // https:// to a server that speaks plain http: its first bytes are no TLS record (before the certificate
  // test: ERR_SSL_WRONG_VERSION_NUMBER is no certificate problem)
  if (f.url.protocol === 'https:' && !f.proxy && (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(message ?? '')))) {
    return `the server does not speak TLS on port ${f.url.port || 443} — if it serves plain http, the base URL should start with http://, not https://`
  }
  if (code && TLS_CODES.test(code)) return `its TLS certificate was not accepted (${code})`
  if (message === 'bad port') return `port ${f.url.port} is one fetch refuses to use (a port browsers block): run the server on another port`
  return code ?? (message && message !== 'fetch failed' ? message.slice(0, 200) : undefined)
}
