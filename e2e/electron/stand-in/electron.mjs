// A stand-in for the `electron` module, so the BUILT main bundle (out/main/index.js) and preload bundle
// (out/preload/index.cjs) can run under plain Node where no Electron binary exists. It implements just
// the API surface the shell uses and records what the app did in `standIn` for the smoke driver.
// It is not Electron: no Chromium, no real sandbox. It proves the bundles load, wire up and talk.
/* global structuredClone */
import { EventEmitter } from 'node:events'

export const standIn = new EventEmitter()
Object.assign(standIn, {
  windows: [],
  protocolHandlers: new Map(),
  privilegedSchemes: [],
  sandboxEnabled: false,
  headersListener: undefined,
  permissionRequestHandler: undefined,
  webContentsCreated: 0,
})

let nextId = 1

class WebContents extends EventEmitter {
  constructor() {
    super()
    this.id = nextId++
    this.destroyed = false
    this.mainFrame = { url: '', parent: null, top: null, origin: 'null' }
    this.mainFrame.top = this.mainFrame
  }
  isDestroyed() {
    return this.destroyed
  }
  send(channel, ...args) {
    // structured-clone like the real IPC does, so non-cloneable payloads fail here too
    const cloned = structuredClone(args)
    this.emit('ipc-message-to-renderer', channel, ...cloned)
  }
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler
  }
  destroy() {
    this.destroyed = true
    this.emit('destroyed')
  }
}

export class BrowserWindow extends EventEmitter {
  static getAllWindows() {
    return standIn.windows.filter((w) => !w.destroyed)
  }
  constructor(options = {}) {
    super()
    this.options = options
    this.destroyed = false
    this.visible = false
    this.bounds = { x: options.x ?? 0, y: options.y ?? 0, width: options.width ?? 800, height: options.height ?? 600 }
    this.webContents = new WebContents()
    app.emit('web-contents-created', {}, this.webContents)
    standIn.windows.push(this)
    standIn.emit('window', this)
  }
  loadURL(url) {
    this.webContents.mainFrame.url = url
    setTimeout(() => this.emit('ready-to-show'), 0)
    return Promise.resolve()
  }
  isDestroyed() {
    return this.destroyed
  }
  show() {
    this.visible = true
  }
  isVisible() {
    return this.visible
  }
  focus() {}
  isMinimized() {
    return false
  }
  restore() {}
  maximize() {}
  isMaximized() {
    return false
  }
  getNormalBounds() {
    return { ...this.bounds }
  }
  close() {
    this.emit('close', { preventDefault() {} })
    this.destroyed = true
    this.webContents.destroy()
    this.emit('closed')
    if (BrowserWindow.getAllWindows().length === 0) app.emit('window-all-closed')
  }
}

class App extends EventEmitter {
  isPackaged = false
  requestSingleInstanceLock() {
    return true
  }
  whenReady() {
    return Promise.resolve()
  }
  enableSandbox() {
    standIn.sandboxEnabled = true
  }
  getPath() {
    return process.env.STANDIN_USER_DATA
  }
  setPath(_name, dir) {
    process.env.STANDIN_USER_DATA = dir
  }
  getVersion() {
    return '0.1.0'
  }
  getName() {
    return 'loopdesk'
  }
  quit() {
    let prevented = false
    this.emit('before-quit', { preventDefault: () => (prevented = true) })
    if (!prevented) {
      this.emit('will-quit', { preventDefault() {} })
      standIn.emit('quit')
    }
  }
  exit(code) {
    standIn.emit('exit', code)
  }
}
export const app = new App()
app.on('web-contents-created', () => standIn.webContentsCreated++)

class IpcMain extends EventEmitter {
  handlers = new Map()
  handle(channel, fn) {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    this.handlers.set(channel, fn)
  }
  removeHandler(channel) {
    this.handlers.delete(channel)
  }
}
export const ipcMain = new IpcMain()

export const protocol = {
  registerSchemesAsPrivileged: (schemes) => standIn.privilegedSchemes.push(...schemes),
  handle: (scheme, handler) => standIn.protocolHandlers.set(scheme, handler),
}

export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived: (l) => (standIn.headersListener = l) },
    setPermissionRequestHandler: (h) => (standIn.permissionRequestHandler = h),
    setPermissionCheckHandler: (h) => (standIn.permissionCheckHandler = h),
    setDevicePermissionHandler: () => {},
    resolveProxy: async () => 'DIRECT',
  },
}

export const screen = {
  getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
}
export const nativeTheme = { themeSource: 'system', shouldUseDarkColors: false }
export const dialog = { showErrorBox: (title, msg) => standIn.emit('error-box', title, msg) }
export const shell = { openExternal: async (url) => standIn.emit('open-external', url) }
// Like Linux without a keyring: the shell must refuse to store keys.
export const safeStorage = {
  isEncryptionAvailable: () => false,
  getSelectedStorageBackend: () => 'basic_text',
  encryptString: () => {
    throw new Error('not available')
  },
  decryptString: () => {
    throw new Error('not available')
  },
}

// Renderer-side half, used when the driver runs the preload bundle.
export const contextBridge = {
  exposeInMainWorld: (key, api) => standIn.emit('exposed', key, api),
}
export const ipcRenderer = {
  invoke: (...args) => standIn.rendererInvoke(...args),
  on: (channel, listener) => standIn.rendererOn(channel, listener),
}

export default { app, BrowserWindow, ipcMain, protocol, session, screen, nativeTheme, dialog, shell, safeStorage, contextBridge, ipcRenderer }
