import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import { validateParams } from '../api/dispatch'
import { DEFAULT_PREFS as RUNTIME_DEFAULT_PREFS } from '../runtime/handlers-system'
import { checkPrefsPatch, DEFAULT_PREFS, openShellSettings, sanitizePrefs } from './settings'
import { fake, resetFake } from './testing/fake-electron'

let dir: string
beforeEach(() => {
  resetFake()
  dir = mkdtempSync(join(tmpdir(), 'loopdesk-settings-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('shell settings (electron-store)', () => {
  it('round-trips prefs and window state through the file', () => {
    const a = openShellSettings({ cwd: dir })
    expect(a.prefs.get()).toEqual(DEFAULT_PREFS)
    expect(a.prefs.set({ theme: 'dark', sidebarWidth: 300 })).toEqual({ ...DEFAULT_PREFS, theme: 'dark', sidebarWidth: 300 })
    a.setWindowState({ x: 10, y: 20, width: 1000, height: 700, maximized: true })
    const b = openShellSettings({ cwd: dir })
    expect(b.prefs.get()).toEqual({ ...DEFAULT_PREFS, theme: 'dark', sidebarWidth: 300 })
    expect(b.getWindowState()).toEqual({ x: 10, y: 20, width: 1000, height: 700, maximized: true })
    expect(a.path).toBe(join(dir, 'settings.json'))
    expect(statSync(a.path).mode & 0o077).toBe(0)
  })

  it('rejects invalid patches with INVALID_REQUEST and keeps the saved prefs', () => {
    const s = openShellSettings({ cwd: dir })
    s.prefs.set({ theme: 'light' })
    for (const bad of [{ theme: 'neon' }, { sidebarWidth: 5 }, { inspectorWidth: 1.5 }, { nope: true }]) {
      expect(() => s.prefs.set(bad as any)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }))
    }
    expect(s.prefs.get().theme).toBe('light')
  })

  it('uses the same defaults as the headless runtime prefs', () => {
    expect(DEFAULT_PREFS).toEqual(RUNTIME_DEFAULT_PREFS)
  })

  it('checks patches exactly like the loopdesk.prefs.set schema', () => {
    const samples: unknown[] = [
      {},
      { theme: 'dark' },
      { theme: 'light', inspectorOpen: false, inspectorWidth: 200, sidebarWidth: 1000 },
      { inspectorWidth: 2000, sidebarWidth: 150 },
      { theme: undefined },
      { theme: 'neon' },
      { theme: 1 },
      { inspectorOpen: 'yes' },
      { inspectorWidth: 199 },
      { inspectorWidth: 2001 },
      { inspectorWidth: 300.5 },
      { sidebarWidth: 149 },
      { sidebarWidth: 1001 },
      { sidebarWidth: '200' },
      { other: 1 },
      null,
      [],
      'dark',
      42,
    ]
    for (const p of samples) {
      expect(checkPrefsPatch(p) === undefined, JSON.stringify(p)).toBe(validateParams('loopdesk.prefs.set', p) === undefined)
    }
  })

  it('notifies listeners on change', () => {
    const s = openShellSettings({ cwd: dir })
    const seen: string[] = []
    const off = s.onPrefsChange((p) => seen.push(p.theme))
    s.prefs.set({ theme: 'dark' })
    off()
    s.prefs.set({ theme: 'light' })
    expect(seen).toEqual(['dark'])
  })

  it('falls back per field for hand-edited values', () => {
    expect(sanitizePrefs({ theme: 'dark', sidebarWidth: 'wide', inspectorOpen: 1 })).toEqual({ ...DEFAULT_PREFS, theme: 'dark' })
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ prefs: { theme: 'x', inspectorWidth: 500 }, window: { width: 'big' } }))
    const s = openShellSettings({ cwd: dir })
    expect(s.prefs.get()).toEqual({ ...DEFAULT_PREFS, inspectorWidth: 500 })
    expect(s.getWindowState()).toBeUndefined()
  })

  it('keeps a corrupt file aside and starts fresh instead of failing to start', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    writeFileSync(join(dir, 'settings.json'), '{ not json')
    const s = openShellSettings({ cwd: dir })
    expect(s.prefs.get()).toEqual(DEFAULT_PREFS)
    const aside = readdirSync(dir).find((f) => f.startsWith('settings.json.corrupt-'))
    expect(aside).toBeDefined()
    expect(readFileSync(join(dir, aside!), 'utf8')).toBe('{ not json')
    warn.mockRestore()
  })

  it('a file damaged again in the same millisecond is kept aside too, not over the first one', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-02T03:04:05.678Z') })
    try {
      for (const damaged of ['{ first', '{ second']) {
        writeFileSync(join(dir, 'settings.json'), damaged)
        expect(openShellSettings({ cwd: dir }).prefs.get()).toEqual(DEFAULT_PREFS)
      }
    } finally {
      vi.useRealTimers()
      warn.mockRestore()
    }
    const aside = readdirSync(dir).filter((f) => f.startsWith('settings.json.corrupt-')).sort()
    expect(aside.map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(['{ first', '{ second'])
  })

  it('leaves no electron-store IPC listener behind (every IPC entry point validates its sender)', async () => {
    // A fresh electron-store module registers its sync listener on first use, as it does at app start.
    vi.resetModules()
    const { openStore } = await import('./store')
    const { default: Store } = await import('electron-store')
    new Store({ cwd: dir, name: 'probe' })
    expect(fake.ipcMain.listenerCount('electron-store-get-data')).toBe(1)
    openStore({ cwd: dir, name: 'other', defaults: {} })
    expect(fake.ipcMain.listenerCount('electron-store-get-data')).toBe(0)
  })
})
