// Runs the BUILT app bundles under plain Node with the `electron` stand-in (see electron.mjs):
//   node --import tsx --import ./e2e/electron/stand-in/register.mjs e2e/electron/stand-in/drive.ts
// It starts out/main/index.js (real runtime, real gateway), runs out/preload/index.cjs in a vm against
// the main process's IPC handlers, and checks the wiring end to end: protocol + CSP, window options, the
// exposed bridge, sender validation, a chat round trip against the scripted model server, the gateway
// port file and handshake, prefs → nativeTheme, and the drain-then-quit sequence.
// Prints one line `SMOKE_RESULT <json>` with every check, then exits.
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import vm from 'node:vm'
import WebSocket from 'ws'
import { startModelServer } from '../../../test/fixtures/model-server'
import { connectGateway } from '../../../src/cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../../src/cli/identity'
import { readGatewayToken } from '../../../src/main/gateway/state-files'

type Check = { name: string; ok: boolean; detail?: string }
const checks: Check[] = []
const check = (name: string, ok: boolean, detail?: unknown) =>
  checks.push({ name, ok, ...(ok ? {} : { detail: typeof detail === 'string' ? detail : JSON.stringify(detail) }) })

const root = process.cwd()
/** build output to test (default out/, as `npm run build` writes it) */
const outDir = join(root, process.env.LOOPDESK_SMOKE_OUT ?? 'out')
const withTimeout = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`timeout: ${what}`)), ms))])

