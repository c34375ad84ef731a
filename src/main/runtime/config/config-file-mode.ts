// loopdesk.json may hold secrets (a provider's apiKey, gateway.auth.token). A file the user wrote by hand
// is usually 0644, and an atomic write keeps the existing mode, so those secrets would stay readable by
// every local user. The config manager narrows the file to 0600 on each write and, when it holds a secret,
// at start; `status` reports a file that is still open to others (a chmod that failed, or one made since).
import fs from 'node:fs'
import { secretPathsIn } from './redact'
import { isPlainObject } from './validate'

/** group/other bits: anything there lets another local user read (or replace) the file */
const OPEN_TO_OTHERS = 0o077

/** What `status` says about a config file holding secrets that others can read. */
export interface ConfigFileExposure {
  path: string
  /** the file's permission bits, octal ("0644") */
  mode: string
  /** where the secrets are (dot paths), never their values */
  secrets: string[]
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

/** chmod 0600 when group or others have any access; false when it was already private, missing, or chmod failed. */
export function tightenFileMode(file: string): boolean {
  try {
    const st = fs.statSync(file)
    if ((st.mode & OPEN_TO_OTHERS) === 0) return false
    fs.chmodSync(file, 0o600)
    return true
  } catch {
    // missing, or not ours to chmod: status reports what is left open
    return false
  }
}

/** The secrets in `cfg` when `file` is open to other users; undefined when it is private, missing, or holds none. */
export function configFileExposure(file: string, cfg: unknown): ConfigFileExposure | undefined {
  if (!isPlainObject(cfg)) return undefined
  const secrets = secretPathsIn(cfg)
  if (!secrets.length) return undefined
  let mode: number
  try {
    mode = fs.statSync(file).mode
  } catch {
    return undefined
  }
  if ((mode & OPEN_TO_OTHERS) === 0) return undefined
  return { path: file, mode: octal(mode), secrets }
}
