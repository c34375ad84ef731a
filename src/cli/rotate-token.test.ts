// `loopdesk gateway rotate-token`: through a running gateway over the real runtime (config.patch → 4001 for
// old-token connections), with a gateway that pins its token, and with no gateway (state dir files).
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import JSON5 from 'json5'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../test/fixtures/test-runtime'
import { startGateway, type GatewayHandle } from '../main/gateway/server'
import { ensureGatewayToken, readGatewayToken, storeGatewayToken, tokenPath, writeGatewayInfo } from '../main/gateway/state-files'
import { startTestGateway, TEST_TOKEN } from '../main/gateway/test-support'
import { connectGateway, type GatewayConnectionClient } from './gateway-client'
import { generateNodeDeviceIdentity } from './identity'
import { runCli } from './main'
import { captureIO } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'

const closeOf = (c: GatewayConnectionClient) => new Promise<{ code: number; reason: string }>((r) => c.onClose((code, reason) => r({ code, reason })))
const tokenOf = (url: string) => decodeURIComponent(new URL(url.trim()).hash.replace(/^#token=/, ''))

describe('rotate-token through a running gateway (real runtime)', () => {
  const TOKEN = 'rotate-cli-token-0123456789abc'
  let server: ModelServer
  let rt: TestRuntime
  let gw: GatewayHandle
  beforeAll(async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    rt = await startTestRuntime(server)
    storeGatewayToken(rt.stateDir, TOKEN)
    gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
  })
  afterAll(async () => {
    await gw?.close()
    await rt?.close()
    await server?.close()
  })

  it('config.patch sets the new token: old-token clients get 4001, device-token clients stay, the CLI prints the new dashboard URL', async () => {
    const identity = generateNodeDeviceIdentity()
    const old = await connectGateway({ url: gw.url, token: TOKEN, identity })
    const viaDevice = await connectGateway({ url: gw.url, identity, deviceToken: old.hello.auth.deviceToken })
    const oldClosed = closeOf(old)

    const c = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--state-dir', rt.stateDir], c.io)).toBe(0)
    const link = c.out().trim()
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${gw.port}/#token=`))
    const fresh = tokenOf(link)
    expect(fresh).not.toBe(TOKEN)
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(c.err()).toContain('gateway token rotated')

    expect(await oldClosed).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(viaDevice.closed).toBe(false)
    await expect(viaDevice.request('health')).resolves.toMatchObject({ ok: true })
    // validated and written by the runtime; the gateway stored the token file for the CLI (0600)
    expect(JSON5.parse(readFileSync(join(rt.stateDir, 'loopdesk.json'), 'utf8')).gateway.auth.token).toBe(fresh)
    expect(readGatewayToken(rt.stateDir)).toBe(fresh)
    expect(statSync(tokenPath(rt.stateDir)).mode & 0o777).toBe(0o600)
    expect((await connectGateway({ url: gw.url, token: TOKEN, identity: null }).catch((e) => e)).details?.code).toBe('AUTH_TOKEN_MISMATCH')

    // the CLI finds the new token by itself, and dashboard prints the same link
    const d = captureIO()
    expect(await runCli(['dashboard', '--state-dir', rt.stateDir], d.io)).toBe(0)
    expect(d.out().trim()).toBe(link)
    const h = captureIO()
    expect(await runCli(['gateway', 'call', 'health', '--state-dir', rt.stateDir], h.io)).toBe(0)
    await viaDevice.close()
  })
})

describe('rotate-token against a gateway that pins its token', () => {
  it('fails with a clear line (the config cannot move a --token gateway)', async () => {
    const t = await startTestGateway({}, { watchSharedToken: false })
    try {
      storeGatewayToken(t.stateDir, TEST_TOKEN)
      const c = captureIO()
      expect(await runCli(['gateway', 'rotate-token', '--state-dir', t.stateDir], c.io)).toBe(1)
      expect(c.err().trim().split('\n')).toHaveLength(1)
      expect(c.err()).toMatch(/keeps the token it was started with/)
      expect(c.out()).toBe('')
      const still = await t.connect()
      await still.close()
    } finally {
      await t.stop()
    }
  })
})

describe('rotate-token with no gateway running', () => {
  const DOWN = 'ws://127.0.0.1:1'

  it('rewrites the token file (0600) and prints the URL the gateway will serve', async () => {
    const dir = tempDir('loopdesk-rot-')
    const before = ensureGatewayToken(dir)
    const c = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--url', DOWN, '--state-dir', dir, '--json'], c.io)).toBe(0)
    const res = JSON.parse(c.out())
    expect(res).toMatchObject({ ok: true, via: 'state-dir', url: DOWN })
    const fresh = tokenOf(res.dashboardUrl)
    expect(res.dashboardUrl).toBe(`http://127.0.0.1:1/#token=${fresh}`)
    expect(fresh).not.toBe(before)
    expect(readGatewayToken(dir)).toBe(fresh)
    expect(statSync(tokenPath(dir)).mode & 0o777).toBe(0o600)
  })

  it('a token configured in loopdesk.json is replaced there too (it wins at start); an invalid config is left alone', async () => {
    const dir = tempDir('loopdesk-rot-cfg-')
    const cfgFile = join(dir, 'loopdesk.json')
    writeFileSync(cfgFile, JSON.stringify({ gateway: { port: 19999, auth: { token: 'configured-token-0123456789' } } }))
    const c = captureIO({ LOOPDESK_GATEWAY_TOKEN: 'stale-env-token-0123456789' })
    expect(await runCli(['gateway', 'rotate-token', '--url', DOWN, '--state-dir', dir], c.io)).toBe(0)
    const fresh = tokenOf(c.out())
    const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'))
    expect(cfg.gateway).toEqual({ port: 19999, auth: { token: fresh } })
    expect(readGatewayToken(dir)).toBe(fresh)
    expect(c.err()).toMatch(/no gateway running at ws:\/\/127\.0\.0\.1:1/)
    expect(c.err()).toMatch(/LOOPDESK_GATEWAY_TOKEN is set/)

    // schema-invalid elsewhere: refused, nothing written
    const broken = JSON.stringify({ gateway: { auth: { token: 'configured-token-0123456789' } }, agents: { defaults: { timeoutSeconds: 'soon' } } })
    writeFileSync(cfgFile, broken)
    const tokenBefore = readGatewayToken(dir)
    const b = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--url', DOWN, '--state-dir', dir], b.io)).toBe(1)
    expect(b.err()).toMatch(/^loopdesk: cannot rotate the token: .*loopdesk\.json is invalid \(agents\.defaults\.timeoutSeconds: /)
    expect(readFileSync(cfgFile, 'utf8')).toBe(broken)
    expect(readGatewayToken(dir)).toBe(tokenBefore)

    // invalid without a token in it: still refused (the running gateway may hold a token from the last good file)
    writeFileSync(cfgFile, '{ gateway: { port: 19999, }, oops')
    const d = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--url', DOWN, '--state-dir', dir], d.io)).toBe(1)
    expect(d.err()).toMatch(/loopdesk\.json is invalid \(\(file\): syntax error/)
    expect(readGatewayToken(dir)).toBe(tokenBefore)
  })

  it('nothing recorded (no --url, no gateway.json): no guessed link, the token applies at the next start', async () => {
    const dir = tempDir('loopdesk-rot-none-')
    writeFileSync(join(dir, 'loopdesk.json'), JSON.stringify({ gateway: { port: 1 } })) // unreachable, and not a record
    const before = ensureGatewayToken(dir)
    const c = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--state-dir', dir], c.io)).toBe(0)
    expect(c.out()).toBe('')
    expect(c.err()).toBe(
      `no gateway is running for ${dir}; the new token is stored there and applies when the gateway starts (then \`loopdesk dashboard\` prints the link)\n`,
    )
    expect(readGatewayToken(dir)).not.toBe(before)
    const j = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--state-dir', dir, '--json'], j.io)).toBe(0)
    expect(JSON.parse(j.out())).toEqual({ ok: true, via: 'state-dir', url: null, dashboardUrl: null })
  })

  it('a gateway.json left by a gateway that is gone: rotated in the state dir, no link at the port it recorded', async () => {
    // (that port may be another program's by now, and the link carries the token: see stale-gateway-record.test.ts)
    const dir = tempDir('loopdesk-rot-rec-')
    writeGatewayInfo(dir, { port: 1, pid: 2 ** 22 + 1, url: DOWN, startedAt: 0 })
    const before = ensureGatewayToken(dir)
    const c = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--state-dir', dir], c.io)).toBe(0)
    expect(c.out()).toBe('')
    expect(c.err()).toBe(
      `gateway not running (stale record for pid ${2 ** 22 + 1}); the new token is stored in ${dir} and applies when the gateway starts (then \`loopdesk dashboard\` prints the link)\n`,
    )
    expect(readGatewayToken(dir)).not.toBe(before)
  })

  it('usage errors exit 2', async () => {
    const c = captureIO()
    expect(await runCli(['gateway', 'rotate-token', 'extra'], c.io)).toBe(2)
  })
})
