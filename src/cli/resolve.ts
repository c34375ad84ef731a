// Where the CLI finds the state dir and the gateway: flags, then LOOPDESK_GATEWAY_URL / _TOKEN, then the
// files the running gateway wrote into the state dir (gateway.json, gateway/token), then the config port.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import JSON5 from 'json5'
import { expandHome, resolveConfigPath, resolveStateDir as runtimeStateDir } from '../main/runtime/config/state-dir'
import { readGatewayInfo, readGatewayToken } from '../main/gateway/state-files'
import { UsageError } from './args'

export const DEFAULT_PORT = 18789

/** --state-dir, else the runtime's rule (same as the desktop app): $LOOPDESK_STATE_DIR, else ~/.loopdesk. */
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromFlag = flag?.trim()
  return fromFlag ? resolve(expandHome(fromFlag)) : runtimeStateDir(env)
}

/** The `gateway` section of the config file, read leniently (the runtime validates the file). */
export function readGatewayConfig(
  stateDir: string,
  env: NodeJS.ProcessEnv = {},
): { port?: number; bind?: 'loopback' | 'lan' | 'all'; allowedOrigins?: string[]; token?: string } {
  try {
    const cfg = JSON5.parse(readFileSync(resolveConfigPath(stateDir, env), 'utf8')) as { gateway?: Record<string, unknown> }
    const g = cfg?.gateway ?? {}
    return {
      port: typeof g.port === 'number' && Number.isInteger(g.port) && g.port >= 0 && g.port < 65536 ? g.port : undefined,
      bind: g.bind === 'loopback' || g.bind === 'lan' || g.bind === 'all' ? g.bind : undefined,
      allowedOrigins: Array.isArray(g.allowedOrigins) ? g.allowedOrigins.filter((o): o is string => typeof o === 'string') : undefined,
      token: typeof (g.auth as { token?: unknown } | undefined)?.token === 'string' ? ((g.auth as { token: string }).token.trim() || undefined) : undefined,
    }
  } catch {
    return {}
  }
}

export function isLoopbackUrl(url: string): boolean {
  try {
    const h = new URL(url).hostname.replace(/^\[|\]$/g, '')
    return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
  } catch {
    return false
  }
}

export interface GatewayTarget {
  url: string
  token: string | undefined
  /** where the URL came from, for error messages */
  source: 'flag' | 'env' | 'state' | 'default'
}

export function resolveGatewayTarget(
  flags: { url?: string; token?: string },
  env: NodeJS.ProcessEnv,
  stateDir: string,
): GatewayTarget {
  let url: string
  let source: GatewayTarget['source']
  if (flags.url) {
    url = flags.url
    source = 'flag'
  } else if (env.LOOPDESK_GATEWAY_URL?.trim()) {
    url = env.LOOPDESK_GATEWAY_URL.trim()
    source = 'env'
  } else {
    const info = readGatewayInfo(stateDir)
    if (info) {
      url = info.url
      source = 'state'
    } else {
      url = `ws://127.0.0.1:${readGatewayConfig(stateDir, env).port ?? DEFAULT_PORT}`
      source = 'default'
    }
  }
  if (!/^wss?:\/\//.test(url)) throw new UsageError(`gateway URL must start with ws:// or wss:// (got ${url})`)
  // The state-dir token belongs to the local gateway: never send it to a URL elsewhere.
  const token =
    flags.token ??
    (env.LOOPDESK_GATEWAY_TOKEN?.trim() || undefined) ??
    (isLoopbackUrl(url) ? readGatewayToken(stateDir) : undefined)
  return { url, token, source }
}

/** http://127.0.0.1:<port>/#token=… for browser mode. */
export function dashboardUrl(wsUrl: string, token: string | undefined): string {
  const u = new URL(wsUrl)
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:'
  u.pathname = '/'
  u.search = ''
  u.hash = token ? `token=${encodeURIComponent(token)}` : ''
  return u.toString()
}
