// App lifecycle: single instance, security setup, runtime + gateway start, IPC, the window, and an
// orderly quit (gateway closed, runs drained) before the process exits.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { app, BrowserWindow, dialog, nativeTheme, session } from 'electron'
import type { RuntimeHost } from '../api/host'
import type { CredentialStore } from '../runtime/contracts'
import type { PairingApi } from '../gateway/device-pairing'
import type { GatewayInfo } from '../gateway/state-files'
import { claimDataFolder } from './data-folder-in-use'
import { claimEmbeddedRuntime, RuntimeInUseError, type EmbeddedRuntimeInfo } from '../gateway/embedded-runtimes'
import { registerBridgeIpc, type BridgeIpc } from './ipc'
import { APP_ENTRY_URL, devServerOrigin, type OriginPolicy } from './origin'
import { resolveStateDir } from '../runtime/config/state-dir'
import { registerAppScheme, serveAppProtocol } from './protocol'
import { SafeStorageCredentialStore } from './secure-credentials'
import { guardAllWebContents, secureSession } from './security'
import { openShellSettings, type PrefsProvider, type ShellSettings } from './settings'
import { withSystemProxy } from './system-proxy'
import { createMainWindow, focusWindow } from './window'

export interface RuntimeOptions {
  stateDir: string
  /** Electron's userData (settings, the stored provider keys): the runtime's file tools keep out of it */
  userDataDir?: string
  env?: NodeJS.ProcessEnv
  credentials?: CredentialStore
  prefs?: PrefsProvider
}

export interface GatewayHandle {
  /** the port actually listened on (may differ from the configured one after fallback) */
  readonly port: number
  /** remote devices' pairing requests and their answers (the window's pairing prompt, over IPC) */
  readonly pairing?: PairingApi
  close(): Promise<void>
}

export interface GatewayStartOptions<R extends RuntimeHost = RuntimeHost> {
  runtime: R
  /** configured port; the starter falls back to a free one when it is taken and records the real one */
  port: number
  bind: 'loopback' | 'lan' | 'all'
  /** extra browser origins from config (gateway.allowedOrigins) */
  allowedOrigins: string[]
  stateDir: string
  /** built renderer, served to browsers (browser mode) */
  staticDir: string
}

/** The Electron-free parts the shell starts. index.ts passes the real ones, tests pass fakes. */
export interface ShellDeps<R extends RuntimeHost = RuntimeHost> {
  createRuntime(opts: RuntimeOptions): Promise<R>
  startGateway?(opts: GatewayStartOptions<R>): Promise<GatewayHandle>
  /** another gateway serving the state dir (default: gateway.json's live pid with its port answering) */
  servingGateway?(stateDir: string): Promise<GatewayInfo | undefined>
  /** another runtime without a gateway on the state dir (default: a live record under gateway/runtimes/) */
  embeddedRuntime?(stateDir: string): EmbeddedRuntimeInfo | undefined
  /** records this app's runtime in the state dir; returns its removal (default: gateway/runtimes/<pid>.json) */
  registerRuntime?(stateDir: string): () => void
}

export interface ShellPaths {
  /** built sandboxed preload (CommonJS) */
  preload: string
  /** built renderer (index.html + assets) */
  rendererDir: string
  /** window icon (Linux/Windows taskbar); skipped when the file is missing */
  icon?: string
}

export interface ShellController {
  /**
   * resolves when the app is ready and the window exists — or without one when the user quit at the data
   * folder's in-use question (rejects if start-up failed)
   */
  readonly ready: Promise<void>
  window(): BrowserWindow | undefined
  runtime(): RuntimeHost | undefined
  gateway(): GatewayHandle | undefined
  ipc(): BridgeIpc | undefined
}

export const DEFAULT_GATEWAY_PORT = 18789
/** How long quitting waits for active runs before they are aborted. */
export const QUIT_DRAIN_MS = 5_000
/** Hard cap on the whole quit sequence, so a stuck close never keeps the process alive. */
export const QUIT_TIMEOUT_MS = 15_000

