// Shared-token rotation: when the gateway token changes (config.patch of gateway.auth.token, a hand edit of
// loopdesk.json, the token file rewritten, or GatewayHandle.setToken) every connection that authenticated
// with the old secret is closed with 4001 "gateway auth changed"; device-token connections stay.
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { connectGateway, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { startGateway, type GatewayHandle } from './server'
import { readGatewayToken, storeGatewayToken } from './state-files'
import { startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'

const NEW_TOKEN = 'rotated-token-abcdefghijklmnop'
const closeOf = (c: GatewayConnectionClient) => new Promise<{ code: number; reason: string }>((r) => c.onClose((code, reason) => r({ code, reason })))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A shared-token device connection, a device-token connection and a device-less token connection. */
async function threeKinds(connect: (o?: Parameters<TestGateway['connect']>[0]) => Promise<GatewayConnectionClient>) {
  const identity = generateNodeDeviceIdentity()
  const first = await connect({ identity })
  const deviceToken = first.hello.auth.deviceToken as string
  await first.close()
  const shared = await connect({ identity })
  const viaDeviceToken = await connect({ identity, token: undefined, deviceToken: shared.hello.auth.deviceToken })
  const deviceless = await connect({ identity: null })
  expect(deviceToken).not.toBe(shared.hello.auth.deviceToken)
  return { identity, shared, viaDeviceToken, deviceless, closes: [closeOf(shared), closeOf(deviceless)] as const }
}

describe('shared-token rotation over a fake host', () => {
  let t: TestGateway | undefined
  afterEach(async () => {
    await t?.stop()
    t = undefined
  })

  it('the token file rewritten: old-secret connections closed 4001, device-token connection stays, new token works', async () => {
    t = await startTestGateway({}, { limits: { authWatchIntervalMs: 20 } })
    const k = await threeKinds((o) => t!.connect(o))
    storeGatewayToken(t.stateDir, NEW_TOKEN)
    for (const c of await Promise.all(k.closes)) expect(c).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(k.viaDeviceToken.closed).toBe(false)
    await expect(k.viaDeviceToken.request('status')).resolves.toMatchObject({ ok: true })
    const old = await t.connect().catch((e) => e)
    expect(old.details?.code).toBe('AUTH_TOKEN_MISMATCH')
    const fresh = await t.connect({ token: NEW_TOKEN })
    expect(fresh.hello.type).toBe('hello-ok')
    await Promise.all([fresh.close(), k.viaDeviceToken.close()])
  })

  it('a hand edit of gateway.auth.token in loopdesk.json rotates it and copies it into the token file (0600)', async () => {
    t = await startTestGateway({}, { limits: { authWatchIntervalMs: 20 } })
    const c = await t.connect()
    const closed = closeOf(c)
    writeFileSync(t.host.info.configPath, `// edited by hand\n{ gateway: { auth: { token: "${NEW_TOKEN}" } } }\n`)
    expect(await closed).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(readGatewayToken(t.stateDir)).toBe(NEW_TOKEN)
    expect(statSync(join(t.stateDir, 'gateway', 'token')).mode & 0o777).toBe(0o600)
    await (await t.connect({ token: NEW_TOKEN })).close()
    // the file says something else now, but the config still holds a token: the config wins
    storeGatewayToken(t.stateDir, 'file-only-token-0123456789abc')
    await sleep(150)
    await (await t.connect({ token: NEW_TOKEN })).close()
  })

  it('ignores what the files held at start, unusable tokens and broken config; setToken rotates on demand', async () => {
    const warnings: string[] = []
    t = await startTestGateway({}, { limits: { authWatchIntervalMs: 20 }, logger: { info() {}, warn: (m) => warnings.push(m), error() {} } })
    const c = await t.connect()
    writeFileSync(t.host.info.configPath, '{ gateway: { auth: { token: "short" } } }')
    await sleep(150)
    writeFileSync(t.host.info.configPath, '{ gateway: { auth: ')
    await sleep(150)
    expect(c.closed).toBe(false)
    expect(warnings.some((w) => /not 16–512 printable/.test(w))).toBe(true)
    const closed = closeOf(c)
    t.gw.setToken(NEW_TOKEN)
    expect(await closed).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(readGatewayToken(t.stateDir)).toBe(NEW_TOKEN)
    expect(() => t!.gw.setToken('too short')).toThrow(/16–512/)
  })

  it('a pinned token (watchSharedToken: false) does not follow the files', async () => {
    t = await startTestGateway({}, { watchSharedToken: false, limits: { authWatchIntervalMs: 20 } })
    const c = await t.connect()
    storeGatewayToken(t.stateDir, NEW_TOKEN)
    await sleep(150)
    expect(c.closed).toBe(false)
    await (await t.connect({ token: TEST_TOKEN })).close()
    await c.close()
  })
})

describe('shared-token rotation over the real runtime', () => {
  const TOKEN = 'rotation-int-token-0123456789'
  let server: ModelServer
  let rt: TestRuntime
  let gw: GatewayHandle
  beforeAll(async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    // no config poller in the runtime and a long one in the gateway (the same file shares one stat watcher):
    // the rotation must come from the config.patch itself
    rt = await startTestRuntime(server, { runtime: { watchConfig: false } })
    storeGatewayToken(rt.stateDir, TOKEN)
    gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null, limits: { authWatchIntervalMs: 60_000 } })
  })
  afterAll(async () => {
    await gw?.close()
    await rt?.close()
    await server?.close()
  })

  it('config.patch of gateway.auth.token: the caller gets its answer, then every old-secret connection is closed 4001', async () => {
    const connect = (o: Partial<Parameters<typeof connectGateway>[0]> = {}) => connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), ...o })
    const k = await threeKinds(connect)
    const callerClosed = closeOf(k.shared)
    const res = await k.shared.request('config.patch', { patch: { gateway: { auth: { token: NEW_TOKEN } } } })
    expect(res).toMatchObject({ ok: true, secrets: { 'gateway.auth.token': 'set' } })
    expect(JSON.stringify(res)).not.toContain(NEW_TOKEN)
    expect(await callerClosed).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(await k.closes[1]).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(k.viaDeviceToken.closed).toBe(false)
    await expect(k.viaDeviceToken.request('status')).resolves.toMatchObject({ ok: true })
    expect(readFileSync(join(rt.stateDir, 'gateway', 'token'), 'utf8').trim()).toBe(NEW_TOKEN)
    expect((await connect().catch((e) => e)).details?.code).toBe('AUTH_TOKEN_MISMATCH')
    const fresh = await connect({ token: NEW_TOKEN })
    await expect(fresh.request('status')).resolves.toMatchObject({ ok: true })
    await Promise.all([fresh.close(), k.viaDeviceToken.close()])
  })

  it('a config.patch through another transport (the desktop IPC) reaches the gateway through the runtime; a broken file changes nothing', async () => {
    const THIRD = 'third-token-abcdefghijklmnopq'
    const c = await connectGateway({ url: gw.url, token: NEW_TOKEN, identity: generateNodeDeviceIdentity() })
    const closed = closeOf(c)
    await rt.call('config.patch', { patch: { gateway: { auth: { token: THIRD } } } })
    expect(await closed).toEqual({ code: 4001, reason: 'gateway auth changed' })
    expect(readGatewayToken(rt.stateDir)).toBe(THIRD)
    // a hand-broken file: the runtime keeps its last good config (reload reports it invalid), the token stays
    const after = await connectGateway({ url: gw.url, token: THIRD, identity: generateNodeDeviceIdentity() })
    writeFileSync(join(rt.stateDir, 'loopdesk.json'), '{ gateway: { auth: { token: ')
    // (this runtime does not poll the file: reload as its watcher would)
    expect((rt.runtime.core.config as unknown as { reload(): { ok: boolean } }).reload().ok).toBe(false)
    expect(rt.runtime.currentConfig?.().raw.gateway?.auth?.token).toBe(THIRD)
    await sleep(50)
    expect(after.closed).toBe(false)
    await expect(after.request('health')).resolves.toMatchObject({ ok: true })
    await after.close()
  })
})
