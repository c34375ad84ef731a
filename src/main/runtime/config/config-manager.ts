// Owns <stateDir>/loopdesk.json: load + validate, keep the last good config when the file turns bad
// (the runtime keeps running; the file is never rewritten behind the user's back), apply merge patches
// atomically with optimistic concurrency (baseHash), and tell listeners about changes.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { ApiError, invalid } from '../../api/errors'
import type { CredentialStore, LoopdeskConfig, ResolvedConfig } from '../contracts'
import { tryAcquireWriteLockSync } from '../sessions/write-lock'
import { MAX_CONFIG_BYTES, readFailure, readSmallRegularFile } from '../read-small-file'
import { writeFileAtomicSync } from '../sessions/atomic-write'
import { configFileExposure, tightenFileMode, type ConfigFileExposure } from './config-file-mode'
import { configTextFor, renameKeyInText } from './config-text'
import { resolveConfig } from './defaults'
import { applyMergePatch, type MergePatchOptions } from './merge-patch'
import { parseConfigText } from './parse'
import { redactAnyConfig, redactConfig, restoreRedacted, secretPathsIn } from './redact'
import { renameProviderIn, type ProviderRename } from './rename-provider'
import { secretsStatus } from './secrets'
import { resolveConfigPath } from './state-dir'
import type { ConfigIssue } from './types'
import { isPlainObject, knownIssues, validateConfig } from './validate'

export interface ConfigManagerOptions {
  stateDir: string
  env?: NodeJS.ProcessEnv
  /** consulted by secretsStatus() */
  credentials?: CredentialStore
}

export interface ConfigChange {
  source: 'load' | 'reload' | 'patch'
  hash: string
}

export type ConfigListener = (config: ResolvedConfig, change: ConfigChange) => void

