// Where the CLI finds the state dir and the gateway: flags, then LOOPDESK_GATEWAY_URL / _TOKEN, then the
// files the running gateway wrote into the state dir (gateway.json, gateway/token), then the config port.
// A gateway.json whose process is gone (crashed, killed) names an address that may be anyone's now: it is
// never connected to on the record's word alone (source 'stale').
import fs from 'node:fs'
import { resolve } from 'node:path'
import { parseConfigText } from '../main/runtime/config/parse'
import { expandHome, resolveConfigPath, resolveStateDir as runtimeStateDir } from '../main/runtime/config/state-dir'
import type { LoopdeskConfig } from '../main/runtime/contracts'
import { validateConfig } from '../main/runtime/config/validate'
import { gatewayProcessAlive, infoPath, readGatewayInfo, readGatewayToken } from '../main/gateway/state-files'
import { MAX_CONFIG_BYTES, readFailure, readSmallRegularFile } from '../main/runtime/read-small-file'
import { str, UsageError, type ParsedArgs } from './args'
import { GatewayClientError } from './gateway-client'
import { CliError, EXIT } from './io'

export const DEFAULT_PORT = 18789

/** --state-dir, else the runtime's rule (same as the desktop app): $LOOPDESK_STATE_DIR, else ~/.loopdesk. */
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromFlag = flag?.trim()
  return fromFlag ? resolve(expandHome(fromFlag)) : runtimeStateDir(env)
}

/**
 * For the commands that work on the state dir's files themselves (backup, sessions prune, agent --local): one that is
 * there but is not a folder (a file, a link to one) is said in those words, not as the errno of the first call
 * that stepped into it. Returns the dir.
 */
export function stateDirFolder(stateDir: string): string {
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(stateDir)
  } catch {
    return stateDir // missing: each command says what that means for it
  }
  if (!st.isDirectory()) throw new CliError(`the state dir ${stateDir} is not a folder (--state-dir / LOOPDESK_STATE_DIR)`, EXIT.failed)
  return stateDir
}

/** The `gateway` section of loopdesk.json, or why the file cannot be used. */
export interface GatewayFileConfig {
  port?: number
  bind?: 'loopback' | 'lan' | 'all'
  allowedOrigins?: string[]
  token?: string
  /** set when the file exists but is unreadable or invalid: then none of its settings apply */
  problem?: string
}

/**
 * The `gateway` section, parsed and validated by the runtime's own rules (parse.ts, validate.ts): a file
 * the runtime would refuse gives nothing here either, so the CLI never binds a port, interface or token
 * that the gateway's runtime does not see. A missing file is all defaults.
 */
export function readGatewayConfig(stateDir: string, env: NodeJS.ProcessEnv = {}): GatewayFileConfig {
  const file = resolveConfigPath(stateDir, env)
  let text: string
  try {
    text = readSmallRegularFile(file, MAX_CONFIG_BYTES)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? {} : { problem: `cannot read ${file} (${readFailure(err)})` }
  }
  const parsed = parseConfigText(text)
  const issues = parsed.ok ? validateConfig(parsed.value) : [parsed.issue]
  if (issues.length) {
    const first = `${issues[0].path || '(file)'}: ${issues[0].message}`
    return { problem: `${file} is invalid (${first}${issues.length > 1 ? `, and ${issues.length - 1} more` : ''})` }
  }
  const g = (parsed.ok ? (parsed.value as LoopdeskConfig) : {}).gateway ?? {}
  return { port: g.port, bind: g.bind, allowedOrigins: g.allowedOrigins, token: g.auth?.token?.trim() || undefined }
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
  /**
   * where the URL came from, for error messages; 'stale': gateway.json's, but its process is not alive
   * (`recordedProcessAlive`) — nothing connects to it (`staleGatewayError`) and no token goes with it
   */
  source: 'flag' | 'env' | 'state' | 'stale' | 'default'
  /** the dead process a 'stale' record names */
  stalePid?: number
  /** 'default' and 'stale': resolves again from the state dir (a gateway that was starting has written its record since) */
  reread?: () => GatewayTarget
}

/** What connecting to a 'stale' target says instead (exit 3, as for no gateway at the URL). */
export function staleGatewayError(stateDir: string, target: GatewayTarget): GatewayClientError {
  return new GatewayClientError('unreachable', `gateway not running (stale record for pid ${target.stalePid} in ${infoPath(stateDir)})`)
}

export function resolveGatewayTarget(
  flags: { url?: string; token?: string },
  env: NodeJS.ProcessEnv,
  stateDir: string,
): GatewayTarget {
  let url: string
  let source: GatewayTarget['source']
  let stalePid: number | undefined
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
      // The port of a gateway that is gone may belong to another program by now: the state dir's token (or a
      // device token kept for that URL) must not go there. A token the user gave (flag, env) is theirs to send.
      const ownToken = flags.token !== undefined || !!env.LOOPDESK_GATEWAY_TOKEN?.trim()
      if (ownToken || gatewayProcessAlive(info)) source = 'state'
      else {
        source = 'stale'
        stalePid = info.pid
      }
    } else {
      url = `ws://127.0.0.1:${readGatewayConfig(stateDir, env).port ?? DEFAULT_PORT}`
      source = 'default'
    }
  }
  // a URL from the environment is named as such: nothing on the command line shows where it came from
  const what = source === 'env' ? 'LOOPDESK_GATEWAY_URL' : 'gateway URL'
  if (!/^wss?:\/\//.test(url)) throw new UsageError(`${what} must start with ws:// or wss:// (got ${url})`)
  try {
    new URL(url)
  } catch {
    throw new UsageError(`${what} ${JSON.stringify(url)} is not a valid URL`)
  }
  // The state-dir token belongs to the local gateway: never send it to a URL elsewhere.
  const token =
    flags.token ??
    (env.LOOPDESK_GATEWAY_TOKEN?.trim() || undefined) ??
    (isLoopbackUrl(url) && source !== 'stale' ? readGatewayToken(stateDir) : undefined)
  if (source === 'state' || source === 'flag' || source === 'env') return { url, token, source }
  const reread = () => resolveGatewayTarget(flags, env, stateDir)
  return source === 'stale' ? { url, token, source, stalePid, reread } : { url, token, source, reread }
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

/** The state dir and the gateway a command talks to, from its TARGET_FLAGS and the environment. */
export function commandTarget(flags: ParsedArgs['flags'], env: NodeJS.ProcessEnv): { stateDir: string; target: GatewayTarget } {
  const stateDir = resolveStateDir(str(flags['state-dir']), env)
  return { stateDir, target: resolveGatewayTarget({ url: str(flags.url), token: str(flags.token) }, env, stateDir) }
}
