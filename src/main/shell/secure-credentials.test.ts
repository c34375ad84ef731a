import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import { envNameFor, SafeStorageCredentialStore } from './secure-credentials'
import { fake, resetFake } from './testing/fake-electron'

const KEY = 'sk-ant-SECRET-0123456789abcdef'
let dir: string
let logged: string[]

beforeEach(() => {
  resetFake()
  dir = mkdtempSync(join(tmpdir(), 'loopdesk-creds-'))
  logged = []
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
  }
})
afterEach(() => {
  vi.restoreAllMocks()
  rmSync(dir, { recursive: true, force: true })
  // The key must never reach any log line, whatever the test did.
  expect(logged.join('\n')).not.toContain(KEY)
})

describe('SafeStorageCredentialStore', () => {
  it('stores keys encrypted (base64 of safeStorage output) and reads them back', () => {
    const s = new SafeStorageCredentialStore({ cwd: dir, platform: 'linux' })
    expect(s.location).toEqual({ store: 'system' })
    s.set('anthropic', KEY)
    expect(fake.safeStorage.encryptString).toHaveBeenCalledWith(KEY)
    const file = readFileSync(join(dir, 'credentials.json'), 'utf8')
    expect(file).not.toContain(KEY)
    expect(JSON.parse(file).keys.anthropic).toBe(fake.safeStorage.encryptString.mock.results[0].value.toString('base64'))
    const again = new SafeStorageCredentialStore({ cwd: dir, platform: 'linux' })
    expect(again.get('anthropic')).toBe(KEY)
    expect(again.has('anthropic')).toBe(true)
    expect(again.list()).toEqual(['anthropic'])
    again.delete('anthropic')
    expect(again.has('anthropic')).toBe(false)
    expect(again.get('anthropic')).toBeUndefined()
  })

  it('supports provider ids with dots (no dot-path expansion)', () => {
    const s = new SafeStorageCredentialStore({ cwd: dir, platform: 'darwin' })
    s.set('my.proxy', KEY)
    expect(s.list()).toEqual(['my.proxy'])
    expect(s.get('my.proxy')).toBe(KEY)
  })

  it("refuses to store on Linux's basic_text backend, pointing to an environment variable", () => {
    fake.safeStorage.backend = 'basic_text'
    const s = new SafeStorageCredentialStore({ cwd: dir, platform: 'linux' })
    let err: any
    try {
      s.set('anthropic', KEY)
    } catch (e) {
      err = e
    }
    expect(err?.code).toBe('UNAVAILABLE')
    expect(err.message).toContain('basic_text')
    expect(err.message).toContain('ANTHROPIC_API_KEY')
    expect(err.message).toContain('apiKeyEnv')
    expect(err.message).not.toContain(KEY)
    expect(fake.safeStorage.encryptString).not.toHaveBeenCalled()
    expect(s.has('anthropic')).toBe(false)
  })

  it('refuses when encryption is unavailable on any platform', () => {
    fake.safeStorage.available = false
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const s = new SafeStorageCredentialStore({ cwd: dir, platform })
      expect(() => s.set('openai', KEY)).toThrow(/OPENAI_API_KEY/)
    }
    expect(fake.safeStorage.encryptString).not.toHaveBeenCalled()
  })

  it('basic_text only matters on Linux', () => {
    fake.safeStorage.backend = 'basic_text'
    const s = new SafeStorageCredentialStore({ cwd: dir, platform: 'darwin' })
    s.set('openai', KEY)
    expect(s.get('openai')).toBe(KEY)
  })

  it('validates provider ids and key sizes', () => {
    const s = new SafeStorageCredentialStore({ cwd: dir, platform: 'linux' })
    expect(() => s.set('../x', KEY)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }))
    expect(() => s.set('openai', '')).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }))
  })

  it('treats an undecryptable entry as not set, without logging the value', () => {
    const s = new SafeStorageCredentialStore({ cwd: dir, platform: 'linux' })
    s.set('openai', KEY)
    fake.safeStorage.decryptString.mockImplementation(() => {
      throw new Error(`decrypt failed for ${KEY}`) // even a hostile error message must not be logged
    })
    expect(s.get('openai')).toBeUndefined()
    expect(logged.join('\n')).toContain("provider 'openai'")
  })

  it('names env variables for unknown providers', () => {
    expect(envNameFor('my-llm')).toBe('MY_LLM_API_KEY')
    expect(envNameFor('google')).toBe('GEMINI_API_KEY')
  })
})
