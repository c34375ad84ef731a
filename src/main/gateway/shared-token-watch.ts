// Watches where the shared gateway token comes from — `gateway.auth.token` in loopdesk.json and the
// token file in the state dir — so a rotation (a config.patch from any transport, a hand edit, another
// process rewriting the token file) reaches the running gateway, which then closes the connections that
// authenticated with the old secret (OpenClaw: 4001 "gateway auth changed").
//
// Edge-triggered: only a token that CHANGED since the last look counts, so a gateway started with an
// explicit token is not overridden by whatever the files held at start. The config wins over the file,
// as at start-up (a configured token is copied into the token file for the CLI).
import { readFileSync, unwatchFile, watchFile } from 'node:fs'
import JSON5 from 'json5'
import { readGatewayToken, tokenPath } from './state-files'

const TOKEN_RE = /^[\x21-\x7e]{16,512}$/

export interface SharedTokenWatchOptions {
  stateDir: string
  /** loopdesk.json of the runtime (undefined: only the token file is watched) */
  configPath?: string
  intervalMs: number
  onToken(token: string, source: 'config' | 'file'): void
  warn(msg: string): void
}

type ConfigRead = { kind: 'token'; token: string } | { kind: 'none' } | { kind: 'unreadable' }

function readConfigToken(path: string): ConfigRead {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return { kind: 'none' }
  }
  try {
    const cfg = JSON5.parse(text) as { gateway?: { auth?: { token?: unknown } } } | null
    const t = cfg?.gateway?.auth?.token
    return typeof t === 'string' && t.trim() ? { kind: 'token', token: t.trim() } : { kind: 'none' }
  } catch {
    // half-written or hand-broken: the runtime keeps its last good config; so do we
    return { kind: 'unreadable' }
  }
}

export class SharedTokenWatch {
  private lastConfig: string | undefined
  private lastFile: string | undefined
  private stopped = false
  private readonly listener = () => this.check()

  constructor(private readonly opts: SharedTokenWatchOptions) {
    const cfg = opts.configPath ? readConfigToken(opts.configPath) : { kind: 'none' as const }
    this.lastConfig = cfg.kind === 'token' ? cfg.token : undefined
    this.lastFile = readGatewayToken(opts.stateDir)
    // polling stats the path, so it follows atomic (rename) writes that an inode watch would lose
    watchFile(tokenPath(opts.stateDir), { interval: opts.intervalMs, persistent: false }, this.listener)
    if (opts.configPath) watchFile(opts.configPath, { interval: opts.intervalMs, persistent: false }, this.listener)
  }

  /** Looks now (also called right after a config.patch through the gateway). */
  check() {
    if (this.stopped) return
    const cfg = this.opts.configPath ? readConfigToken(this.opts.configPath) : { kind: 'none' as const }
    if (cfg.kind === 'token' && cfg.token !== this.lastConfig) {
      this.lastConfig = cfg.token
      if (TOKEN_RE.test(cfg.token)) return this.opts.onToken(cfg.token, 'config')
      this.opts.warn('gateway: gateway.auth.token in the config is not 16–512 printable characters; keeping the current token')
      return
    }
    if (cfg.kind === 'none') this.lastConfig = undefined
    const file = readGatewayToken(this.opts.stateDir)
    if (file !== undefined && file !== this.lastFile) {
      this.lastFile = file
      if (cfg.kind === 'none' || (cfg.kind === 'unreadable' && this.lastConfig === undefined)) this.opts.onToken(file, 'file')
    }
  }

  /** The gateway wrote this token to the file itself: not a change to react to. */
  noteFileToken(token: string) {
    this.lastFile = token
  }

  stop() {
    this.stopped = true
    unwatchFile(tokenPath(this.opts.stateDir), this.listener)
    if (this.opts.configPath) unwatchFile(this.opts.configPath, this.listener)
  }
}
