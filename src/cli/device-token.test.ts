// The CLI keeps the device token from hello-ok.auth (per gateway URL, 0600, next to its identity) and
// connects with it when the shared token is missing or rejected; a token the gateway refuses is dropped.
// Against a real gateway server (over the fake host).
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { deviceTokensPath, dropDeviceToken, gatewayKey, loadDeviceToken, saveDeviceToken } from './device-token-store'
import { loadOrCreateDeviceIdentity } from './identity'
import { connectCli } from './connect'
import { CliError } from './io'
import { runCli } from './main'
import { captureIO } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'

const NEW_TOKEN = 'rotated-shared-token-0123456789'


let t: TestGateway
/** the CLI's own state dir (identity + device tokens); the gateway is found through --url */
let cliDir: string

beforeEach(async () => {
  t = await startTestGateway()
  cliDir = tempDir('loopdesk-cli-dt-')
})
afterEach(async () => {
  await t.stop()
})

/** `gateway call health` as the CLI; env token unless `token: undefined`. */
async function health(o: { token?: string | undefined } = { token: TEST_TOKEN }) {
  const c = captureIO(o.token === undefined ? {} : { LOOPDESK_GATEWAY_TOKEN: o.token })
  const code = await runCli(['gateway', 'call', 'health', '--json', '--url', t.gw.url, '--state-dir', cliDir], c.io)
  return { code, out: c.out(), err: c.err() }
}

const stored = () => loadDeviceToken(cliDir, t.gw.url, loadOrCreateDeviceIdentity(cliDir).deviceId)

describe('device token kept by the CLI', () => {
  it('is stored per gateway URL with mode 0600 next to the identity, and renewed on each shared-token connect', async () => {
    expect(await health()).toMatchObject({ code: 0, err: '' })
    const first = stored()
    expect(first).toMatchObject({ deviceId: loadOrCreateDeviceIdentity(cliDir).deviceId, role: 'operator' })
    expect(first!.token.length).toBeGreaterThan(20)
    expect(first!.scopes).toContain('operator.admin')
    expect(statSync(deviceTokensPath(cliDir)).mode & 0o777).toBe(0o600)
    expect(deviceTokensPath(cliDir)).toBe(join(cliDir, 'identity', 'device-tokens.json'))
    const file = JSON.parse(readFileSync(deviceTokensPath(cliDir), 'utf8'))
    expect(Object.keys(file.gateways)).toEqual([gatewayKey(t.gw.url)])
    // the gateway issues a fresh token (the old one stops working) on every shared-token connect
    expect(await health()).toMatchObject({ code: 0 })
    expect(stored()!.token).not.toBe(first!.token)
  })

  it('after a shared-token rotation a stale token falls back to the device token (gateway call and agent)', async () => {
    expect((await health()).code).toBe(0)
    const before = stored()!.token
    t.gw.setToken(NEW_TOKEN)
    const r = await health({ token: TEST_TOKEN })
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(JSON.parse(r.out)).toMatchObject({ ok: true })
    // a device-token connect gets the same token back: nothing to replace
    expect(stored()!.token).toBe(before)
    const a = captureIO({ LOOPDESK_GATEWAY_TOKEN: TEST_TOKEN })
    expect(await runCli(['agent', '-m', 'hello', '--url', t.gw.url, '--state-dir', cliDir], a.io)).toBe(0)
    expect(a.out()).toBe('Hello, world\n')
  })

  it('with no shared token at all the device token is used', async () => {
    expect((await health()).code).toBe(0)
    expect(await health({ token: undefined })).toMatchObject({ code: 0, err: '' })
    // without a stored token either: the gateway's own "token missing" answer
    const other = tempDir('loopdesk-cli-none-')
    const c = captureIO()
    expect(await runCli(['gateway', 'call', 'health', '--url', t.gw.url, '--state-dir', other], c.io)).toBe(4)
    expect(c.err()).toMatch(/^loopdesk: gateway auth failed: .*AUTH_TOKEN_MISSING/)
  })

  it('a revoked device token is dropped with one line; the shared-token failure is what is reported', async () => {
    expect((await health()).code).toBe(0)
    const admin = await t.connect()
    const deviceId = loadOrCreateDeviceIdentity(cliDir).deviceId
    expect(await admin.request('device.token.revoke', { deviceId, role: 'operator' })).toMatchObject({ revoked: true })
    await admin.close()
    t.gw.setToken(NEW_TOKEN)

    const r = await health({ token: TEST_TOKEN })
    expect(r.code).toBe(4)
    const lines = r.err.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toBe(`loopdesk: the gateway at ${gatewayKey(t.gw.url)} rejected the stored device token (revoked or rotated); removed it`)
    expect(lines[1]).toMatch(/^loopdesk: gateway auth failed: .*AUTH_TOKEN_MISMATCH/)
    expect(r.err).not.toContain(TEST_TOKEN)
    expect(stored()).toBeUndefined()
    // nothing stored any more: no second drop line
    expect((await health({ token: TEST_TOKEN })).err.trim().split('\n')).toHaveLength(1)
    // the new shared token works and stores a new device token
    expect((await health({ token: NEW_TOKEN })).code).toBe(0)
    expect(stored()).toBeDefined()
  })

  it('a device token rotated elsewhere, with no shared token: dropped, and a clear line about the missing token', async () => {
    expect((await health()).code).toBe(0)
    const deviceId = loadOrCreateDeviceIdentity(cliDir).deviceId
    const admin = await t.connect()
    await admin.request('device.token.rotate', { deviceId, role: 'operator' })
    await admin.close()
    const r = await health({ token: undefined })
    expect(r.code).toBe(4)
    expect(r.err.trim().split('\n')).toEqual([
      `loopdesk: the gateway at ${gatewayKey(t.gw.url)} rejected the stored device token (revoked or rotated); removed it`,
      `loopdesk: no gateway token for ${t.gw.url} — pass --token or set LOOPDESK_GATEWAY_TOKEN`,
    ])
    expect(stored()).toBeUndefined()
  })
})

