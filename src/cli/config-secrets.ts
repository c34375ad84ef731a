// Secrets written into loopdesk.json itself (a provider's `apiKey`, `gateway.auth.token` — the latter is
// where `gateway rotate-token` keeps a token a running gateway follows) in backups and restores:
// - a backup's copy has them replaced by the config editor's placeholder: the gateway token always (it
//   belongs to this installation), API keys unless --include-keys;
// - a restore puts this installation's current values back in their place (the gateway token whatever the
//   backup holds, so a token rotated because it leaked does not come back) and drops a placeholder it has no
//   value for, so the restored config stays valid.
// A file that changes keeps its comments when it is JSON with comments (config-text.ts), else it is written
// as plain JSON; one without secrets to touch is left byte for byte.
import fs from 'node:fs'
import { tightenFileMode } from '../main/runtime/config/config-file-mode'
import { configTextFor } from '../main/runtime/config/config-text'
import { parseConfigText } from '../main/runtime/config/parse'
import { dropRedacted, GATEWAY_TOKEN_PATH, redactIn, restoreRedacted, secretPathsIn } from '../main/runtime/config/redact'
import { isPlainObject } from '../main/runtime/config/validate'
import { MAX_CONFIG_BYTES, readSmallRegularFile } from '../main/runtime/read-small-file'

type Json = Record<string, unknown>

function read(file: string): Json | undefined {
  let text: string
  try {
    text = readSmallRegularFile(file, MAX_CONFIG_BYTES) // the state dir's: a FIFO under the name is no config
  } catch {
    return undefined
  }
  const parsed = parseConfigText(text)
  return parsed.ok && isPlainObject(parsed.value) ? parsed.value : undefined
}

function write(file: string, cfg: Json): void {
  const mode = fs.statSync(file).mode & 0o777
  // comments stay where the file is JSON with comments; no .bak of the old text, which holds the secrets
  fs.writeFileSync(file, configTextFor(fs.readFileSync(file, 'utf8'), cfg).text, { mode })
}

/**
 * Replaces the secrets in a backup's copy of loopdesk.json. Returns the paths replaced, or undefined when the
 * file is not there or cannot be read as a config (it is then left as it is).
 */
export function stripConfigSecrets(file: string, opts: { keepApiKeys: boolean }): string[] | undefined {
  const cfg = read(file)
  if (!cfg) return fs.existsSync(file) ? undefined : []
  const done = redactIn(cfg, (p) => p === GATEWAY_TOKEN_PATH || !opts.keepApiKeys)
  if (done.length) write(file, cfg)
  // a backup's copy that keeps API keys (--include-keys) is private too
  if (secretPathsIn(cfg).length) tightenFileMode(file)
  return done
}

/**
 * In a restored copy of loopdesk.json, puts this installation's secrets (from `current`, the config being
 * replaced) where the backup has placeholders, the current gateway token whatever the backup holds (none when
 * there is none now), and drops placeholders with no value. Returns the API keys that were dropped.
 */
export function restoreConfigSecrets(file: string, current: string): string[] {
  const cfg = read(file)
  if (!cfg) return []
  const before = JSON.stringify(cfg)
  const now = read(current) ?? {}
  restoreRedacted(cfg, now)
  // the gateway token is this installation's whatever the backup holds: the current one, or none
  const token = tokenOf(now)
  const gateway = isPlainObject(cfg.gateway) ? cfg.gateway : undefined
  if (typeof token === 'string') {
    const g = gateway ?? (cfg.gateway = {} as Json)
    const auth = isPlainObject(g.auth) ? g.auth : (g.auth = {} as Json)
    auth.token = token
  } else if (gateway && isPlainObject(gateway.auth)) delete gateway.auth.token
  const dropped = dropRedacted(cfg).filter((p) => p !== GATEWAY_TOKEN_PATH)
  if (JSON.stringify(cfg) !== before) write(file, cfg)
  // a restored file holding keys is private like the one it replaces (the archive's mode may be 0644)
  if (secretPathsIn(cfg).length) tightenFileMode(file)
  return dropped
}

const tokenOf = (cfg: Json): unknown => (isPlainObject(cfg.gateway) && isPlainObject(cfg.gateway.auth) ? cfg.gateway.auth.token : undefined)
