// Model requests (and web_fetch, endpoint checks) through the proxy named in the environment (HTTPS_PROXY /
// HTTP_PROXY / ALL_PROXY, minus NO_PROXY; http, https or socks5 proxies), as curl and most CLI tools do:
// behind a corporate proxy the direct connection is refused or never answers.
//
// How: the process-wide fetch gets a dispatcher that routes each request by `proxyFor` (undici's Agent
// direct, its ProxyAgent — a CONNECT tunnel — through the proxy), and http-fetch.ts hands a request that
// `proxyFor` says is proxied to that fetch instead of its own node:http path: one decision for both.
//
// Loopback targets (localhost, 127.0.0.0/8, ::1) are never proxied: a proxy would connect to its own
// loopback, never this machine's (a local Ollama / LM Studio server behind a proxy setting was the case).
// Credentials in a proxy URL go to the proxy (Proxy-Authorization) and nowhere else: `describeProxy` is
// the form for messages and logs.
import net from 'node:net'
import type { Dispatcher } from 'undici'

export interface ProxySettings {
  /** for http: targets */
  http?: URL
  /** for https: targets */
  https?: URL
  /** the NO_PROXY value as given (loopback is direct without it) */
  noProxy: string
  /** which variable each came from, for messages */
  source: { http?: string; https?: string }
}

/** A proxy variable that is set but unusable: logged instead of silently ignored. */
export interface ProxyProblem {
  variable: string
  message: string
}

const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks5:', 'socks:'])

function firstSet(env: NodeJS.ProcessEnv, names: string[]): [string, string] | undefined {
  for (const n of names) {
    const v = env[n]?.trim()
    if (v) return [n, v]
  }
  return undefined
}

