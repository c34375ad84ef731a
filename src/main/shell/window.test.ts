import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import type { WindowState } from './settings'
import { fake, FakeBrowserWindow, resetFake } from './testing/fake-electron'
import { createMainWindow, focusWindow, secureWebPreferences } from './window'

beforeEach(() => resetFake())

function memorySettings(initial?: WindowState) {
  let state = initial
  return { getWindowState: () => state, setWindowState: vi.fn((s: WindowState) => void (state = s)), current: () => state }
}

describe('main window', () => {
  it('is created with the locked-down webPreferences', () => {
    createMainWindow({ preloadPath: '/app/out/preload/index.cjs', url: 'app://loopdesk/index.html' })
    expect(FakeBrowserWindow.instances).toHaveLength(1)
    const wp = FakeBrowserWindow.instances[0].options.webPreferences
    // Each of these guards a checklist item; flipping any of them must fail this test.
    expect(wp.contextIsolation).toBe(true)
    expect(wp.sandbox).toBe(true)
    expect(wp.nodeIntegration).toBe(false)
    expect(wp.nodeIntegrationInWorker).toBe(false)
    expect(wp.nodeIntegrationInSubFrames).toBe(false)
    expect(wp.webSecurity).toBe(true)
    expect(wp.allowRunningInsecureContent).toBe(false)
    expect(wp.experimentalFeatures).toBe(false)
    expect(wp.webviewTag).toBe(false)
    expect(wp.spellcheck).toBe(false)
    expect(wp.preload).toBe('/app/out/preload/index.cjs')
    expect(wp.preload.endsWith('.cjs')).toBe(true) // sandboxed preloads must be CommonJS
    expect(wp.enableBlinkFeatures).toBeUndefined()
    expect(wp).toEqual(secureWebPreferences('/app/out/preload/index.cjs'))
  })

  it('loads the given app URL and shows once ready', () => {
    const win = createMainWindow({ preloadPath: '/p.cjs', url: 'app://loopdesk/index.html' }) as unknown as FakeBrowserWindow
    expect(win.loadedUrls).toEqual(['app://loopdesk/index.html'])
    expect(win.options.show).toBe(false)
    expect(win.isVisible()).toBe(false)
    win.emit('ready-to-show')
    expect(win.isVisible()).toBe(true)
  })

  it('still shows the window when the page fails to load', () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    const win = createMainWindow({ preloadPath: '/p.cjs', url: 'app://loopdesk/index.html' }) as unknown as FakeBrowserWindow
    win.webContents.emit('did-fail-load', {}, -6, 'ERR_FILE_NOT_FOUND', 'app://loopdesk/index.html', true)
    expect(win.isVisible()).toBe(true)
    err.mockRestore()
  })

  it('restores saved bounds within the visible displays', () => {
    createMainWindow({
      preloadPath: '/p.cjs',
      url: 'app://loopdesk/index.html',
      settings: memorySettings({ x: 5000, y: 5000, width: 900, height: 700, maximized: true }),
    })
    const win = FakeBrowserWindow.instances[0]
    expect(win.options).toMatchObject({ x: 510, y: 190, width: 900, height: 700 })
    expect(win.isMaximized()).toBe(true)
  })

  it('saves geometry debounced while moving, and immediately on close', async () => {
    vi.useFakeTimers()
    try {
      const settings = memorySettings()
      const win = createMainWindow({ preloadPath: '/p.cjs', url: 'app://loopdesk/index.html', settings, saveDelayMs: 300 }) as unknown as FakeBrowserWindow
      win.setBounds({ x: 10, width: 1000 })
      win.setBounds({ x: 20, width: 1001 })
      win.emit('move')
      expect(settings.setWindowState).not.toHaveBeenCalled()
      vi.advanceTimersByTime(300)
      expect(settings.setWindowState).toHaveBeenCalledTimes(1)
      expect(settings.current()).toMatchObject({ x: 20, width: 1001, maximized: false })
      win.setBounds({ x: 30 })
      win.close()
      expect(settings.setWindowState).toHaveBeenCalledTimes(2)
      expect(settings.current()).toMatchObject({ x: 30 })
      vi.advanceTimersByTime(1000)
      expect(settings.setWindowState).toHaveBeenCalledTimes(2)
    } finally {
      vi.useRealTimers()
    }
  })

  it('focusWindow restores and focuses', () => {
    const win = createMainWindow({ preloadPath: '/p.cjs', url: 'app://loopdesk/index.html' }) as unknown as FakeBrowserWindow
    win.minimize()
    focusWindow(win as any)
    expect(win.isMinimized()).toBe(false)
    expect(win.isVisible()).toBe(true)
    expect(win.focused).toBe(true)
    expect(() => focusWindow(undefined)).not.toThrow()
    void fake
  })
})
