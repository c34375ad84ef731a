// Device tokens over real WebSockets: issued in hello-ok.auth after a verified device connect, stored
// hashed, accepted instead of the shared token (bound to device + role), refused when wrong, superseded,
// rotated or revoked — with OpenClaw's structured connect errors.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { GatewayClient } from '@openclaw/gateway-client'
import { generateNodeDeviceIdentity, publicKeyRawBase64Url, signDevicePayload } from '../../cli/identity'
import { startGateway } from './server'
import { FakeHost } from './fake-host'
import { startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'
import { until } from '../../../test/fixtures/until'
import { PAIRING_REJECTION_MS } from '../../shared/pairing'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})


describe('device tokens', () => {
  it('hello-ok.auth carries a device token for a verified device (none without one); only its hash is stored, 0600', async () => {
    t = await startTestGateway()
    const before = Date.now()
    const c = await t.connect({ scopes: ['operator.read', 'operator.write'] })
    const auth = c.hello.auth
    expect(auth).toMatchObject({ role: 'operator', scopes: ['operator.read', 'operator.write'] })
    expect(auth.deviceToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(auth.issuedAtMs).toBeGreaterThanOrEqual(before)
    const file = join(t.stateDir, 'gateway', 'devices.json')
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain(auth.deviceToken)
    expect(JSON.parse(text).devices[0].tokens.operator).toMatchObject({ scopes: ['operator.read', 'operator.write'], issuedAtMs: auth.issuedAtMs })
    expect(JSON.parse(text).devices[0].tokens.operator.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(file).mode & 0o777).toBe(0o600)

    const deviceless = await t.connect({ identity: null })
    expect(deviceless.hello.auth).toEqual({ role: 'operator', scopes: [] })
    await Promise.all([c.close(), deviceless.close()])
  })

  it('a device reconnects with its device token instead of the shared token, never with more scopes than it was issued', async () => {
    t = await startTestGateway()
    const first = await t.connect({ scopes: ['operator.read', 'operator.write'] })
    const { deviceToken, issuedAtMs } = first.hello.auth
    await first.close()

    const again = await t.connect({ token: undefined, deviceToken, scopes: ['operator.read', 'operator.write'] })
    expect(again.hello.auth).toEqual({ deviceToken, role: 'operator', scopes: ['operator.read', 'operator.write'], issuedAtMs })
    await expect(again.request('status')).resolves.toMatchObject({ ok: true })
    await again.close()

    // asking for admin with a read/write token: admin is not granted
    const greedy = await t.connect({ token: undefined, deviceToken, scopes: ['operator.admin', 'operator.read'] })
    expect(greedy.hello.auth.scopes).toEqual(['operator.read'])
    await expect(greedy.request('config.patch', { patch: {} })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await greedy.close()
  })

  it('refuses a wrong, foreign, superseded or identity-less device token with structured errors', async () => {
    t = await startTestGateway()
    const first = await t.connect()
    const old = first.hello.auth.deviceToken as string
    await first.close()

    const wrong = await t.connect({ token: undefined, deviceToken: 'x'.repeat(43) }).catch((e) => e)
    expect(wrong.kind).toBe('auth')
    expect(wrong.code).toBe('INVALID_REQUEST')
    expect(wrong.details).toMatchObject({ code: 'AUTH_DEVICE_TOKEN_MISMATCH', recommendedNextStep: 'update_auth_credentials', canRetryWithDeviceToken: false })
    expect(JSON.stringify(wrong.details) + wrong.message).not.toContain('x'.repeat(43))

    // another device presenting this device's token
    const other = await t.connect({ identity: generateNodeDeviceIdentity(), token: undefined, deviceToken: old }).catch((e) => e)
    expect(other.details?.code).toBe('AUTH_DEVICE_TOKEN_MISMATCH')

    // no device identity at all
    const bare = await t.connect({ identity: null, token: undefined, deviceToken: old }).catch((e) => e)
    expect(bare.details).toMatchObject({ code: 'DEVICE_IDENTITY_REQUIRED', recommendedNextStep: 'update_auth_configuration' })

    // a new shared-token connect of the same device supersedes the old token
    const second = await t.connect()
    const fresh = second.hello.auth.deviceToken as string
    expect(fresh).not.toBe(old)
    await second.close()
    const stale = await t.connect({ token: undefined, deviceToken: old }).catch((e) => e)
    expect(stale.details?.code).toBe('AUTH_DEVICE_TOKEN_MISMATCH')
    const ok = await t.connect({ token: undefined, deviceToken: fresh })
    expect(ok.hello.auth.deviceToken).toBe(fresh)
    await ok.close()
  })

  it('a wrong shared token hints at the device token only when the proven device holds one', async () => {
    t = await startTestGateway()
    const fresh = generateNodeDeviceIdentity()
    const noToken = await t.connect({ identity: fresh, token: 'not-the-gateway-token-123' }).catch((e) => e)
    expect(noToken.details).toMatchObject({ code: 'AUTH_TOKEN_MISMATCH', canRetryWithDeviceToken: false, recommendedNextStep: 'update_auth_credentials' })
    const c = await t.connect({ identity: fresh })
    const deviceToken = c.hello.auth.deviceToken
    await c.close()
    const hinted = await t.connect({ identity: fresh, token: 'not-the-gateway-token-123' }).catch((e) => e)
    expect(hinted.details).toMatchObject({ code: 'AUTH_TOKEN_MISMATCH', canRetryWithDeviceToken: true, recommendedNextStep: 'retry_with_device_token' })
    // the retry: the stale shared token plus the device token (what OpenClaw's client sends)
    const retried = await t.connect({ identity: fresh, token: 'not-the-gateway-token-123', deviceToken })
    expect(retried.hello.auth.deviceToken).toBe(deviceToken)
    await retried.close()
  })

  it('tokens survive a gateway restart on the same state dir', async () => {
    t = await startTestGateway()
    const c = await t.connect()
    const deviceToken = c.hello.auth.deviceToken
    await c.close()
    await t.gw.close('restart')
    const gw2 = await startGateway({ host: new FakeHost(), port: 0, token: 'another-shared-token-0123456789', stateDir: t.stateDir, staticDir: null })
    try {
      const { connectGateway } = await import('../../cli/gateway-client')
      const again = await connectGateway({ url: gw2.url, identity: t.identity, deviceToken })
      expect(again.hello.auth.deviceToken).toBe(deviceToken)
      await again.close()
    } finally {
      await gw2.close()
    }
  })

  it('device.token.revoke (pairing scope) kills the token and closes its connections with 4001', async () => {
    t = await startTestGateway()
    const device = generateNodeDeviceIdentity()
    const first = await t.connect({ identity: device })
    const deviceToken = first.hello.auth.deviceToken
    await first.close()
    const riding = await t.connect({ identity: device, token: undefined, deviceToken })
    const shared = await t.connect({ identity: device }) // same device, shared token: unaffected
    const closed = new Promise<{ code: number; reason: string }>((r) => riding.onClose((code, reason) => r({ code, reason })))

    const reader = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.read'] })
    await expect(reader.request('device.token.revoke', { deviceId: device.deviceId, role: 'operator' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { missingScope: 'operator.pairing' },
    })
    const pairer = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.pairing'] })
    await expect(pairer.request('device.token.revoke', { deviceId: device.deviceId, role: 'operator' })).resolves.toEqual({
      ok: true,
      deviceId: device.deviceId,
      role: 'operator',
      revoked: true,
    })
    expect(await closed).toEqual({ code: 4001, reason: 'device token revoked' })
    expect(shared.closed).toBe(false)
    // the shared-token connection above was issued a newer token, which the revoke removed as well
    const again = await t.connect({ identity: device, token: undefined, deviceToken: shared.hello.auth.deviceToken }).catch((e) => e)
    expect(again.details?.code).toBe('AUTH_DEVICE_TOKEN_MISMATCH')
    await expect(pairer.request('device.token.revoke', { deviceId: device.deviceId, role: 'operator' })).resolves.toMatchObject({ revoked: false })
    await expect(pairer.request('device.token.revoke', { deviceId: device.deviceId })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await Promise.all([shared.close(), reader.close(), pairer.close()])
  })

  it('device.pair.list shows the paired devices and their tokens (never a token), device.pair.remove forgets one and closes its connections', async () => {
    t = await startTestGateway()
    const laptop = generateNodeDeviceIdentity()
    const first = await t.connect({ identity: laptop, scopes: ['operator.read', 'operator.write'] })
    const deviceToken = first.hello.auth.deviceToken
    await first.close()
    const riding = await t.connect({ identity: laptop, token: undefined, deviceToken, scopes: ['operator.read'] })
    const closed = new Promise<{ code: number; reason: string }>((r) => riding.onClose((code, reason) => r({ code, reason })))
    const admin = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.admin'] })

    const reader = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.read'] })
    await expect(reader.request('device.pair.list', {})).rejects.toMatchObject({ code: 'FORBIDDEN', details: { missingScope: 'operator.pairing' } })

    const list = (await admin.request('device.pair.list', {})) as any
    expect(list.pending).toEqual([])
    const entry = list.paired.find((d: any) => d.deviceId === laptop.deviceId)
    expect(entry).toMatchObject({ clientId: expect.any(String), connected: true, roles: ['operator'], tokens: [{ role: 'operator', scopes: ['operator.read', 'operator.write'] }] })
    expect(JSON.stringify(list)).not.toContain(deviceToken)
    expect(JSON.stringify(list)).not.toMatch(/"hash"/)
    expect(list.paired).toHaveLength(3) // the laptop, the admin, the reader

    await expect(admin.request('device.pair.remove', { deviceId: laptop.deviceId })).resolves.toEqual({ ok: true, deviceId: laptop.deviceId, removed: true })
    expect(await closed).toEqual({ code: 4001, reason: 'device removed' })
    const gone = await t.connect({ identity: laptop, token: undefined, deviceToken }).catch((e) => e)
    expect(gone.details?.code).toBe('AUTH_DEVICE_TOKEN_MISMATCH')
    expect(((await admin.request('device.pair.list', {})) as any).paired.some((d: any) => d.deviceId === laptop.deviceId)).toBe(false)
    await expect(admin.request('device.pair.remove', { deviceId: laptop.deviceId })).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'DEVICE_NOT_PAIRED' } })
    await expect(admin.request('device.pair.approve', { requestId: 'r-1' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('unknown pairing request: r-1'),
      details: { code: 'PAIRING_REQUEST_NOT_FOUND' },
    })
    await Promise.all([admin.close(), reader.close()])
  })

  it('a remote device that is not paired asks: the request waits for device.pair.approve / reject, approvers are told', async () => {
    t = await startTestGateway()
    const proxied = { 'X-Forwarded-For': '203.0.113.7' }
    const phone = generateNodeDeviceIdentity()
    const pairer = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.pairing'] })
    const reader = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.read'] })
    const seen: Array<{ to: string; event: string; payload: any }> = []
    pairer.onEvent((e) => e.event.startsWith('device.pair.') && seen.push({ to: 'pairer', event: e.event, payload: e.payload }))
    reader.onEvent((e) => e.event.startsWith('device.pair.') && seen.push({ to: 'reader', event: e.event, payload: e.payload }))

    const refused = await t.connect({ identity: phone, headers: proxied }).catch((e) => e)
    expect(refused).toMatchObject({ code: 'NOT_PAIRED', details: { code: 'PAIRING_REQUIRED', deviceId: phone.deviceId, requestId: expect.any(String) } })
    const requestId = refused.details.requestId
    expect(refused.message).toContain(`approve request ${requestId}`)
    await until(() => seen.length === 1)
    expect(seen[0]).toMatchObject({ to: 'pairer', event: 'device.pair.requested', payload: { requestId, deviceId: phone.deviceId, clientId: expect.any(String), role: 'operator', remoteIp: '127.0.0.1' } })
    // asking again keeps the request (an approval on its way still applies) and tells nobody twice
    const again = await t.connect({ identity: phone, headers: proxied }).catch((e) => e)
    expect(again.details.requestId).toBe(requestId)
    const pending = ((await pairer.request('device.pair.list', {})) as any).pending
    expect(pending).toEqual([expect.objectContaining({ requestId, deviceId: phone.deviceId, publicKey: expect.any(String) })])

    // rejected: gone, and for a while the device's tries are refused without a new request (nobody is asked again)
    await expect(pairer.request('device.pair.reject', { requestId })).resolves.toEqual({ requestId, deviceId: phone.deviceId })
    await until(() => seen.length === 2)
    expect(seen[1]).toMatchObject({ to: 'pairer', event: 'device.pair.resolved', payload: { requestId, deviceId: phone.deviceId, decision: 'rejected' } })
    await expect(pairer.request('device.pair.approve', { requestId })).rejects.toMatchObject({ details: { code: 'PAIRING_REQUEST_NOT_FOUND' } })
    const next = await t.connect({ identity: phone, headers: proxied }).catch((e) => e)
    expect(next).toMatchObject({
      code: 'NOT_PAIRED',
      message: expect.stringContaining('pairing rejected'),
      details: { code: 'PAIRING_REQUIRED', reason: 'rejected', deviceId: phone.deviceId, recommendedNextStep: 'wait_then_retry' },
    })
    expect(next.details.requestId).toBeUndefined()
    expect(next.details.retryAfterMs).toBeGreaterThan(PAIRING_REJECTION_MS - 60_000)
    expect(next.details.retryAfterMs).toBeLessThanOrEqual(PAIRING_REJECTION_MS)
    expect(((await pairer.request('device.pair.list', {})) as any).pending).toEqual([])

    // another device is not affected: it asks, and is approved
    const tablet = generateNodeDeviceIdentity()
    const asks = await t.connect({ identity: tablet, headers: proxied }).catch((e) => e)
    expect(asks.details).toMatchObject({ code: 'PAIRING_REQUIRED', requestId: expect.any(String) })
    expect(asks.details.reason).toBeUndefined()
    await until(() => seen.length === 3)
    expect(seen.filter((s) => s.payload.deviceId === phone.deviceId)).toHaveLength(2) // nothing more about the phone

    // approved: the device is paired and connects, with the scopes it asks for
    const approved = (await pairer.request('device.pair.approve', { requestId: asks.details.requestId })) as any
    expect(approved).toMatchObject({ requestId: asks.details.requestId, device: { deviceId: tablet.deviceId, roles: ['operator'] } })
    const ok = await t.connect({ identity: tablet, headers: proxied })
    expect(ok.hello.auth.scopes.length).toBeGreaterThan(0)
    expect(((await pairer.request('device.pair.list', {})) as any).pending).toEqual([])
    expect(seen.filter((s) => s.to === 'reader')).toEqual([]) // pairing events need operator.pairing

    // a rejection does not stand against a paired device: the phone, paired over loopback, connects from afar too
    const local = await t.connect({ identity: phone })
    const remote = await t.connect({ identity: phone, headers: proxied })
    expect(remote.hello.auth.scopes.length).toBeGreaterThan(0)
    await Promise.all([ok.close(), local.close(), remote.close(), pairer.close(), reader.close()])
  })

  it('device.pair.list names the rejected devices still refused (loopdeskRejected); device.pair.remove lifts a rejection, the device asks again at once', async () => {
    t = await startTestGateway()
    const proxied = { 'X-Forwarded-For': '203.0.113.9' }
    const phone = generateNodeDeviceIdentity()
    const pairer = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.pairing'] })
    const seen: string[] = []
    pairer.onEvent((e) => e.event === 'device.pair.requested' && seen.push((e.payload as { requestId: string }).requestId))
    const first = (await t.connect({ identity: phone, headers: proxied }).catch((e) => e)).details.requestId as string
    expect(((await pairer.request('device.pair.list', {})) as any).loopdeskRejected).toEqual([])
    const before = Date.now()
    await pairer.request('device.pair.reject', { requestId: first })

    const list = (await pairer.request('device.pair.list', {})) as any
    expect(Object.keys(list).sort()).toEqual(['loopdeskRejected', 'paired', 'pending'])
    expect(list.pending).toEqual([])
    expect(list.paired.some((d: any) => d.deviceId === phone.deviceId)).toBe(false)
    expect(list.loopdeskRejected).toEqual([
      { deviceId: phone.deviceId, rejectedAtMs: expect.any(Number), untilMs: expect.any(Number), clientId: expect.any(String), platform: expect.any(String), remoteIp: '127.0.0.1' },
    ])
    const [r] = list.loopdeskRejected
    expect(r.rejectedAtMs).toBeGreaterThanOrEqual(before)
    expect(r.untilMs - r.rejectedAtMs).toBe(PAIRING_REJECTION_MS)
    expect((await t.connect({ identity: phone, headers: proxied }).catch((e) => e)).details.reason).toBe('rejected')

    // lifted: the device is not paired, yet remove answers ok and says so; its next connect opens a new request
    await expect(pairer.request('device.pair.remove', { deviceId: phone.deviceId.toUpperCase() })).resolves.toEqual({
      ok: true,
      deviceId: phone.deviceId,
      removed: true,
      loopdeskRejectionLifted: true,
    })
    expect(((await pairer.request('device.pair.list', {})) as any).loopdeskRejected).toEqual([])
    const asks = await t.connect({ identity: phone, headers: proxied }).catch((e) => e)
    expect(asks.details).toMatchObject({ code: 'PAIRING_REQUIRED', requestId: expect.any(String) })
    expect(asks.details.reason).toBeUndefined()
    expect(asks.details.requestId).not.toBe(first)
    await until(() => seen.length === 2)
    // the window's "Allow to ask again": loopdesk.device.pair.liftRejection forgets the rejection only
    await pairer.request('device.pair.reject', { requestId: asks.details.requestId })
    await expect(pairer.request('loopdesk.device.pair.liftRejection', { deviceId: phone.deviceId })).resolves.toEqual({ deviceId: phone.deviceId, lifted: true })
    expect(((await pairer.request('device.pair.list', {})) as any).loopdeskRejected).toEqual([])
    await expect(pairer.request('loopdesk.device.pair.liftRejection', { deviceId: phone.deviceId })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { code: 'PAIRING_REJECTION_NOT_FOUND' },
    })
    await expect(pairer.request('loopdesk.device.pair.liftRejection', {})).rejects.toMatchObject({ message: 'invalid loopdesk.device.pair.liftRejection params: /: must have required properties deviceId' })
    expect(pairer.hello.features.methods).toContain('loopdesk.device.pair.liftRejection')
    const third = await t.connect({ identity: phone, headers: proxied }).catch((e) => e)
    expect(third.details).toMatchObject({ code: 'PAIRING_REQUIRED', requestId: expect.any(String) })
    // nothing left to lift or remove: refused as before
    await pairer.request('device.pair.reject', { requestId: third.details.requestId })
    await pairer.request('device.pair.remove', { deviceId: phone.deviceId })
    await expect(pairer.request('device.pair.remove', { deviceId: phone.deviceId })).rejects.toMatchObject({ details: { code: 'DEVICE_NOT_PAIRED' } })

    // a paired device is not listed as rejected (a rejection does not stand against it)
    const laptop = generateNodeDeviceIdentity()
    const laptopAsks = (await t.connect({ identity: laptop, headers: proxied }).catch((e) => e)).details.requestId as string
    await pairer.request('device.pair.reject', { requestId: laptopAsks })
    await (await t.connect({ identity: laptop })).close() // pairs over loopback
    const after = (await pairer.request('device.pair.list', {})) as any
    expect(after.paired.some((d: any) => d.deviceId === laptop.deviceId)).toBe(true)
    expect(after.loopdeskRejected).toEqual([])
    await pairer.close()
  })

  it('device.token.rotate: in-band for the device itself, withheld for another; may narrow, never widen', async () => {
    t = await startTestGateway()
    const self = await t.connect({ scopes: ['operator.read', 'operator.write', 'operator.pairing'] })
    const old = self.hello.auth.deviceToken
    const riding = await t.connect({ token: undefined, deviceToken: old, scopes: ['operator.read'] })
    const ridingClosed = new Promise<number>((r) => riding.onClose((code) => r(code)))
    const rotated = await self.request('device.token.rotate', { deviceId: t.identity.deviceId, role: 'operator', scopes: ['operator.read', 'operator.pairing'] })
    expect(rotated).toMatchObject({ deviceId: t.identity.deviceId, role: 'operator', scopes: ['operator.read', 'operator.pairing'], tokenDelivery: 'in-band' })
    expect(rotated.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(rotated.token).not.toBe(old)
    expect(await ridingClosed).toBe(4001)
    expect(self.closed).toBe(false)
    expect((await t.connect({ token: undefined, deviceToken: old }).catch((e) => e)).details?.code).toBe('AUTH_DEVICE_TOKEN_MISMATCH')
    const viaNew = await t.connect({ token: undefined, deviceToken: rotated.token, scopes: ['operator.read', 'operator.write'] })
    expect(viaNew.hello.auth.scopes).toEqual(['operator.read'])
    await viaNew.close()

    await expect(self.request('device.token.rotate', { deviceId: t.identity.deviceId, role: 'operator', scopes: ['operator.admin'] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { code: 'AUTH_SCOPE_MISMATCH' },
    })
    const other = generateNodeDeviceIdentity()
    await (await t.connect({ identity: other })).close()
    const cross = await self.request('device.token.rotate', { deviceId: other.deviceId, role: 'operator' })
    expect(cross).toMatchObject({ deviceId: other.deviceId, tokenDelivery: 'withheld-cross-device' })
    expect(cross.token).toBeUndefined()
    await expect(self.request('device.token.rotate', { deviceId: 'f'.repeat(64), role: 'operator' })).rejects.toMatchObject({
      details: { code: 'DEVICE_TOKEN_NOT_FOUND' },
    })
    expect(self.hello.features.methods).toEqual(expect.arrayContaining(['device.token.rotate', 'device.token.revoke']))
    await self.close()
  })

  it("OpenClaw's client stores the device token and reconnects with it, also after the shared token went stale", async () => {
    t = await startTestGateway()
    const store = new Map<string, { token: string; scopes: string[] }>()
    const hostDeps = {
      signDevicePayload,
      publicKeyRawBase64UrlFromPem: publicKeyRawBase64Url,
      loadDeviceAuthToken: ({ deviceId, role }: { deviceId: string; role: string }) => store.get(`${deviceId}/${role}`) ?? null,
      storeDeviceAuthToken: ({ deviceId, role, token, scopes }: { deviceId: string; role: string; token: string; scopes: string[] }) =>
        void store.set(`${deviceId}/${role}`, { token, scopes }),
      clearDeviceAuthToken: ({ deviceId, role }: { deviceId: string; role: string }) => void store.delete(`${deviceId}/${role}`),
    }
    const connectErrors: Array<{ details?: any }> = []
    const run = (token: string | undefined) =>
      new Promise<{ client: GatewayClient; hello: any }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no hello-ok; connect errors: ${JSON.stringify(connectErrors.map((e) => e.details))}`)), 5000)
        const client: GatewayClient = new GatewayClient({
          url: t!.gw.url,
          token,
          deviceIdentity: t!.identity,
          hostDeps: hostDeps as never,
          scopes: ['operator.read', 'operator.write'],
          onHelloOk: (hello) => {
            clearTimeout(timer)
            resolve({ client, hello })
          },
          // the client retries by itself; keep the errors to assert on them
          onConnectError: (err) => void connectErrors.push(err as { details?: any }),
        })
        client.start()
      })
    const a = await run(TEST_TOKEN)
    const stored = store.get(`${t.identity.deviceId}/operator`)
    expect(stored?.token).toBe(a.hello.auth.deviceToken)
    a.client.stop()
    // no shared token at all: the stored device token is used
    const b = await run(undefined)
    expect(b.hello.auth.deviceToken).toBe(stored!.token)
    await expect(b.client.request('status', {})).resolves.toMatchObject({ ok: true })
    b.client.stop()
    // a stale shared token: AUTH_TOKEN_MISMATCH with the retry hint, then a retry with the device token
    const c = await run('stale-shared-token-0123456789')
    expect(c.hello.auth.deviceToken).toBe(stored!.token)
    expect(connectErrors.map((e) => e.details)).toEqual([expect.objectContaining({ code: 'AUTH_TOKEN_MISMATCH', canRetryWithDeviceToken: true })])
    c.client.stop()
    await until(() => t!.gw.connectionCount() === 0)
  })
})
