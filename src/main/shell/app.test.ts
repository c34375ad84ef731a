import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', async () => (await import('./testing/fake-electron')).electronModule)
import { ipcChannel } from '../../shared/bridge'
import { startShell, type GatewayStartOptions, type RuntimeOptions, type ShellDeps } from './app'
import type { EmbeddedRuntimeInfo } from '../gateway/embedded-runtimes'
import { fake, FakeBrowserWindow, resetFake } from './testing/fake-electron'
import { createFakeHost, type FakeHost } from './testing/fake-host'

let userData: string
let host: FakeHost
let order: string[]
let runtimeOpts: RuntimeOptions | undefined
let gatewayOpts: GatewayStartOptions | undefined

const paths = { preload: '/app/out/preload/index.cjs', rendererDir: '/app/out/renderer' }

function deps(overrides: Partial<ShellDeps> = {}): ShellDeps {
  return {
    createRuntime: async (opts) => {
      runtimeOpts = opts
      order.push('runtime')
      return host
    },
    startGateway: async (opts) => {
      gatewayOpts = opts
      order.push('gateway')
      return { port: opts.port === 18789 ? 18790 : opts.port, close: async () => void order.push('gateway.close') }
    },
    // never this machine's own state dir's gateway.json
    servingGateway: async () => undefined,
    // nor its runtime records
    embeddedRuntime: () => undefined,
    registerRuntime: () => () => void order.push('unregistered'),
    ...overrides,
  }
}

beforeEach(() => {
  resetFake()
  userData = mkdtempSync(join(tmpdir(), 'loopdesk-userdata-'))
  fake.app.userDataDir = userData
  host = createFakeHost()
  host.shutdown.mockImplementation(async () => void order.push('runtime.shutdown'))
  order = []
  runtimeOpts = gatewayOpts = undefined
  vi.spyOn(console, 'warn').mockImplementation(() => {})
})
afterEach(() => {
  vi.restoreAllMocks()
  rmSync(userData, { recursive: true, force: true })
})

