// Provider API keys encrypted with the OS keychain via safeStorage, stored as base64 in electron-store.
// When the OS offers no real keychain (safeStorage unavailable, or Linux's `basic_text` backend, which
// "encrypts" with a hard-coded password), storing is refused: the user is told to use an environment
// variable instead. Key values are never logged and never leave the main process.
import { safeStorage } from 'electron'
import type Store from 'electron-store'
import { ApiError } from '../api/errors'
import type { CredentialStore } from '../runtime/contracts'
import { openStore } from './store'

type CredentialData = { keys: Record<string, string> }

const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Environment variables pi-ai reads for the built-in providers (others: <PROVIDER>_API_KEY). */
const ENV_NAMES: Record<string, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  google: 'GEMINI_API_KEY',
  groq: 'GROQ_API_KEY',
  mistral: 'MISTRAL_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  xai: 'XAI_API_KEY',
}

export function envNameFor(provider: string): string {
  return ENV_NAMES[provider] ?? `${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`
}

/** Why secure storage cannot be used right now, or undefined when it can. */
export function secureStorageProblem(platform: NodeJS.Platform = process.platform): string | undefined {
  if (!safeStorage.isEncryptionAvailable()) return 'the OS keychain is not available'
  if (platform === 'linux') {
    const backend = safeStorage.getSelectedStorageBackend()
    if (backend === 'basic_text') return "only the 'basic_text' backend is available (no secret service / keyring)"
    if (backend === 'unknown') return 'the OS keychain backend is not known yet'
  }
  return undefined
}

export class SafeStorageCredentialStore implements CredentialStore {
  readonly location = { store: 'system' } as const
  private readonly store: Store<CredentialData>
  private readonly platform: NodeJS.Platform

  constructor(opts: { cwd: string; name?: string; platform?: NodeJS.Platform }) {
    this.store = openStore<CredentialData>({ name: opts.name ?? 'credentials', cwd: opts.cwd, defaults: { keys: {} } })
    this.platform = opts.platform ?? process.platform
  }

  private keys(): Record<string, string> {
    const raw = this.store.get('keys')
    const out: Record<string, string> = {}
    if (raw && typeof raw === 'object') {
      for (const [k, v] of Object.entries(raw)) if (PROVIDER_ID.test(k) && typeof v === 'string') out[k] = v
    }
    return out
  }

  get(provider: string): string | undefined {
    const blob = this.keys()[provider]
    if (blob === undefined || !PROVIDER_ID.test(provider)) return undefined
    try {
      return safeStorage.decryptString(Buffer.from(blob, 'base64'))
    } catch {
      // Keychain changed or entry damaged: behave as "not set" so env keys still work. No value logged.
      console.warn(`[loopdesk] stored key for provider '${provider}' could not be decrypted; ignoring it`)
      return undefined
    }
  }

  has(provider: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.keys(), provider)
  }

  set(provider: string, key: string): void {
    if (!PROVIDER_ID.test(provider)) throw new ApiError('INVALID_REQUEST', `invalid provider id '${provider.slice(0, 64)}'`)
    if (typeof key !== 'string' || key.length === 0 || key.length > 16_384) {
      throw new ApiError('INVALID_REQUEST', `the key for provider '${provider}' must be 1–16384 characters`)
    }
    const problem = secureStorageProblem(this.platform)
    if (problem) {
      throw new ApiError(
        'UNAVAILABLE',
        `Cannot store the API key for '${provider}' securely: ${problem}. Loopdesk will not save it in plain text. ` +
          `Set it in an environment variable instead (e.g. ${envNameFor(provider)}), or name your variable in ` +
          `models.providers.${provider}.apiKeyEnv.`,
        { reason: 'secure-storage-unavailable', envVar: envNameFor(provider) },
      )
    }
    let encrypted: Buffer
    try {
      encrypted = safeStorage.encryptString(key)
    } catch (err) {
      throw new ApiError('UNAVAILABLE', `Could not encrypt the API key for '${provider}': ${(err as Error)?.message ?? 'error'}`)
    }
    this.store.set('keys', { ...this.keys(), [provider]: encrypted.toString('base64') })
  }

  delete(provider: string): void {
    const keys = this.keys()
    if (!(provider in keys)) return
    delete keys[provider]
    this.store.set('keys', keys)
  }

  list(): string[] {
    return Object.keys(this.keys()).sort()
  }
}