/** Gateway settings from the runtime's config (the source the CLI also reads), env port override first. */
async function gatewaySettings(
  host: RuntimeHost,
  env: NodeJS.ProcessEnv,
): Promise<Pick<GatewayStartOptions, 'port' | 'bind' | 'allowedOrigins'>> {
  const envPort = env.LOOPDESK_GATEWAY_PORT ? Number(env.LOOPDESK_GATEWAY_PORT) : NaN
  let port = Number.isInteger(envPort) && envPort >= 0 && envPort < 65536 ? envPort : undefined
  let bind: GatewayStartOptions['bind'] = 'loopback'
  let allowedOrigins: string[] = []
  try {
    const cfg = await host.handlers['config.get']({}, { transport: 'local' })
    const gw = (cfg.config as { gateway?: { port?: unknown; bind?: unknown; allowedOrigins?: unknown } }).gateway
    if (port === undefined && typeof gw?.port === 'number' && Number.isInteger(gw.port)) port = gw.port
    if (gw?.bind === 'lan' || gw?.bind === 'all') bind = gw.bind
    if (Array.isArray(gw?.allowedOrigins)) allowedOrigins = gw.allowedOrigins.filter((o): o is string => typeof o === 'string')
  } catch {}
  return { port: port ?? DEFAULT_GATEWAY_PORT, bind, allowedOrigins }
}

