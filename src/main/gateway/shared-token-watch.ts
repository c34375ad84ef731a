// Follows where the shared gateway token comes from — `gateway.auth.token` of the runtime's validated
// config and the token file in the state dir — so a rotation (a config.patch from any transport, a hand
// edit the runtime reloaded, another process rewriting the token file) reaches the running gateway, which
// then closes the connections that authenticated with the old secret (OpenClaw: 4001 "gateway auth changed").
//
// The config comes from the runtime (RuntimeHost.currentConfig / onConfigChange), never from parsing
// loopdesk.json here: while the file is invalid the runtime keeps its last good config, and so do we.
//
// Edge-triggered: only a token that CHANGED since the last look counts, so a gateway started with an
// explicit token is not overridden by whatever the config/file held at start. The config wins over the
// file, as at start-up (a configured token is copied into the token file for the CLI).
import { unwatchFile, watchFile } from 'node:fs'
import type { RuntimeHost } from '../api/host'
import type { ResolvedConfig } from '../runtime/contracts'
import { isValidGatewayToken, readGatewayToken, tokenPath } from './state-files'

/** The part of RuntimeHost this watch reads. */
export type ConfigSource = Required<Pick<RuntimeHost, 'currentConfig' | 'onConfigChange'>>

export interface SharedTokenWatchOptions {
  stateDir: string
  /** the runtime's config (undefined: only the token file is followed) */
  config?: ConfigSource
  /** poll interval of the token file */
  intervalMs: number
  onToken(token: string, source: 'config' | 'file'): void
  warn(msg: string): void
}

/** The configured token as written (not LOOPDESK_GATEWAY_TOKEN, which pins a token at start instead). */
function configToken(cfg: ResolvedConfig | undefined): string | undefined {
  const t = cfg?.raw.gateway?.auth?.token
  return typeof t === 'string' && t.trim() ? t.trim() : undefined
}

export class SharedTokenWatch {
  private lastConfig: string | undefined
  private lastFile: string | undefined
  private stopped = false
  /** requests that may change the config and must get their response before connections close */
  private holds = 0
  private changedWhileHeld = false
  private readonly listener = () => this.check()
  private readonly offConfig?: () => void

  constructor(private readonly opts: SharedTokenWatchOptions) {
    this.lastConfig = configToken(opts.config?.currentConfig())
    this.lastFile = readGatewayToken(opts.stateDir)
    // polling stats the path, so it follows atomic (rename) writes that an inode watch would lose
    watchFile(tokenPath(opts.stateDir), { interval: opts.intervalMs, persistent: false }, this.listener)
    this.offConfig = opts.config?.onConfigChange(() => {
      if (this.holds > 0) this.changedWhileHeld = true
      // the change may come from inside a request handler: react after it returned
      else setImmediate(() => this.check())
    })
  }

  /**
   * A config.patch through the gateway is running: a token it sets takes effect after its response went
   * out (release), so the caller learns it succeeded before its connection is closed.
   */
  hold() {
    this.holds++
  }

  release() {
    if (this.holds > 0) this.holds--
    if (this.holds === 0 && this.changedWhileHeld) {
      this.changedWhileHeld = false
      setImmediate(() => this.check())
    }
  }

  /** Looks now. */
  check() {
    if (this.stopped) return
    const cfg = configToken(this.opts.config?.currentConfig())
    if (cfg !== undefined && cfg !== this.lastConfig) {
      this.lastConfig = cfg
      if (isValidGatewayToken(cfg)) return this.opts.onToken(cfg, 'config')
      this.opts.warn('gateway: gateway.auth.token in the config is not 16–512 printable characters; keeping the current token')
      return
    }
    if (cfg === undefined) this.lastConfig = undefined
    const file = readGatewayToken(this.opts.stateDir)
    if (file !== undefined && file !== this.lastFile) {
      this.lastFile = file
      if (cfg === undefined) this.opts.onToken(file, 'file')
    }
  }

  /** The gateway wrote this token to the file itself: not a change to react to. */
  noteFileToken(token: string) {
    this.lastFile = token
  }

  stop() {
    this.stopped = true
    unwatchFile(tokenPath(this.opts.stateDir), this.listener)
    this.offConfig?.()
  }
}
