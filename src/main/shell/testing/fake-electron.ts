// A recording fake of the parts of `electron` the shell and preload use. Tests install it with
//   vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
// and inspect `fake` (same module instance) to see what the code under test did.
import { EventEmitter } from 'node:events'
import { vi } from 'vitest'

export class FakeFrame {
  constructor(
    public url: string,
    public parent: FakeFrame | null = null,
  ) {}
  get top(): FakeFrame {
    return this.parent ? this.parent.top : this
  }
}

let nextContentsId = 1

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++
  destroyed = false
  mainFrame: FakeFrame
  windowOpenHandler?: (details: { url: string }) => { action: 'allow' | 'deny' }
  readonly sent: Array<{ channel: string; args: unknown[] }> = []
  constructor(url = 'app://loopdesk/index.html') {
    super()
    this.mainFrame = new FakeFrame(url)
  }
  isDestroyed() {
    return this.destroyed
  }
  send(channel: string, ...args: unknown[]) {
    if (this.destroyed) throw new Error('Object has been destroyed')
    this.sent.push({ channel, args })
  }
  setWindowOpenHandler(h: (details: { url: string }) => { action: 'allow' | 'deny' }) {
    this.windowOpenHandler = h
  }
  destroy() {
    this.destroyed = true
    this.emit('destroyed')
  }
  /** Emits a navigation-style event and reports whether a listener called preventDefault(). */
  navigate(eventName: string, url: string, isMainFrame = true): boolean {
    let prevented = false
    const details = { url, isMainFrame, isSameDocument: false, frame: null, preventDefault: () => (prevented = true) }
    this.emit(eventName, details, url, false, isMainFrame)
    return prevented
  }
  /** 'will-attach-webview' as Electron emits it. */
  attachWebview(): boolean {
    let prevented = false
    this.emit('will-attach-webview', { preventDefault: () => (prevented = true) }, {}, {})
    return prevented
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = []
  static getAllWindows() {
    return FakeBrowserWindow.instances.filter((w) => !w.destroyed)
  }
  readonly options: any
  readonly webContents: FakeWebContents
  destroyed = false
  visible = false
  minimized = false
  maximized = false
  focused = false
  bounds: { x: number; y: number; width: number; height: number }
  loadedUrls: string[] = []
  constructor(options: any) {
    super()
    this.options = options
    this.webContents = new FakeWebContents()
    this.bounds = { x: options?.x ?? 0, y: options?.y ?? 0, width: options?.width ?? 800, height: options?.height ?? 600 }
    FakeBrowserWindow.instances.push(this)
  }
  loadURL(url: string) {
    this.loadedUrls.push(url)
    this.webContents.mainFrame.url = url
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
  focus() {
    this.focused = true
  }
  isMinimized() {
    return this.minimized
  }
  minimize() {
    this.minimized = true
  }
  restore() {
    this.minimized = false
  }
  maximize() {
    this.maximized = true
  }
  isMaximized() {
    return this.maximized
  }
  getNormalBounds() {
    return { ...this.bounds }
  }
  setBounds(b: Partial<FakeBrowserWindow['bounds']>) {
    this.bounds = { ...this.bounds, ...b }
    this.emit('resize')
  }
  close() {
    this.emit('close', { preventDefault() {} })
    this.destroyed = true
    this.webContents.destroy()
    this.emit('closed')
  }
}

class FakeIpcMain extends EventEmitter {
  handlers = new Map<string, (event: any, ...args: any[]) => any>()
  handle(channel: string, fn: (event: any, ...args: any[]) => any) {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    this.handlers.set(channel, fn)
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel)
  }
  /** Calls a registered handler as Electron would for an invoke from `sender`/`frame`. */
  invoke(channel: string, sender: FakeWebContents, frame: FakeFrame | null, ...args: unknown[]) {
    const fn = this.handlers.get(channel)
    if (!fn) throw new Error(`No handler registered for '${channel}'`)
    return fn({ sender, senderFrame: frame, processId: 1, frameId: 1 }, ...args)
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false
  userDataDir = '/nonexistent-userdata'
  singleInstance = true
  quit = vi.fn(() => {
    let prevented = false
    this.emit('before-quit', { preventDefault: () => (prevented = true) })
    if (!prevented) this.emit('will-quit')
  })
  exit = vi.fn()
  enableSandbox = vi.fn()
  requestSingleInstanceLock = vi.fn(() => this.singleInstance)
  whenReady = vi.fn(() => Promise.resolve())
  getPath = vi.fn((_name: string) => this.userDataDir)
  setPath = vi.fn((_name: string, dir: string) => void (this.userDataDir = dir))
  getVersion = vi.fn(() => '0.1.0')
  getName = vi.fn(() => 'loopdesk')
}

function makeSession() {
  return {
    webRequest: { onHeadersReceived: vi.fn() },
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
    setDevicePermissionHandler: vi.fn(),
    /** the OS proxy settings as Chromium answers them (PAC form) */
    resolveProxy: vi.fn(async (_url: string) => 'DIRECT'),
  }
}

function makeSafeStorage() {
  return {
    available: true,
    backend: 'gnome_libsecret' as string,
    isEncryptionAvailable: vi.fn(() => fake.safeStorage.available),
    getSelectedStorageBackend: vi.fn(() => fake.safeStorage.backend),
    // Reversible but not plain: enough to prove the stored bytes are not the key itself.
    encryptString: vi.fn((s: string) => Buffer.from(`enc:${Buffer.from(s, 'utf8').reverse().toString('base64')}`)),
    decryptString: vi.fn((b: Buffer) => {
      const t = b.toString('utf8')
      if (!t.startsWith('enc:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.')
      return Buffer.from(t.slice(4), 'base64').reverse().toString('utf8')
    }),
  }
}

// One ipcMain for the whole test file: electron-store captures it once at import time, like real Electron.
const ipcMainSingleton = new FakeIpcMain()

function makeFake() {
  ipcMainSingleton.removeAllListeners()
  ipcMainSingleton.handlers = new Map()
  return {
    app: new FakeApp(),
    ipcMain: ipcMainSingleton,
    ipcRenderer: { invoke: vi.fn(async (..._args: unknown[]): Promise<any> => ({ ok: true, data: {} })), on: vi.fn() },
    contextBridge: { exposed: {} as Record<string, any>, exposeInMainWorld: vi.fn((key: string, api: unknown) => void (fake.contextBridge.exposed[key] = api)) },
    session: { defaultSession: makeSession() },
    protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
    shell: { openExternal: vi.fn(async (_url: string) => {}) },
    safeStorage: makeSafeStorage(),
    screen: {
      displays: [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
      getPrimaryDisplay: vi.fn(() => fake.screen.displays[0]),
      getAllDisplays: vi.fn(() => fake.screen.displays),
    },
    nativeTheme: { themeSource: 'system', shouldUseDarkColors: false },
    dialog: {
      showErrorBox: vi.fn(),
      /** answers with the first button unless a test queues responses */
      responses: [] as number[],
      showMessageBox: vi.fn(async (_opts: { buttons?: string[] }) => ({ response: fake.dialog.responses.shift() ?? 0, checkboxChecked: false })),
    },
  }
}

export let fake = makeFake()

/** Fresh state for the next test (electronModule's getters always return the current fake). */
export function resetFake(): void {
  fake = makeFake()
  FakeBrowserWindow.instances = []
}

/** What vi.mock('electron') returns: named exports plus a default export (electron-store uses it). */
export const electronModule = {
  get app() {
    return fake.app
  },
  BrowserWindow: FakeBrowserWindow,
  get ipcMain() {
    return fake.ipcMain
  },
  get ipcRenderer() {
    return fake.ipcRenderer
  },
  get contextBridge() {
    return fake.contextBridge
  },
  get session() {
    return fake.session
  },
  get protocol() {
    return fake.protocol
  },
  get shell() {
    return fake.shell
  },
  get safeStorage() {
    return fake.safeStorage
  },
  get screen() {
    return fake.screen
  },
  get nativeTheme() {
    return fake.nativeTheme
  },
  get dialog() {
    return fake.dialog
  },
  get default() {
    return electronModule
  },
  /** test hooks, for tests that re-import modules (vi.resetModules) and so cannot share a static import */
  get __fake() {
    return fake
  },
  __reset: () => resetFake(),
}