describe('a state dir that does not exist', () => {
  it('is not created: the CLI connects with a throwaway identity and keeps nothing', async () => {
    cliDir = join(tempDir('loopdesk-cli-typo-'), 'no-such-dir')
    expect(await health()).toMatchObject({ code: 0, err: '' })
    expect(existsSync(cliDir)).toBe(false)
  })

  it('with no URL given, a gateway not running names the missing state dir', async () => {
    const dir = join(tempDir('loopdesk-cli-typo-'), 'no-such-dir')
    const closed = await startTestGateway()
    const url = closed.gw.url
    await closed.stop()
    const c = captureIO()
    const err = await connectCli({ target: { url, token: TEST_TOKEN, source: 'default' }, stateDir: dir, io: c.io }).catch((e) => e)
    expect(err).toBeInstanceOf(CliError)
    expect(err.message).toBe(`gateway not running at ${url} (connection refused); there is no state dir at ${dir} — check --state-dir / LOOPDESK_STATE_DIR`)
    expect(existsSync(dir)).toBe(false)
  })
})

describe('two CLIs of one state dir', () => {
  it('the later-issued token stays stored whichever CLI writes last, and still connects after a rotation', async () => {
    expect(await health()).toMatchObject({ code: 0 })
    const older = stored()!
    expect(await health()).toMatchObject({ code: 0 })
    const newer = stored()!
    expect(newer.issuedAtMs).toBeGreaterThan(older.issuedAtMs) // strictly increasing, even within one ms
    // the first CLI's write arrives late: it must not replace the live token with its superseded one
    expect(saveDeviceToken(cliDir, t.gw.url, older)).toBe(false)
    expect(stored()!.token).toBe(newer.token)
    // …nor may its rejection drop the other CLI's token
    expect(dropDeviceToken(cliDir, t.gw.url, older.token)).toBe(false)
    expect(stored()!.token).toBe(newer.token)

    t.gw.setToken(NEW_TOKEN)
    expect(await health({ token: undefined })).toMatchObject({ code: 0, err: '' })
  })
})

describe('device token store', () => {
  it('normalizes URLs, ignores tokens of another identity and survives a corrupt file', () => {
    const dir = tempDir('loopdesk-dts-')
    expect(gatewayKey('ws://LOCALHOST:18789/')).toBe('ws://localhost:18789')
    expect(gatewayKey('ws://127.0.0.1:1/gw?x=1#y')).toBe('ws://127.0.0.1:1/gw')
    const entry = { token: 'tok-1', deviceId: 'dev-a', role: 'operator', scopes: ['operator.read'], issuedAtMs: 1 }
    saveDeviceToken(dir, 'ws://localhost:18789', entry)
    expect(loadDeviceToken(dir, 'ws://LOCALHOST:18789/', 'dev-a')).toEqual(entry)
    expect(loadDeviceToken(dir, 'ws://localhost:18789', 'dev-b')).toBeUndefined()
    expect(loadDeviceToken(dir, 'ws://localhost:18790', 'dev-a')).toBeUndefined()
    writeFileSync(deviceTokensPath(dir), '{ not json')
    expect(loadDeviceToken(dir, 'ws://localhost:18789', 'dev-a')).toBeUndefined()
    saveDeviceToken(dir, 'ws://localhost:18789', entry)
    expect(loadDeviceToken(dir, 'ws://localhost:18789', 'dev-a')).toEqual(entry)
    expect(statSync(deviceTokensPath(dir)).mode & 0o777).toBe(0o600)
  })
})
