// A backup's or a restore's loopdesk.json that holds keys ends up 0600, whatever mode the file arrived with.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { restoreConfigSecrets, stripConfigSecrets } from './config-secrets'

const dirs: string[] = []
function fileWith(cfg: unknown, mode: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdesk-config-secrets-'))
  dirs.push(dir)
  const file = path.join(dir, 'loopdesk.json')
  fs.writeFileSync(file, JSON.stringify(cfg))
  fs.chmodSync(file, mode)
  return file
}
const modeOf = (file: string) => fs.statSync(file).mode & 0o777
const withKey = { models: { providers: { acme: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-live-123' } } } }

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe.skipIf(process.platform === 'win32')('config secrets: file modes', () => {
  it('a restored file holding keys (unchanged by the restore) is narrowed to 0600', () => {
    const restored = fileWith(withKey, 0o644)
    const current = fileWith(withKey, 0o600)
    restoreConfigSecrets(restored, current)
    expect(JSON.parse(fs.readFileSync(restored, 'utf8')).models.providers.acme.apiKey).toBe('sk-live-123')
    expect(modeOf(restored)).toBe(0o600)
  })

  it('a backup copy that keeps its keys is narrowed; one left without secrets keeps its mode', () => {
    const kept = fileWith(withKey, 0o644)
    expect(stripConfigSecrets(kept, { keepApiKeys: true })).toEqual([])
    expect(modeOf(kept)).toBe(0o600)
    const stripped = fileWith(withKey, 0o644)
    expect(stripConfigSecrets(stripped, { keepApiKeys: false })).toEqual(['models.providers.acme.apiKey'])
    expect(modeOf(stripped)).toBe(0o644)
  })
})
