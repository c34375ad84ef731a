// Headless credential store: { provider: key } in <stateDir>/credentials.json, mode 0600, atomic writes.
// (The Electron shell uses a safeStorage-backed store instead.) Messages never include a key.
import fs from 'node:fs'
import path from 'node:path'
import { invalid } from '../../api/errors'
import type { CredentialLocation, CredentialStore } from '../contracts'
import { keepCorruptCopy } from '../corrupt-copy'
import { readSmallRegularFile } from '../read-small-file'
import { writeFileAtomicSync } from '../sessions/atomic-write'
import { isPlainObject } from './validate'

const PROVIDER_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/i

export class FileCredentialStore implements CredentialStore {
  readonly path: string
  get location(): CredentialLocation {
    return { store: 'file', path: this.path }
  }
  private keys = new Map<string, string>()
  private loadedMtime = -1
  /** the file on disk could not be parsed: keep a copy before the first write replaces it */
  private corrupt = false

  constructor(opts: { stateDir: string; file?: string }) {
    this.path = opts.file ?? path.join(opts.stateDir, 'credentials.json')
  }

  get(provider: string): string | undefined {
    this.refresh()
    return this.keys.get(provider)
  }

  has(provider: string): boolean {
    return this.get(provider) !== undefined
  }

  list(): string[] {
    this.refresh()
    return [...this.keys.keys()].sort()
  }

  set(provider: string, key: string): void {
    if (!PROVIDER_RE.test(provider)) throw invalid(`invalid provider id ${JSON.stringify(provider)}`)
    if (typeof key !== 'string' || key.trim() === '') throw invalid(`empty API key for provider ${provider}`)
    if (key.length > 16_384 || /[\r\n]/.test(key)) throw invalid(`API key for provider ${provider} is not a single-line key`)
    this.refresh()
    const next = new Map(this.keys)
    next.set(provider, key.trim())
    this.write(next)
  }

  delete(provider: string): void {
    this.refresh()
    if (!this.keys.has(provider)) return
    const next = new Map(this.keys)
    next.delete(provider)
    this.write(next)
  }

  private refresh(): void {
    let st: fs.Stats
    try {
      st = fs.statSync(this.path)
    } catch {
      this.keys = new Map()
      this.loadedMtime = -1
      return
    }
    if (st.mtimeMs === this.loadedMtime) return
    this.loadedMtime = st.mtimeMs
    const keys = new Map<string, string>()
    try {
      const data = JSON.parse(readSmallRegularFile(this.path, 1024 * 1024)) as unknown
      if (!isPlainObject(data)) throw new Error('not an object')
      for (const [p, k] of Object.entries(data)) if (typeof k === 'string' && k !== '') keys.set(p, k)
      this.corrupt = false
    } catch (err) {
      this.corrupt = true
      console.warn(`[credentials] ${this.path} is unreadable (${(err as Error).name}); stored keys unavailable`)
    }
    this.keys = keys
  }

  private write(next: Map<string, string>): void {
    if (this.corrupt) {
      keepCorruptCopy(this.path, { mode: 0o600 }) // best effort: the copy is only a safety net
      this.corrupt = false
    }
    try {
      fs.chmodSync(this.path, 0o600) // never keep an older, looser mode for secrets (the write keeps the mode)
    } catch {
      // no file yet: it is created 0600
    }
    const text = JSON.stringify(Object.fromEntries([...next].sort(([a], [b]) => a.localeCompare(b))), null, 2) + '\n'
    writeFileAtomicSync(this.path, text, { mode: 0o600 })
    this.keys = next
    this.loadedMtime = fs.statSync(this.path).mtimeMs
  }
}