/** The proxy settings an environment names (lower-case names first, as curl reads them), or undefined. */
export function proxyFromEnv(env: NodeJS.ProcessEnv): { settings?: ProxySettings; problems: ProxyProblem[] } {
  const problems: ProxyProblem[] = []
  const parse = (found: [string, string] | undefined): [URL, string] | undefined => {
    if (!found) return undefined
    const [variable, raw] = found
    let url: URL
    try {
      // `host:port` without a scheme is an http proxy (what curl assumes)
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`)
    } catch {
      problems.push({ variable, message: `${variable} is not a URL; requests go direct` })
      return undefined
    }
    if (!PROXY_PROTOCOLS.has(url.protocol)) {
      problems.push({ variable, message: `${variable}: ${url.protocol.slice(0, -1)} proxies are not supported (http, https or socks5); requests go direct` })
      return undefined
    }
    return [url, variable]
  }
  const all = parse(firstSet(env, ['all_proxy', 'ALL_PROXY']))
  const http = parse(firstSet(env, ['http_proxy', 'HTTP_PROXY'])) ?? all
  // without an https proxy of its own, https goes through the http one (as undici and many tools do)
  const https = parse(firstSet(env, ['https_proxy', 'HTTPS_PROXY'])) ?? http
  if (!http && !https) return { problems }
  return {
    settings: {
      http: http?.[0],
      https: https?.[0],
      noProxy: firstSet(env, ['no_proxy', 'NO_PROXY'])?.[1] ?? '',
      source: { http: http?.[1], https: https?.[1] },
    },
    problems,
  }
}

/** `http://proxy.corp:3128` — the proxy without its credentials, path or query. */
export function describeProxy(url: URL): string {
  return `${url.protocol}//${url.host}`
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

function isLoopback(host: string): boolean {
  const h = stripBrackets(host.toLowerCase())
  if (h === 'localhost' || h.endsWith('.localhost')) return true
  if (net.isIPv4(h)) return h.startsWith('127.')
  return h === '::1' || h === '0:0:0:0:0:0:0:1'
}

/**
 * Whether NO_PROXY exempts a host: `*` exempts all; an entry matches the host itself and its subdomains
 * (`example.com`, `.example.com` and `*.example.com` alike); `host:port` only that port.
 */
export function noProxyMatches(noProxy: string, hostname: string, port: number): boolean {
  const host = stripBrackets(hostname.toLowerCase())
  for (const raw of noProxy.split(/[,\s]+/)) {
    let entry = raw.trim().toLowerCase()
    if (!entry) continue
    if (entry === '*') return true
    let entryPort = 0
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry)
    if (bracketed) {
      entry = bracketed[1]
      entryPort = Number(bracketed[2] ?? 0)
    } else if (!net.isIPv6(entry)) {
      const m = /^(.*):(\d+)$/.exec(entry)
      if (m) {
        entry = m[1]
        entryPort = Number(m[2])
      }
    }
    if (entryPort && entryPort !== port) continue
    entry = entry.replace(/^\*?\./, '')
    if (host === entry || host.endsWith(`.${entry}`)) return true
  }
  return false
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 }

/** The proxy a request to `url` goes through under `settings`, or undefined for a direct connection. */
export function proxyFor(url: URL, settings: ProxySettings | undefined): URL | undefined {
  if (!settings) return undefined
  const proxy = url.protocol === 'https:' ? settings.https : url.protocol === 'http:' ? settings.http : undefined
  if (!proxy) return undefined
  if (isLoopback(url.hostname)) return undefined
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0
  return noProxyMatches(settings.noProxy, url.hostname, port) ? undefined : proxy
}

// ------------------------------------------------------------------ process-wide state

let active: ProxySettings | undefined
/** what fetch's global dispatcher slot held before ours (undici's own symbol, shared with Node's fetch) */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')
let installed: { router: Dispatcher; previous: unknown } | undefined

/** The settings model requests use now (set by `applyProxyEnv`). */
export function activeProxy(): ProxySettings | undefined {
  return active
}

/**
 * Makes the process's model requests follow `env`'s proxy variables (the runtime calls this at start with
 * its environment). Returns what it could not use.
 *
 * undici is loaded only when a proxy is named: importing it replaces fetch's dispatcher. Once installed,
 * the router stays until no proxy is named and the slot's previous holder can be put back (an empty slot
 * cannot: Node's fetch may have read it meanwhile); it then sends everything direct.
 */
export async function applyProxyEnv(env: NodeJS.ProcessEnv): Promise<{ settings?: ProxySettings; problems: ProxyProblem[] }> {
  const result = proxyFromEnv(env)
  active = result.settings
  const slot = globalThis as unknown as Record<symbol, unknown>
  if (active && !installed) {
    const previous = slot[GLOBAL_DISPATCHER]
    installed = { router: await proxyRouter(), previous }
    slot[GLOBAL_DISPATCHER] = installed.router
  } else if (!active && installed && installed.previous !== undefined && slot[GLOBAL_DISPATCHER] === installed.router) {
    slot[GLOBAL_DISPATCHER] = installed.previous
    void installed.router.close().catch(() => {})
    installed = undefined
  }
  return result
}

/** A fetch dispatcher that sends each request as `proxyFor` decides: direct, or through that proxy. */
async function proxyRouter(): Promise<Dispatcher> {
  const undici = await import('undici')
  const direct = new undici.Agent()
  const viaProxy = new Map<string, Dispatcher>()
  const all = () => [direct, ...viaProxy.values()]
  class ProxyRouter extends undici.Dispatcher {
    dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const origin = typeof opts.origin === 'string' ? opts.origin : opts.origin?.toString()
      const proxy = origin ? proxyFor(new URL(origin), active) : undefined
      if (!proxy) return direct.dispatch(opts, handler)
      let agent = viaProxy.get(proxy.href)
      // plain http requests in absolute form (a proxy may allow CONNECT to port 443 only), https tunnelled
      if (!agent) viaProxy.set(proxy.href, (agent = new undici.ProxyAgent({ uri: proxy.href, proxyTunnel: false })))
      return agent.dispatch(opts, handler)
    }
    async close(): Promise<void> {
      await Promise.all(all().map((d) => d.close()))
    }
    async destroy(): Promise<void> {
      await Promise.all(all().map((d) => d.destroy()))
    }
  }
  return new ProxyRouter()
}

/** One line for the log: where model requests go (no credentials). */
export function describeProxySettings(s: ProxySettings): string {
  const via = (u: URL | undefined, v: string | undefined) => (u ? `${describeProxy(u)} (${v})` : 'direct')
  return `model requests: https via ${via(s.https, s.source.https)}, http via ${via(s.http, s.source.http)}; direct for loopback${s.noProxy ? ` and NO_PROXY (${s.noProxy})` : ''}`
}

/** The Proxy-Authorization header a proxy URL's credentials make (none without a user). */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {}
  const user = decodeURIComponent(proxy.username)
  const pass = decodeURIComponent(proxy.password)
  return { 'proxy-authorization': `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` }
}
