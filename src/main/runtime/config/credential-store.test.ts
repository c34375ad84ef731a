import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FileCredentialStore } from './credential-store'

let stateDir: string
beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-cred-'))
})
afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }))

describe('FileCredentialStore', () => {
  it('stores {provider: key} in credentials.json with mode 0600', () => {
    const s = new FileCredentialStore({ stateDir })
    expect(s.list()).toEqual([])
    expect(s.has('openai')).toBe(false)
    s.set('openai', ' sk-1 ')
    s.set('anthropic', 'sk-ant')
    expect(s.get('openai')).toBe('sk-1')
    expect(s.list()).toEqual(['anthropic', 'openai'])
    const file = path.join(stateDir, 'credentials.json')
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ anthropic: 'sk-ant', openai: 'sk-1' })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    s.delete('openai')
    s.delete('never-set')
    expect(new FileCredentialStore({ stateDir }).list()).toEqual(['anthropic'])
    expect(fs.readdirSync(stateDir)).toEqual(['credentials.json'])
  })

  it('tightens a looser existing mode', () => {
    const file = path.join(stateDir, 'credentials.json')
    fs.writeFileSync(file, '{}')
    fs.chmodSync(file, 0o644)
    new FileCredentialStore({ stateDir }).set('x', 'k')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })

  it('sees changes made by another instance (another process)', () => {
    const a = new FileCredentialStore({ stateDir })
    const b = new FileCredentialStore({ stateDir })
    expect(b.has('p')).toBe(false)
    a.set('p', 'k')
    const future = new Date(Date.now() + 5000)
    fs.utimesSync(a.path, future, future) // make the change visible even on coarse mtime clocks
    expect(b.get('p')).toBe('k')
  })

  it('rejects bad input without echoing the key', () => {
    const s = new FileCredentialStore({ stateDir })
    expect(() => s.set('bad id!', 'k')).toThrow(/invalid provider id/)
    expect(() => s.set('p', '   ')).toThrow(/empty API key/)
    let msg = ''
    try {
      s.set('p', 'sk-secret\nline2')
    } catch (e) {
      msg = (e as Error).message
    }
    expect(msg).toMatch(/not a single-line key/)
    expect(msg).not.toContain('sk-secret')
  })

  it('an unreadable file is kept as a backup before being replaced; its content is never logged', () => {
    const file = path.join(stateDir, 'credentials.json')
    fs.writeFileSync(file, '{"openai": "sk-leak-me", oops')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const s = new FileCredentialStore({ stateDir })
    expect(s.list()).toEqual([])
    expect(warn).toHaveBeenCalled()
    expect(JSON.stringify(warn.mock.calls)).not.toContain('sk-leak-me')
    warn.mockRestore()
    s.set('anthropic', 'k')
    const backups = fs.readdirSync(stateDir).filter((f) => f.includes('.corrupt-'))
    expect(backups).toHaveLength(1)
    expect(fs.statSync(path.join(stateDir, backups[0])).mode & 0o777).toBe(0o600)
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ anthropic: 'k' })
  })

  it('damaged twice in one millisecond: both damaged files are kept (the second copy took the first one’s name)', () => {
    const file = path.join(stateDir, 'credentials.json')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-02T03:04:05.678Z') })
    try {
      for (const damaged of ['{"first": "sk-1", oops', '{"second": "sk-2", oops']) {
        fs.writeFileSync(file, damaged, { mode: 0o600 })
        const future = new Date(Date.now() + (damaged.includes('second') ? 20_000 : 10_000))
        fs.utimesSync(file, future, future) // a new mtime: the store reads it again
        new FileCredentialStore({ stateDir }).set('anthropic', 'k')
      }
    } finally {
      vi.useRealTimers()
      warn.mockRestore()
    }
    const backups = fs.readdirSync(stateDir).filter((f) => f.includes('.corrupt-')).sort()
    expect(backups.map((b) => fs.readFileSync(path.join(stateDir, b), 'utf8'))).toEqual(['{"first": "sk-1", oops', '{"second": "sk-2", oops'])
    for (const b of backups) expect(fs.statSync(path.join(stateDir, b)).mode & 0o777).toBe(0o600)
  })
})