export interface LoadResult {
  ok: boolean
  issues: ConfigIssue[]
  /** the effective config changed */
  changed: boolean
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export class ConfigManager {
  readonly path: string
  readonly stateDir: string
  private readonly env: NodeJS.ProcessEnv
  private credentials?: CredentialStore
  private good: { raw: LoopdeskConfig; resolved: ResolvedConfig; hash: string }
  private _issues: ConfigIssue[] = []
  /** hash of the file as last read (valid or not) */
  private diskHash = ''
  /** the file's content while it has problems but parses (saves not in effect yet included) */
  private fileRaw?: Record<string, unknown>
  private listeners: ConfigListener[] = []
  private unwatch?: () => void
  /** the invalid file last warned about: the watcher's reads of the same text (its settle pass at start) say nothing new */
  private warnedHash?: string

  constructor(opts: ConfigManagerOptions) {
    this.stateDir = opts.stateDir
    this.env = opts.env ?? process.env
    this.credentials = opts.credentials
    this.path = resolveConfigPath(opts.stateDir, this.env)
    this.good = { raw: {}, resolved: resolveConfig({}, this.stateDir, this.env), hash: '' }
  }

  /** The effective config (defaults filled in). */
  get current(): ResolvedConfig {
    return this.good.resolved
  }

  /** The effective config as written (no defaults). */
  get raw(): LoopdeskConfig {
    return this.good.raw
  }

  /** Problems of the file on disk; empty when it is valid. */
  get issues(): ConfigIssue[] {
    return this._issues.map((i) => ({ ...i }))
  }

  /**
   * sha256 of the config file as last read or written ('' when there is no file) — the value patch()
   * expects as baseHash. Equals the effective config's hash unless the file is currently invalid.
   */
  get hash(): string {
    return this.diskHash
  }

  setCredentialStore(credentials: CredentialStore): void {
    this.credentials = credentials
  }

  /** Reads the file. Missing = defaults. Invalid = issues recorded, last good config kept, file untouched. */
  load(): LoadResult {
    return this.read('load')
  }

  reload(): LoadResult {
    return this.read('reload')
  }

  /**
   * Applies an RFC 7396 merge patch to the file and writes it atomically. The RESULT is validated first:
   * it is refused when it has a problem the file did not have; a result that keeps some of the file's
   * problems is written but not applied (`issues` lists them). With baseHash, the file must still have
   * that hash (else staleBaseHash). Returns the new hash.
   */
  patch(
    mergePatch: Record<string, unknown>,
    baseHash?: string,
    opts: {
      /** runs after validation, before the file is written; if it throws, nothing is written */
      beforeWrite?: () => void
      /** how arrays merge (config.patch: by id, removals only where replacePaths allows); default RFC 7396 */
      merge?: MergePatchOptions
      /**
       * first move `models.providers.<from>` to `<to>` (and the model refs naming it), then apply the patch —
       * one write; its key in the text is renamed in place, so the entry's comments stay
       */
      renameProvider?: ProviderRename
    } = {},
  ): { hash: string; issues: ConfigIssue[]; movedRefs: string[] } {
    if (!isPlainObject(mergePatch)) throw invalid('config patch must be an object')
    const release = tryAcquireWriteLockSync(this.path, { timeoutMs: 2000, staleMs: 30_000 })
    if (!release) throw new ApiError('UNAVAILABLE', `config file ${this.path} is locked by another process`, undefined, true)
    try {
      const text = readText(this.path)
      const currentHash = text === undefined ? '' : sha256(text)
      if (baseHash !== undefined && baseHash !== currentHash) {
        throw staleBaseHash(currentHash)
      }
      let base: Record<string, unknown> = {}
      if (text !== undefined) {
        const parsed = parseConfigText(text)
        if (!parsed.ok) throw invalid(`cannot patch ${this.path}: ${parsed.issue.message}; fix the file first`, { issues: [parsed.issue] })
        if (!isPlainObject(parsed.value)) throw invalid(`cannot patch ${this.path}: it does not hold an object`)
        base = parsed.value
      }
      let movedRefs: string[] = []
      let textBefore = text
      if (opts.renameProvider) {
        const { from, to } = opts.renameProvider
        const renamed = renameProviderIn(base, opts.renameProvider)
        base = renamed.config
        movedRefs = renamed.refs
        if (text !== undefined) textBefore = renameKeyInText(text, ['models', 'providers', from], to) ?? text
      }
      const next = applyMergePatch(base, mergePatch, opts.merge) as Record<string, unknown>
      const placeholders = restoreRedacted(next, base)
      const issues: ConfigIssue[] = [
        ...placeholders.map((p) => ({ path: p, message: 'is the redaction placeholder but no value is stored' })),
        ...validateConfig(next),
      ]
      // Only problems the patch adds refuse it: a file already invalid must stay fixable one save at a time.
      const before = new Set(knownIssues(base).map(issueKey))
      const added = issues.filter((i) => !before.has(issueKey(i)))
      if (added.length) {
        throw invalid(`invalid config: ${added.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`, { issues: added })
      }
      // a rename not in effect would leave the settings in use naming a provider whose key moved away
      if (opts.renameProvider && issues.length) {
        const { from } = opts.renameProvider
        throw invalid(
          `cannot rename “${from}” while the config file has problems (${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}): fix them first — the settings in use still name “${from}”`,
          { code: 'CONFIG_INVALID', issues },
        )
      }
      // the user's comments stay (edited in place); where they cannot, the annotated file is kept beside it
      const { text: out, commentsLost } = configTextFor(textBefore, next)
      // a file over the read limit would be written, then refused by the next start: every setting gone
      const bytes = Buffer.byteLength(out, 'utf8')
      if (bytes > MAX_CONFIG_BYTES) {
        throw invalid(`config patch refused: the config file would be ${bytes} bytes, over the ${MAX_CONFIG_BYTES} Loopdesk can read back`)
      }
      opts.beforeWrite?.()
      // an atomic write keeps an existing file's mode: a hand-made 0644 file (or .bak) would stay readable by
      // other users with the keys in it
      if (commentsLost && text !== undefined) {
        tightenFileMode(`${this.path}.bak`)
        writeFileAtomicSync(`${this.path}.bak`, text, { mode: 0o600 })
      }
      // a loopdesk.json that is a symlink (a dotfiles repo) is written where it points: the atomic rename
      // replaced the link with a plain file, and the linked file silently kept the old settings
      const target = symlinkTarget(this.path) ?? this.path
      tightenFileMode(target)
      writeFileAtomicSync(target, out, { mode: 0o600 })
      const hash = sha256(out)
      this.diskHash = hash
      this._issues = issues
      this.fileRaw = issues.length ? next : undefined
      // still invalid: written, but the last good config stays in effect (as on a reload)
      if (issues.length === 0) this.adopt(next as LoopdeskConfig, hash, 'patch')
      return { hash, issues: this.issues, movedRefs }
    } finally {
      release()
    }
  }

  /** The raw config with apiKey and gateway.auth.token replaced by '__REDACTED__'. */
  redacted(): Record<string, unknown> {
    return redactConfig(this.good.raw)
  }

  /**
   * While the file has problems (and parses): what it says, redacted — the values saved since it turned bad
   * are there, not in `redacted()` (the last good config). Settings edits these, so a save never writes a
   * stale value back over one the user saved. Undefined when the file is valid or unreadable.
   */
  fileRedacted(): Record<string, unknown> | undefined {
    return this.fileRaw && this._issues.length ? redactAnyConfig(this.fileRaw) : undefined
  }

  /** The secrets the file holds when other users can read it (`status` warns); undefined when private or none. */
  exposure(): ConfigFileExposure | undefined {
    return configFileExposure(this.path, this.fileRaw ?? this.good.raw)
  }

  /** 'set' / 'not set' per provider key (configured and well-known built-ins) and for gateway.auth.token. */
  secretsStatus(): Record<string, 'set' | 'not set'> {
    return secretsStatus(this.good.raw, this.env, this.credentials, this.good.resolved.gateway.token)
  }

  onChange(cb: ConfigListener): () => void {
    this.listeners = [...this.listeners, cb]
    return () => {
      this.listeners = this.listeners.filter((l) => l !== cb)
    }
  }

  /** Polls the file (robust to editors' atomic saves) and reloads on change. Returns the stop function. */
  watch(intervalMs = 1000): () => void {
    this.unwatch?.()
    const onStat = (cur: fs.Stats, prev: fs.Stats) => {
      if (cur.mtimeMs !== prev.mtimeMs || cur.size !== prev.size || cur.ino !== prev.ino) this.reload()
    }
    fs.watchFile(this.path, { interval: intervalMs, persistent: false }, onStat)
    // watchFile takes its baseline stat on the libuv threadpool: a busy pool lets an edit (or the file's
    // creation) land before it, in the baseline, never reported. One reload after the first interval
    // catches that (an unchanged file is a no-op).
    const settle = setTimeout(() => this.reload(), intervalMs)
    settle.unref()
    const stop = () => {
      clearTimeout(settle)
      fs.unwatchFile(this.path, onStat)
    }
    this.unwatch = stop
    return stop
  }

  private read(source: 'load' | 'reload'): LoadResult {
    let text: string | undefined
    try {
      text = readText(this.path)
    } catch (err) {
      this._issues = [{ path: '', message: `cannot read ${this.path}: ${readFailure(err)}` }]
      this.fileRaw = undefined
      return { ok: false, issues: this.issues, changed: false }
    }
    const hash = text === undefined ? '' : sha256(text)
    this.diskHash = hash
    let value: unknown = {}
    this.fileRaw = undefined
    if (text !== undefined) {
      const parsed = parseConfigText(text)
      if (!parsed.ok) return this.reject([parsed.issue], hash)
      value = parsed.value
      // at start, a file holding secrets is made private (as every write does); later hand chmods are the
      // user's, reported by status
      if (source === 'load' && isPlainObject(value) && secretPathsIn(value).length && tightenFileMode(this.path)) {
        console.warn(`[config] ${this.path} holds secrets and was readable by other users: its mode is now 0600`)
      }
    }
    const issues = validateConfig(value)
    if (issues.length) {
      if (isPlainObject(value)) this.fileRaw = value
      return this.reject(issues, hash)
    }
    this._issues = []
    this.warnedHash = undefined
    const changed = hash !== this.good.hash || source === 'load'
    if (changed) this.adopt(value as LoopdeskConfig, hash, source)
    return { ok: true, issues: [], changed }
  }

  private reject(issues: ConfigIssue[], hash: string): LoadResult {
    this._issues = issues
    if (hash !== this.warnedHash) {
      this.warnedHash = hash
      const where = issues.map((i) => `${i.path || '(file)'}: ${i.message}`).join('; ')
      console.warn(`[config] ${this.path} is invalid, keeping the last good config: ${where}`)
    }
    return { ok: false, issues: this.issues, changed: false }
  }

  private adopt(raw: LoopdeskConfig, hash: string, source: ConfigChange['source']): void {
    this.good = { raw, resolved: resolveConfig(raw, this.stateDir, this.env), hash }
    for (const l of this.listeners) {
      try {
        l(this.good.resolved, { source, hash })
      } catch (err) {
        console.error('[config] change listener failed:', err)
      }
    }
  }
}

const issueKey = (i: ConfigIssue) => `${i.path}\u0000${i.message}`

function readText(file: string): string | undefined {
  try {
    return readSmallRegularFile(file, MAX_CONFIG_BYTES)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/**
 * A write based on a config that changed since it was read. OpenClaw's wording and code (its clients match
 * the message to re-read and retry); `details.code` says which INVALID_REQUEST this is.
 */
export function staleBaseHash(currentHash: string): ApiError {
  return new ApiError('INVALID_REQUEST', 'config changed since last load; re-run config.get and retry', { code: 'CONFLICT', hash: currentHash })
}

/** The file a symlink at `file` resolves to (undefined: not a symlink, or a dangling one, which is replaced). */
function symlinkTarget(file: string): string | undefined {
  try {
    return fs.lstatSync(file).isSymbolicLink() ? fs.realpathSync(file) : undefined
  } catch {
    return undefined
  }
}
