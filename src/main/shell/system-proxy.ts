// The desktop app started from the Dock, the Start menu or a launcher has no shell environment, so no
// HTTPS_PROXY: the proxy is in the OS settings (or a PAC script). Chromium knows it; the runtime (plain
// Node) does not. When the environment names no proxy, the system's answer for a typical https and http
// URL becomes HTTPS_PROXY / HTTP_PROXY of the runtime's environment (net/proxy.ts takes it from there).
// One answer per scheme: a PAC script that picks proxies per host is reduced to its answer for those
// URLs. An environment proxy always wins; a failing or slow lookup leaves the environment as it was.

/** URLs whose system proxy stands for all requests of their scheme */
const PROBES = { https: 'https://api.openai.com/', http: 'http://example.com/' } as const
const PROXY_VARS = ['https_proxy', 'http_proxy', 'all_proxy']
export const SYSTEM_PROXY_TIMEOUT_MS = 1_000

/**
 * The first usable proxy of a PAC-style answer ("PROXY proxy:3128; DIRECT", "HTTPS p:443", "SOCKS5 s:1080"),
 * as a URL; undefined for DIRECT, empty, or only kinds Loopdesk cannot use (SOCKS4).
 */
export function proxyUrlFromPac(answer: string): string | undefined {
  for (const part of answer.split(';')) {
    const [kind, hostPort] = part.trim().split(/\s+/)
    if (!kind) continue
    const k = kind.toUpperCase()
    if (k === 'DIRECT') return undefined
    if (!hostPort || !/^[\w.-]+:\d+$|^\[[0-9a-f:.]+\]:\d+$/i.test(hostPort)) continue
    if (k === 'PROXY' || k === 'HTTP') return `http://${hostPort}`
    if (k === 'HTTPS') return `https://${hostPort}`
    if (k === 'SOCKS5' || k === 'SOCKS') return `socks5://${hostPort}`
  }
  return undefined
}

/** `env` with the system's proxy added when it names none (a copy; `env` itself is not changed). */
export async function withSystemProxy(
  env: NodeJS.ProcessEnv,
  resolveProxy: (url: string) => Promise<string>,
  timeoutMs = SYSTEM_PROXY_TIMEOUT_MS,
): Promise<NodeJS.ProcessEnv> {
  if (Object.keys(env).some((k) => PROXY_VARS.includes(k.toLowerCase()) && env[k]?.trim())) return env
  let timer: NodeJS.Timeout | undefined
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), timeoutMs)
    })
    const [https, http] = await Promise.race([Promise.all([resolveProxy(PROBES.https), resolveProxy(PROBES.http)]), timeout])
    const httpsProxy = proxyUrlFromPac(https)
    const httpProxy = proxyUrlFromPac(http)
    if (!httpsProxy && !httpProxy) return env
    return {
      ...env,
      ...(httpsProxy ? { HTTPS_PROXY: httpsProxy } : {}),
      ...(httpProxy ? { HTTP_PROXY: httpProxy } : {}),
    }
  } catch (err) {
    console.warn(`[network] could not read the system proxy settings (${(err as Error).message}); requests go direct`)
    return env
  } finally {
    clearTimeout(timer)
  }
}