export function startShell<R extends RuntimeHost>(
  deps: ShellDeps<R>,
  paths: ShellPaths,
  env: NodeJS.ProcessEnv = process.env,
): ShellController {
  let win: BrowserWindow | undefined
  let runtime: R | undefined
  let gateway: GatewayHandle | undefined
  /** removes this app's runtime record from the state dir (gateway/runtimes/) */
  let unregisterRuntime: (() => void) | undefined
  let ipc: BridgeIpc | undefined
  let settings: ShellSettings | undefined

  // Privileged schemes and the global sandbox switch only take effect before 'ready'.
  registerAppScheme()
  app.enableSandbox()
  // A separate profile (settings, window state, single-instance lock) for tests and portable setups.
  if (env.LOOPDESK_USER_DATA_DIR?.trim()) app.setPath('userData', resolve(env.LOOPDESK_USER_DATA_DIR.trim()))

  if (!app.requestSingleInstanceLock()) {
    // Another Loopdesk owns the state dir and the window; it gets focused via 'second-instance'.
    app.quit()
    const never = new Promise<void>(() => {})
    return { ready: never, window: () => undefined, runtime: () => undefined, gateway: () => undefined, ipc: () => undefined }
  }
  app.on('second-instance', () => focusWindow(win))

  const policy: OriginPolicy = { devOrigin: devServerOrigin(env, app.isPackaged) }
  guardAllWebContents(policy)

  const openWindow = () => {
    win = createMainWindow({
      preloadPath: paths.preload,
      icon: paths.icon && existsSync(paths.icon) ? paths.icon : undefined,
      url: policy.devOrigin ? env.ELECTRON_RENDERER_URL! : APP_ENTRY_URL,
      settings,
    })
    const current = win
    current.on('closed', () => {
      if (win === current) win = undefined
    })
  }

  // The window's pairing calls wait for the gateway's start (undefined when it has none or it failed).
  let gatewayStarted!: (g: GatewayHandle | undefined) => void
  const pairing = new Promise<GatewayHandle | undefined>((r) => (gatewayStarted = r)).then((g) => g?.pairing)

  const ready = (async () => {
    await app.whenReady()
    secureSession(session.defaultSession, policy)
    serveAppProtocol(paths.rendererDir)

    const userData = app.getPath('userData')
    settings = openShellSettings({ cwd: userData })
    const applyTheme = (theme: 'light' | 'dark' | 'system') => {
      nativeTheme.themeSource = theme
    }
    applyTheme(settings.prefs.get().theme)
    settings.onPrefsChange((p) => applyTheme(p.theme))

    const stateDir = resolveStateDir(env)
    // another gateway (a terminal's `gateway run`, an app with another profile) serving the folder: ask first,
    // never two runtimes on one state dir
    for (;;) {
      const claim = await claimDataFolder(stateDir, {
        serving: deps.servingGateway,
        embedded: deps.embeddedRuntime,
        ask: async (q) => {
          const { response } = await dialog.showMessageBox({
            type: 'warning',
            title: 'Loopdesk',
            message: q.message,
            detail: q.detail,
            buttons: q.buttons,
            defaultId: 0,
            cancelId: 1,
            noLink: true,
          })
          return response === 0 ? 'retry' : 'quit'
        },
      })
      if (claim === 'quit') {
        app.quit()
        return
      }
      // from now on `gateway run`, `agent --local` and another app see this runtime, gateway or not; checked again
      // with the record, in one locked step: an `agent --local` that started since the check above wins, and the
      // question comes back
      try {
        unregisterRuntime = (deps.registerRuntime ?? ((dir) => claimEmbeddedRuntime(dir, 'app')))(stateDir)
      } catch (err) {
        if (err instanceof RuntimeInUseError) continue
        // an unwritable state dir fails the runtime's own start with the real reason; this record is only a courtesy
        console.warn(`[loopdesk] could not record this runtime in the state dir: ${(err as Error)?.message ?? err}`)
      }
      break
    }
    const prefs = settings.prefs
    // started from the Dock / Start menu there is no HTTPS_PROXY: the OS proxy settings stand in
    const starting = withSystemProxy(env, (url) => session.defaultSession.resolveProxy(url)).then((runtimeEnv) =>
      deps.createRuntime({ stateDir, userDataDir: userData, env: runtimeEnv, credentials: new SafeStorageCredentialStore({ cwd: userData }), prefs }),
    )
    // The window opens while the runtime loads (it is the heavier part of start-up); IPC calls made
    // meanwhile wait for it.
    ipc = registerBridgeIpc({ host: starting, getWebContents: () => win?.webContents, policy, pairing })
    openWindow()
    runtime = await starting
    const host = runtime

    // The gateway serves the CLI and browser mode; the window does not need it, so a failure is logged only.
    if (deps.startGateway) {
      const gw = await gatewaySettings(host, env)
      try {
        gateway = await deps.startGateway({ runtime: host, ...gw, stateDir, staticDir: paths.rendererDir })
        if (gw.port !== 0 && gateway.port !== gw.port) {
          console.warn(`[loopdesk] gateway port ${gw.port} was taken; listening on ${gateway.port}`)
        }
      } catch (err) {
        console.error(`[loopdesk] gateway did not start: ${(err as Error)?.message ?? err}`)
      }
    }
    gatewayStarted(gateway)
  })()
  ready.catch(() => gatewayStarted(undefined))

  ready.catch((err: Error) => {
    console.error('[loopdesk] start-up failed:', err)
    dialog.showErrorBox('Loopdesk could not start', err?.message ?? String(err))
    app.exit(1)
  })

  app.on('activate', () => {
    // macOS: clicking the dock icon with no window open re-creates it.
    if (!win && ipc) openWindow()
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  let phase: 'running' | 'draining' | 'done' = 'running'
  const shutdown = async () => {
    // Quitting during start-up: let it finish so a runtime created a moment later is drained too.
    await ready.catch(() => {})
    const g = gateway
    gateway = undefined
    if (g) await g.close().catch((err: Error) => console.error('[loopdesk] gateway close failed:', err?.message))
    const r = runtime
    if (r) await r.shutdown({ drainMs: QUIT_DRAIN_MS, reason: 'app quit' }).catch((err: Error) =>
      console.error('[loopdesk] runtime shutdown failed:', err?.message),
    )
    ipc?.dispose()
    unregisterRuntime?.()
  }
  app.on('before-quit', (event) => {
    if (phase === 'done') return
    event.preventDefault()
    if (phase === 'draining') return
    phase = 'draining'
    let timer: ReturnType<typeof setTimeout> | undefined
    const cap = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        console.error(`[loopdesk] shutdown took longer than ${QUIT_TIMEOUT_MS} ms; quitting anyway`)
        resolve()
      }, QUIT_TIMEOUT_MS)
    })
    void Promise.race([shutdown(), cap]).finally(() => {
      clearTimeout(timer)
      phase = 'done'
      app.quit()
    })
  })

  return { ready, window: () => win, runtime: () => runtime, gateway: () => gateway, ipc: () => ipc }
}
