// The one main window: locked-down webPreferences, geometry restored on screen and saved (debounced).
import { BrowserWindow, nativeTheme, screen, type WebPreferences } from 'electron'
import { fitBounds, MIN_SIZE } from './bounds'
import type { ShellSettings, WindowState } from './settings'

/**
 * The renderer is untrusted content (it renders model output): isolated, sandboxed, no Node, web security
 * on, and only the preload's narrow bridge. Tests assert each of these.
 */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  }
}

export interface MainWindowOptions {
  preloadPath: string
  /** app://loopdesk/index.html, or the dev server URL in an unpackaged dev run */
  url: string
  settings?: Pick<ShellSettings, 'getWindowState' | 'setWindowState'>
  icon?: string
  /** debounce for saving geometry while the user drags/resizes */
  saveDelayMs?: number
}

export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const saved = opts.settings?.getWindowState()
  const workAreas = [screen.getPrimaryDisplay(), ...screen.getAllDisplays()].map((d) => d.workArea)
  const bounds = fitBounds(saved, workAreas)
  const win = new BrowserWindow({
    ...bounds,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Loopdesk',
    ...(opts.icon ? { icon: opts.icon } : {}),
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#1b1b1f' : '#ffffff',
    webPreferences: secureWebPreferences(opts.preloadPath),
  })
  if (saved?.maximized) win.maximize()

  let shown = false
  const show = () => {
    if (shown || win.isDestroyed()) return
    shown = true
    win.show()
  }
  win.once('ready-to-show', show)
  // Show even when the page fails to load, so the user sees something instead of an invisible app.
  win.webContents.on('did-fail-load', (_e, code, desc, url, isMainFrame) => {
    if (!isMainFrame) return
    console.error(`[loopdesk] window failed to load ${url}: ${desc} (${code})`)
    show()
  })

  if (opts.settings) persistGeometry(win, opts.settings, opts.saveDelayMs ?? 400)
  win.loadURL(opts.url).catch((err: Error) => console.error(`[loopdesk] loadURL failed: ${err.message}`))
  return win
}

function persistGeometry(win: BrowserWindow, settings: Pick<ShellSettings, 'setWindowState'>, delayMs: number) {
  let timer: ReturnType<typeof setTimeout> | undefined
  const save = () => {
    timer = undefined
    if (win.isDestroyed()) return
    // Normal bounds survive maximize/minimize, so un-maximizing next time restores the user's size.
    const b = win.getNormalBounds()
    const state: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() }
    try {
      settings.setWindowState(state)
    } catch (err) {
      console.warn('[loopdesk] could not save window bounds:', (err as Error)?.message)
    }
  }
  const schedule = () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(save, delayMs)
  }
  for (const ev of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(ev as 'resize', schedule)
  win.on('close', () => {
    if (timer) clearTimeout(timer)
    save()
  })
}

/** Brings the window to the front (second app instance, dock click). */
export function focusWindow(win: BrowserWindow | undefined): void {
  if (!win || win.isDestroyed()) return
  if (win.isMinimized()) win.restore()
  if (!win.isVisible()) win.show()
  win.focus()
}