async function main() {
  const model = await startModelServer({ fallback: { text: 'pong from the scripted model', chunks: 4 } })
  const stateDir = mkdtempSync(join(tmpdir(), 'loopdesk-smoke-state-'))
  const userData = mkdtempSync(join(tmpdir(), 'loopdesk-smoke-userdata-'))
  writeFileSync(
    join(stateDir, 'loopdesk.json'),
    JSON.stringify({
      models: {
        providers: {
          mock: {
            baseUrl: model.openaiBaseUrl,
            api: 'openai-completions',
            models: [{ id: 'm1', contextWindow: 32000, maxTokens: 1024 }],
          },
        },
      },
      agents: { defaults: { model: { primary: 'mock/m1' }, workspace: join(stateDir, 'workspace') } },
      gateway: { port: 0 },
    }),
  )
  process.env.LOOPDESK_STATE_DIR = stateDir
  process.env.STANDIN_USER_DATA = userData
  delete process.env.ELECTRON_RENDERER_URL

  const electron: any = await import('electron' as string)
  const standIn = electron.standIn
  const errors: string[] = []
  standIn.on('error-box', (t: string, m: string) => errors.push(`${t}: ${m}`))

  // ---- main bundle
  const windowCreated = once(standIn, 'window')
  const started = performance.now()
  await import(pathToFileURL(join(outDir, 'main/index.js')).href)
  const [win] = (await withTimeout(windowCreated, 20_000, 'main window')) as any[]
  const startMs = Math.round(performance.now() - started)
  check('no start-up error', errors.length === 0, errors)
  check('app:// registered as privileged standard+secure scheme', standIn.privilegedSchemes.some((s: any) => s.scheme === 'app' && s.privileges.standard && s.privileges.secure))
  check('global sandbox enabled', standIn.sandboxEnabled === true)
  const wp = win.options.webPreferences
  check('window webPreferences locked down', wp.contextIsolation === true && wp.sandbox === true && wp.nodeIntegration === false && wp.webSecurity === true, wp)
  check('preload path is the built CommonJS preload', wp.preload === join(outDir, 'preload/index.cjs') && existsSync(wp.preload), wp.preload)
  check('window loads app://loopdesk/index.html', win.webContents.mainFrame.url === 'app://loopdesk/index.html', win.webContents.mainFrame.url)
  check('web-contents guard installed', standIn.webContentsCreated >= 1 && typeof win.webContents.windowOpenHandler === 'function')
  check('window.open denied', win.webContents.windowOpenHandler?.({ url: 'https://example.com/' })?.action === 'deny')

  // ---- protocol + CSP
  const handler = standIn.protocolHandlers.get('app')
  const page = await handler(new Request('app://loopdesk/index.html'))
  const csp = page.headers.get('content-security-policy') ?? ''
  const html = await page.text()
  check('app://loopdesk/index.html served', page.status === 200 && html.includes('<div id="root">'), page.status)
  check('CSP header strict', csp.includes("script-src 'self'") && !csp.includes('unsafe-eval') && csp.includes("object-src 'none'"), csp)
  check('path traversal refused', (await handler(new Request('app://loopdesk/%2e%2e/%2e%2e/package.json'))).status === 404)
  // Every script the page can load — the entry, the chunks it imports, and through its import() calls
  // the ones loaded later (Settings, the Inspector, highlighting) — at the URL the page resolves it to,
  // as JavaScript under the same CSP.
  const scripts = new Map<string, { status: number; type: string | null; csp: string | null }>()
  const queue = [...html.matchAll(/src="\.\/(assets\/[\w.-]+\.js)"/g)].map((m) => new URL(m[1], 'app://loopdesk/').href)
  while (queue.length) {
    const url = queue.shift()!
    if (scripts.has(url)) continue
    const res = await handler(new Request(url))
    scripts.set(url, { status: res.status, type: res.headers.get('content-type'), csp: res.headers.get('content-security-policy') })
    const code = res.status === 200 ? await res.text() : ''
    for (const m of code.matchAll(/["'`]\.\/([\w.-]+\.js)["'`]/g)) queue.push(new URL(m[1], url).href)
  }
  const badScripts = [...scripts].filter(([, r]) => r.status !== 200 || !r.type?.startsWith('text/javascript') || r.csp !== csp)
  const lazy = ['Settings', 'Inspector', 'highlight'].filter((name) => ![...scripts.keys()].some((u) => u.includes(`/assets/${name}-`)))
  check('every script chunk served as JavaScript, the lazily loaded ones too', badScripts.length === 0 && lazy.length === 0, { badScripts, missing: lazy })
  const hdrs: any = await new Promise((resolve) => standIn.headersListener({ url: 'https://x/', responseHeaders: {} }, resolve))
  check('CSP added to every session response', hdrs.responseHeaders['Content-Security-Policy']?.[0] === csp, hdrs)
  const perm: boolean = await new Promise((resolve) => standIn.permissionRequestHandler({}, 'media', resolve, { requestingUrl: 'app://loopdesk/' }))
  check('permission request denied', perm === false)

  // ---- preload bundle in a vm, wired to the main process's handlers as our window's top frame
  const sender = win.webContents
  standIn.rendererInvoke = async (channel: string, params: unknown) => {
    const h = electron.ipcMain.handlers.get(channel)
    if (!h) throw new Error(`No handler registered for '${channel}'`)
    return structuredClone(await h({ sender, senderFrame: sender.mainFrame }, structuredClone(params)))
  }
  standIn.rendererOn = (channel: string, listener: (e: unknown, ...a: unknown[]) => void) =>
    sender.on('ipc-message-to-renderer', (ch: string, ...args: unknown[]) => ch === channel && listener({}, ...args))
  const exposed = once(standIn, 'exposed')
  const sandbox = {
    require: (m: string) => {
      if (m === 'electron') return electron
      throw new Error(`sandboxed preload cannot require '${m}'`)
    },
    module: { exports: {} },
    exports: {},
    console,
    crypto: globalThis.crypto,
  }
  vm.runInNewContext(readFileSync(join(outDir, 'preload/index.cjs'), 'utf8'), sandbox, { filename: 'index.cjs' })
  const [key, bridge] = (await withTimeout(exposed, 2000, 'contextBridge.exposeInMainWorld')) as [string, any]
  check('preload exposes window.loopdesk', key === 'loopdesk')
  const keys = Object.keys(bridge)
  check('bridge has no generic invoke/on', !keys.includes('invoke') && !keys.includes('on') && keys.includes('subscribe') && bridge.transport === 'ipc', keys)

  const health = await bridge.health({})
  const readyMs = Math.round(performance.now() - started)
  check('health over IPC', health.ok === true && typeof health.data.durationMs === 'number' && typeof health.data.sessions.count === 'number', health)
  const bad = await bridge.history({ sessionKey: 42 })
  check('bad params → INVALID_REQUEST', bad.ok === false && bad.error.code === 'INVALID_REQUEST', bad)
  const foreign = await electron.ipcMain.handlers.get('loopdesk:health')({ sender: { ...sender }, senderFrame: sender.mainFrame }, {})
  check('foreign sender → FORBIDDEN', foreign.ok === false && foreign.error.code === 'FORBIDDEN', foreign)
  const sub = await electron.ipcMain.handlers.get('loopdesk:health')({ sender, senderFrame: { url: 'app://loopdesk/x', parent: sender.mainFrame } }, {})
  check('subframe → FORBIDDEN', sub.ok === false && sub.error.code === 'FORBIDDEN', sub)

  // chat round trip
  const sessionKey = 'agent:main:main'
  const events: any[] = []
  const final = new Promise<void>((resolve) => {
    const off = bridge.subscribe({ sessionKey, events: ['chat'] }, (ev: any) => {
      events.push(ev)
      if (ev.payload.state === 'final' || ev.payload.state === 'error') {
        off()
        resolve()
      }
    })
  })
  const sentAt = performance.now()
  let firstEventMs: number | undefined
  bridge.subscribe({ sessionKey }, () => (firstEventMs ??= Math.round(performance.now() - sentAt)))
  const ack = await bridge.send({ sessionKey, message: 'ping', idempotencyKey: `smoke-${Date.now()}` })
  check('chat.send accepted', ack.ok === true, ack)
  await withTimeout(final, 20_000, 'chat final').catch((e) => check('chat final arrived', false, String(e)))
  const roundTripMs = Math.round(performance.now() - sentAt)
  const finalEv = events.find((e) => e.payload.state === 'final')
  check('chat final carries the model reply', JSON.stringify(finalEv?.payload.message ?? '').includes('pong from the scripted model'), events.at(-1))
  check('chat deltas streamed before final', events.filter((e) => e.payload.state === 'delta').length >= 1, events.length)
  const history = await bridge.history({ sessionKey, limit: 10 })
  check('history has the reply', history.ok && JSON.stringify(history.data.messages).includes('pong from the scripted model'), history)

  // prefs → nativeTheme, credentials refused without a keyring
  const prefs = await bridge.prefsSet({ theme: 'dark' })
  check('prefs.set persists and applies the theme', prefs.ok && prefs.data.theme === 'dark' && electron.nativeTheme.themeSource === 'dark', prefs)

  // ---- gateway: real port recorded for the CLI, handshake starts with connect.challenge
  const infoFile = join(stateDir, 'gateway', 'gateway.json')
  // the gateway starts beside the window, not before it (its socket thread's start can outlast the chat above)
  const gatewayBy = Date.now() + 20_000
  while (!existsSync(infoFile) && Date.now() < gatewayBy) await new Promise((r) => setTimeout(r, 20))
  const info = existsSync(infoFile) ? JSON.parse(readFileSync(infoFile, 'utf8')) : undefined
  check('gateway port recorded in the state dir', typeof info?.port === 'number' && info.port > 0, info)
  if (info?.port) {
    const ws = new WebSocket(`ws://127.0.0.1:${info.port}`)
    const first = await withTimeout(once(ws, 'message'), 5000, 'gateway challenge').catch(() => undefined)
    const frame = first ? JSON.parse(String(first[0])) : undefined
    check('gateway sends connect.challenge', frame?.type === 'event' && frame?.event === 'connect.challenge', frame)
    ws.close()

    // ---- device pairing from the window: a device behind a proxy asks, the IPC bridge hears it, approves it
    const heard: any[] = []
    const offPairing = bridge.subscribePairing((ev: any) => heard.push(ev))
    const phone = generateNodeDeviceIdentity()
    const target = { url: `ws://127.0.0.1:${info.port}`, token: readGatewayToken(stateDir), identity: phone, headers: { 'X-Forwarded-For': '198.51.100.4' } }
    const refused = await connectGateway(target).then(
      (c) => (c.close(), undefined),
      (e: any) => e,
    )
    const requestId = refused?.details?.requestId
    check('unpaired remote device refused PAIRING_REQUIRED', refused?.details?.code === 'PAIRING_REQUIRED' && typeof requestId === 'string', refused?.details)
    const until = Date.now() + 5000
    while (!heard.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
    check('window hears device.pair.requested over IPC', heard[0]?.event === 'device.pair.requested' && heard[0]?.payload?.requestId === requestId, heard)
    const listed = await bridge.pairingList({})
    check('pairingList over IPC shows the request', listed.ok && listed.data.pending.some((r: any) => r.requestId === requestId), listed)
    const approved = await bridge.pairingApprove({ requestId })
    check('pairingApprove over IPC pairs the device', approved.ok && approved.data.device.deviceId === phone.deviceId, approved)
    const joined = await connectGateway(target).then(
      (c) => (c.close(), true),
      (e: any) => e,
    )
    check('approved device connects', joined === true, joined?.message ?? joined)
    const again = await bridge.pairingReject({ requestId })
    check('answered request → PAIRING_REQUEST_NOT_FOUND', !again.ok && again.error.details?.code === 'PAIRING_REQUEST_NOT_FOUND', again)
    offPairing()
  }

  // ---- quit: gateway closed and runtime drained before the app really quits
  const quitted = once(standIn, 'quit')
  electron.app.quit()
  const t0 = Date.now()
  await withTimeout(quitted, 20_000, 'quit').then(
    () => check('quit completes after shutdown', true),
    (e) => check('quit completes after shutdown', false, String(e)),
  )
  const quitMs = Date.now() - t0
  const info2 = existsSync(infoFile) ? JSON.parse(readFileSync(infoFile, 'utf8')) : undefined
  check('gateway port file removed on quit', info2 === undefined || info2.pid !== process.pid, info2)
  check('IPC handlers removed on quit', electron.ipcMain.handlers.size === 0, [...electron.ipcMain.handlers.keys()])

  await model.close()
  for (const d of [stateDir, userData]) rmSync(d, { recursive: true, force: true })
  return { startMs, readyMs, firstEventMs, roundTripMs, quitMs }
}

main().then(
  (extra) => {
    console.log(`SMOKE_RESULT ${JSON.stringify({ checks, ...extra })}`)
    process.exit(0)
  },
  (err) => {
    checks.push({ name: 'driver crashed', ok: false, detail: String(err?.stack ?? err) })
    console.log(`SMOKE_RESULT ${JSON.stringify({ checks })}`)
    process.exit(1)
  },
)