describe('startShell', () => {
  it('quits at once when another instance holds the lock', async () => {
    fake.app.singleInstance = false
    const createRuntime = vi.fn()
    startShell(deps({ createRuntime }), paths, {})
    await new Promise((r) => setTimeout(r, 10))
    expect(fake.app.quit).toHaveBeenCalled()
    expect(createRuntime).not.toHaveBeenCalled()
    expect(FakeBrowserWindow.instances).toEqual([])
  })

  it('another gateway serving the data folder: asks first — Retry once it stopped starts the runtime', async () => {
    const info = { pid: 4242, port: 18789, url: 'ws://127.0.0.1:18789', startedAt: 1, launchedBy: 'cli' as const }
    const answers = [info, info, undefined]
    const servingGateway = vi.fn(async () => answers.shift())
    fake.dialog.responses.push(0, 0) // Retry, Retry
    const shell = startShell(deps({ servingGateway }), paths, { LOOPDESK_STATE_DIR: '/tmp/loopdesk-state-x' })
    await shell.ready
    expect(servingGateway).toHaveBeenCalledWith('/tmp/loopdesk-state-x')
    expect(fake.dialog.showMessageBox).toHaveBeenCalledTimes(2)
    expect(fake.dialog.showMessageBox.mock.calls[0][0]).toMatchObject({
      message: 'A Loopdesk gateway (pid 4242, started from a terminal) already uses this data folder',
      buttons: ['Retry', 'Quit'],
    })
    expect(order).toEqual(['runtime', 'gateway'])
  })

  it('a runtime without a gateway on the data folder (agent --local) asks too; the app records its own runtime only once it may start', async () => {
    const answers: Array<EmbeddedRuntimeInfo | undefined> = [{ pid: 4242, launchedBy: 'local', startedAt: 1 }, undefined]
    const registerRuntime = vi.fn((dir: string) => (order.push(`registered ${dir}`), () => void order.push('unregistered')))
    const shell = startShell(deps({ embeddedRuntime: () => answers.shift(), registerRuntime }), paths, { LOOPDESK_STATE_DIR: '/tmp/loopdesk-state-x' })
    await shell.ready
    expect(fake.dialog.showMessageBox).toHaveBeenCalledTimes(1)
    expect(fake.dialog.showMessageBox.mock.calls[0][0]).toMatchObject({ message: 'A `loopdesk agent --local` run (pid 4242) already uses this data folder' })
    // recorded after the question was answered (Retry, then free), never while another runtime had the folder
    expect(registerRuntime.mock.invocationCallOrder[0]).toBeGreaterThan(fake.dialog.showMessageBox.mock.invocationCallOrder[0])
    expect(order.slice(0, 2)).toEqual(['registered /tmp/loopdesk-state-x', 'runtime'])
  })

  it('another gateway serving the data folder: Quit starts no runtime, no window, no gateway', async () => {
    const info = { pid: 4242, port: 18789, url: 'ws://127.0.0.1:18789', startedAt: 1 }
    const createRuntime = vi.fn()
    fake.dialog.responses.push(1) // Quit
    const shell = startShell(deps({ createRuntime, servingGateway: async () => info }), paths, { LOOPDESK_STATE_DIR: '/tmp/loopdesk-state-x' })
    await shell.ready
    expect(fake.app.quit).toHaveBeenCalled()
    expect(createRuntime).not.toHaveBeenCalled()
    expect(FakeBrowserWindow.instances).toEqual([])
    expect(shell.gateway()).toBeUndefined()
  })

  it('the runtime gets the OS proxy settings when the environment names no proxy', async () => {
    fake.session.defaultSession.resolveProxy.mockResolvedValue('PROXY corp.example:3128; DIRECT')
    await startShell(deps(), paths, { LOOPDESK_STATE_DIR: '/tmp/loopdesk-state-x' }).ready
    expect(runtimeOpts!.env).toMatchObject({ HTTPS_PROXY: 'http://corp.example:3128', HTTP_PROXY: 'http://corp.example:3128' })
  })

  it('sets up security, runtime, IPC, window and gateway in order', async () => {
    const shell = startShell(deps(), paths, { LOOPDESK_STATE_DIR: '/tmp/loopdesk-state-x' })
    await shell.ready
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalled()
    expect(fake.app.enableSandbox).toHaveBeenCalled()
    expect(fake.session.defaultSession.webRequest.onHeadersReceived).toHaveBeenCalled()
    expect(fake.session.defaultSession.setPermissionRequestHandler).toHaveBeenCalled()
    expect(fake.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function))
    expect(fake.app.listenerCount('web-contents-created')).toBe(1)
    expect(order).toEqual(['runtime', 'gateway'])
    expect(runtimeOpts!.stateDir).toBe('/tmp/loopdesk-state-x')
    expect(runtimeOpts!.credentials).toBeDefined()
    expect(runtimeOpts!.prefs!.get().theme).toBe('system')
    expect(fake.ipcMain.handlers.has(ipcChannel('run'))).toBe(true)
    const win = FakeBrowserWindow.instances[0]
    expect(win.loadedUrls).toEqual(['app://loopdesk/index.html'])
    expect(win.options.webPreferences.preload).toBe(paths.preload)
    expect(gatewayOpts).toMatchObject({ bind: 'loopback', allowedOrigins: [], port: 18789, stateDir: '/tmp/loopdesk-state-x', staticDir: paths.rendererDir })
    expect(gatewayOpts!.runtime).toBe(host)
    expect(shell.gateway()!.port).toBe(18790)
  })

  it('IPC from the window reaches the runtime; from elsewhere it does not', async () => {
    const shell = startShell(deps(), paths, {})
    await shell.ready
    const win = FakeBrowserWindow.instances[0]
    const ok = await fake.ipcMain.invoke(ipcChannel('health'), win.webContents, win.webContents.mainFrame, {})
    expect(ok.ok).toBe(true)
    const other = new FakeBrowserWindow({})
    const denied = await fake.ipcMain.invoke(ipcChannel('health'), other.webContents, other.webContents.mainFrame, {})
    expect(denied.error.code).toBe('FORBIDDEN')
  })

  it('opens the window while the runtime is still starting; early calls wait for it', async () => {
    let resolve!: (h: FakeHost) => void
    const shell = startShell(deps({ createRuntime: () => new Promise<FakeHost>((r) => (resolve = r)) }), paths, {})
    await vi.waitFor(() => expect(FakeBrowserWindow.instances).toHaveLength(1))
    const win = FakeBrowserWindow.instances[0]
    const early = fake.ipcMain.invoke(ipcChannel('health'), win.webContents, win.webContents.mainFrame, {})
    resolve(host)
    await shell.ready
    expect(await early).toMatchObject({ ok: true })
    expect(shell.runtime()).toBe(host)
  })

  it('uses the configured gateway port, and LOOPDESK_GATEWAY_PORT over it', async () => {
    host = createFakeHost({ gateway: { port: 19001, bind: 'lan', allowedOrigins: ['http://pc.local:3000', 7] } })
    await startShell(deps(), paths, {}).ready
    expect(gatewayOpts).toMatchObject({ port: 19001, bind: 'lan', allowedOrigins: ['http://pc.local:3000'] })
    resetFake()
    fake.app.userDataDir = userData
    await startShell(deps(), paths, { LOOPDESK_GATEWAY_PORT: '19555' }).ready
    expect(gatewayOpts!.port).toBe(19555)
  })

  it('keeps the app running when the gateway cannot start', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    const shell = startShell(deps({ startGateway: async () => Promise.reject(new Error('EADDRINUSE')) }), paths, {})
    await shell.ready
    expect(shell.gateway()).toBeUndefined()
    expect(FakeBrowserWindow.instances).toHaveLength(1)
    expect(err.mock.calls.join(' ')).toContain('EADDRINUSE')
  })

  it('shows an error and exits when the runtime cannot start', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const shell = startShell(deps({ createRuntime: async () => Promise.reject(new Error('state dir is read-only')) }), paths, {})
    await expect(shell.ready).rejects.toThrow('read-only')
    await new Promise((r) => setTimeout(r, 0))
    expect(fake.dialog.showErrorBox).toHaveBeenCalledWith('Loopdesk could not start', 'state dir is read-only')
    expect(fake.app.exit).toHaveBeenCalledWith(1)
  })

  it('sets the window icon only when the file exists', async () => {
    const icon = join(process.cwd(), 'resources', 'icon.png')
    await startShell(deps(), { ...paths, icon }, {}).ready
    expect(FakeBrowserWindow.instances[0].options.icon).toBe(icon)
    resetFake()
    fake.app.userDataDir = userData
    await startShell(deps(), { ...paths, icon: '/nope/icon.png' }, {}).ready
    expect(FakeBrowserWindow.instances[0].options.icon).toBeUndefined()
  })

  it('LOOPDESK_USER_DATA_DIR selects the profile before anything is read', async () => {
    await startShell(deps(), paths, { LOOPDESK_USER_DATA_DIR: userData }).ready
    expect(fake.app.setPath).toHaveBeenCalledWith('userData', userData)
    expect(fake.app.setPath.mock.invocationCallOrder[0]).toBeLessThan(fake.app.requestSingleInstanceLock.mock.invocationCallOrder[0])
  })

  it("the runtime gets userData (the override's too), so its file tools keep out of the settings and stored keys", async () => {
    await startShell(deps(), paths, {}).ready
    expect(runtimeOpts!.userDataDir).toBe(userData)
    resetFake()
    fake.app.userDataDir = '/default-profile'
    await startShell(deps(), paths, { LOOPDESK_USER_DATA_DIR: userData }).ready
    expect(runtimeOpts!.userDataDir).toBe(userData)
  })

  it('second instance focuses the existing window', async () => {
    const shell = startShell(deps(), paths, {})
    await shell.ready
    const win = FakeBrowserWindow.instances[0]
    win.minimize()
    fake.app.emit('second-instance', {}, [], '/')
    expect(win.isMinimized()).toBe(false)
    expect(win.focused).toBe(true)
  })

  it('on quit: closes the gateway, then drains the runtime, then really quits', async () => {
    const shell = startShell(deps(), paths, {})
    await shell.ready
    let willQuit = 0
    fake.app.on('will-quit', () => willQuit++)
    fake.app.quit()
    expect(willQuit).toBe(0) // deferred until the shutdown finished
    fake.app.quit() // a second quit while draining must not start another shutdown
    await vi.waitFor(() => expect(willQuit).toBe(1))
    expect(order).toEqual(['runtime', 'gateway', 'gateway.close', 'runtime.shutdown', 'unregistered'])
    expect(host.shutdown).toHaveBeenCalledTimes(1)
    expect(host.shutdown).toHaveBeenCalledWith({ drainMs: 5000, reason: 'app quit' })
    expect(fake.ipcMain.handlers.size).toBe(0)
  })

  it('applies the theme preference to nativeTheme and follows changes', async () => {
    const shell = startShell(deps(), paths, {})
    await shell.ready
    runtimeOpts!.prefs!.set({ theme: 'dark' })
    expect(fake.nativeTheme.themeSource).toBe('dark')
  })

  it('loads the dev server only when unpackaged and ELECTRON_RENDERER_URL is loopback', async () => {
    await startShell(deps(), paths, { ELECTRON_RENDERER_URL: 'http://localhost:5173/' }).ready
    expect(FakeBrowserWindow.instances[0].loadedUrls).toEqual(['http://localhost:5173/'])
    resetFake()
    fake.app.userDataDir = userData
    fake.app.isPackaged = true
    await startShell(deps(), paths, { ELECTRON_RENDERER_URL: 'http://localhost:5173/' }).ready
    expect(FakeBrowserWindow.instances[0].loadedUrls).toEqual(['app://loopdesk/index.html'])
  })
})
