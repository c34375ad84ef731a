// The desktop app end to end: the built app in a real Electron, its window, the preload bridge, the
// locked-down webPreferences and one chat round trip against the scripted model server.
// Runs only where an Electron binary exists; elsewhere it reports a skip with the reason.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { _electron, expect, test, type ElectronApplication, type Page } from '@playwright/test'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { findElectronBinary, SKIP_REASON } from './electron-binary'

const root = process.cwd()
const binary = findElectronBinary(root)
const built = existsSync(join(root, 'out', 'main', 'index.js')) && existsSync(join(root, 'out', 'preload', 'index.cjs'))

test.describe('desktop app (Electron)', () => {
  test.skip(!binary, SKIP_REASON)
  test.skip(!built, 'the app is not built: run `npm run build` first')

  let app: ElectronApplication
  let page: Page
  let model: ModelServer
  let stateDir: string
  let userData: string

  test.beforeAll(async () => {
    model = await startModelServer({ fallback: { text: 'pong from the scripted model', chunks: 4 } })
    stateDir = mkdtempSync(join(tmpdir(), 'loopdesk-e2e-state-'))
    userData = mkdtempSync(join(tmpdir(), 'loopdesk-e2e-userdata-'))
    writeFileSync(
      join(stateDir, 'loopdesk.json'),
      JSON.stringify({
        models: {
          providers: {
            scripted: {
              baseUrl: model.openaiBaseUrl,
              api: 'openai-completions',
              models: [{ id: 'scripted-1', contextWindow: 32000, maxTokens: 1024 }],
            },
          },
        },
        agents: { defaults: { model: { primary: 'scripted/scripted-1' }, workspace: join(stateDir, 'workspace') } },
        gateway: { port: 0 },
      }),
    )
    app = await _electron.launch({
      executablePath: binary!,
      args: [root],
      env: {
        ...process.env,
        LOOPDESK_STATE_DIR: stateDir,
        LOOPDESK_USER_DATA_DIR: userData,
        ELECTRON_RENDERER_URL: '',
      } as Record<string, string>,
      timeout: 30_000,
    })
    page = await app.firstWindow()
    await page.waitForLoadState('domcontentloaded')
  })

  test.afterAll(async () => {
    await app?.close()
    await model?.close()
    for (const d of [stateDir, userData]) if (d) rmSync(d, { recursive: true, force: true })
  })

  test('window loads the app from app://loopdesk with a strict CSP', async () => {
    expect(page.url()).toBe('app://loopdesk/index.html')
    const csp = await page.evaluate(async () => (await fetch('/index.html')).headers.get('content-security-policy'))
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-eval')
    // eval is blocked by that CSP
    const evalBlocked = await page.evaluate(() => {
      try {
        return (0, eval)('1 + 1') !== 2
      } catch {
        return true
      }
    })
    expect(evalBlocked).toBe(true)
  })

  test('the renderer has no Node and exactly the bridge', async () => {
    const probe = await page.evaluate(() => {
      const g = globalThis as any
      return {
        require: typeof g.require,
        process: typeof g.process,
        bridgeKeys: Object.keys(g.loopdesk ?? {}).sort(),
        transport: g.loopdesk?.transport,
      }
    })
    expect(probe.require).toBe('undefined')
    expect(probe.process).toBe('undefined')
    expect(probe.transport).toBe('ipc')
    expect(probe.bridgeKeys).toContain('send')
    expect(probe.bridgeKeys).toContain('subscribe')
    for (const generic of ['invoke', 'on', 'ipcRenderer']) expect(probe.bridgeKeys).not.toContain(generic)
  })

  test('the renderer runs isolated and sandboxed', async () => {
    // Node never reaches the page (nodeIntegration off, context isolation on).
    const globals = await page.evaluate(() => {
      const g = globalThis as any
      return [typeof g.require, typeof g.process, typeof g.module, typeof g.Buffer, typeof g.electron]
    })
    expect(globals).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined'])
    // Electron reports OS-level sandboxing per process on macOS and Windows only.
    const sandboxed = await app.evaluate(({ app, BrowserWindow }) => {
      const pid = BrowserWindow.getAllWindows()[0].webContents.getOSProcessId()
      return app.getAppMetrics().find((m) => m.pid === pid)?.sandboxed
    })
    if (sandboxed !== undefined) expect(sandboxed).toBe(true)
  })

  test('window.open is denied', async () => {
    const before = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)
    await page.evaluate(() => (globalThis as any).open('about:blank'))
    const after = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)
    expect(after).toBe(before)
  })

  test('send round trip: chat.send → streamed chat events → final reply', async () => {
    const result = await page.evaluate(async () => {
      const bridge = (globalThis as any).loopdesk
      const sessionKey = 'agent:main:main'
      const events: any[] = []
      const done = new Promise<void>((resolve) => {
        const off = bridge.subscribe({ sessionKey, events: ['chat'] }, (ev: any) => {
          events.push(ev)
          if (ev.payload.state === 'final' || ev.payload.state === 'error') {
            off()
            resolve()
          }
        })
      })
      const ack = await bridge.send({ sessionKey, message: 'ping', idempotencyKey: `e2e-${Date.now()}` })
      await Promise.race([done, new Promise((r) => setTimeout(r, 20_000))])
      const history = await bridge.history({ sessionKey, limit: 10 })
      return { ack, events, history }
    })
    expect(result.ack.ok).toBe(true)
    const final = result.events.find((e) => e.payload.state === 'final')
    expect(final?.payload.message.content[0].text).toContain('pong from the scripted model')
    expect(result.history.ok).toBe(true)
    expect(JSON.stringify(result.history.data.messages)).toContain('pong from the scripted model')
  })

  test('bad params come back as structured errors', async () => {
    const res = await page.evaluate(() => (globalThis as any).loopdesk.history({ sessionKey: 42 }))
    expect(res).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
  })
})
