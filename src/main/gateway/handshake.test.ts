import net from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { generateKeyPairSync } from 'node:crypto'
import { createNodeDeviceProof, generateNodeDeviceIdentity, publicKeyRawBase64Url } from '../../cli/identity'
import { buildDeviceAuthPayloadV2 } from '../../shared/device-identity'
import { signDevicePayload } from '../../cli/identity'
import { RawClient, startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'

let t: TestGateway

beforeEach(async () => {
  t = await startTestGateway()
})
afterEach(async () => {
  await t.stop()
})

const client = { id: 'cli', version: '1.0.0', platform: 'Linux', mode: 'cli' }
const scopes = ['operator.read', 'operator.write']

function connectParams(nonce: string, ts: number, over: Record<string, unknown> = {}) {
  const device = createNodeDeviceProof(t.identity, {
    clientId: client.id,
    clientMode: client.mode,
    role: 'operator',
    scopes,
    signedAtMs: ts,
    token: TEST_TOKEN,
    nonce,
    platform: client.platform,
  })
  return { minProtocol: 3, maxProtocol: 4, client, role: 'operator', scopes, auth: { token: TEST_TOKEN }, device, ...over }
}

async function handshake(params: (nonce: string, ts: number) => unknown, headers?: Record<string, string>) {
  const c = RawClient.open(t.gw.url, headers)
  const ch = await c.challenge()
  c.send({ type: 'req', id: 'c1', method: 'connect', params: params(ch.payload.nonce, ch.payload.ts) })
  const res = await c.res('c1')
  return { c, res, ch }
}

describe('connect handshake', () => {
  it('sends connect.challenge first, then hello-ok with features, snapshot, auth and policy', async () => {
    const { c, res, ch } = await handshake((n, ts) => connectParams(n, ts))
    expect(c.frames[0]).toMatchObject({ type: 'event', event: 'connect.challenge' })
    expect(ch.seq).toBeUndefined()
    expect(typeof ch.payload.nonce).toBe('string')
    expect(Math.abs(ch.payload.ts - Date.now())).toBeLessThan(5000)
    expect(res.ok).toBe(true)
    const hello = res.payload
    expect(hello).toMatchObject({
      type: 'hello-ok',
      protocol: 4,
      server: { version: '0.1.0-test' },
      snapshot: {
        presence: [],
        sessionDefaults: { defaultAgentId: 'main', mainKey: 'main', mainSessionKey: 'agent:main:main', scope: 'per-sender' },
        stateVersion: { presence: 0, health: 0 },
      },
      auth: { role: 'operator', scopes },
      policy: { maxPayload: 25 * 1024 * 1024, maxBufferedBytes: 50 * 1024 * 1024, tickIntervalMs: 30_000 },
    })
    expect(hello.server.connId).toMatch(/[0-9a-f-]{36}/)
    expect(hello.features.methods).toEqual(expect.arrayContaining(['health', 'agent', 'agent.wait', 'chat.send', 'chat.abort']))
    expect(hello.features.events).toEqual(expect.arrayContaining(['agent', 'chat', 'tick', 'shutdown', 'sessions.changed']))
    // chat.send enforces expectedSessionRoutingContract, computed from sessionDefaults as scope|mainKey|defaultAgentId
    expect(hello.features.capabilities).toEqual(['chat-send-routing-contract'])
    // read + write scopes: not the user's paths (admin only, below)
    expect(hello.snapshot).not.toHaveProperty('stateDir')
    c.ws.close()
  })

  it("names the state dir and config path in hello only to an admin connection (a read-scoped one does not learn the user's paths)", async () => {
    const reader = await t.connect({ scopes: ['operator.read'] })
    expect(reader.hello.snapshot).not.toHaveProperty('stateDir')
    expect(reader.hello.snapshot).not.toHaveProperty('configPath')
    await reader.close()
    const admin = await t.connect({ scopes: ['operator.admin'] })
    expect(admin.hello.snapshot.stateDir).toBe(t.host.info.stateDir)
    await admin.close()
  })

  it('negotiates protocol 3 for a v3-only client', async () => {
    const { res } = await handshake((n, ts) => connectParams(n, ts, { minProtocol: 3, maxProtocol: 3 }))
    expect(res.payload.protocol).toBe(3)
  })

  it('rejects a protocol mismatch with INVALID_REQUEST and close 1002', async () => {
    const { c, res } = await handshake((n, ts) => connectParams(n, ts, { minProtocol: 5, maxProtocol: 6 }))
    expect(res.ok).toBe(false)
    expect(res.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'protocol mismatch', details: { expectedProtocol: 4 } })
    expect((await c.closed).code).toBe(1002)
    const old = await handshake((n, ts) => connectParams(n, ts, { minProtocol: 1, maxProtocol: 2 }))
    expect((await old.c.closed).code).toBe(1002)
  })

  it('rejects a missing token (AUTH_TOKEN_MISSING, 1008)', async () => {
    const { c, res } = await handshake((n, ts) => connectParams(n, ts, { auth: undefined }))
    expect(res.error).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'AUTH_TOKEN_MISSING' } })
    expect((await c.closed).code).toBe(1008)
  })

  it('rejects a wrong token (AUTH_TOKEN_MISMATCH, 1008) without echoing either token', async () => {
    const { c, res } = await handshake((n, ts) => connectParams(n, ts, { auth: { token: 'wrong-token-xxxxxxxxxxxxxxxx' } }))
    expect(res.error).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'AUTH_TOKEN_MISMATCH' } })
    expect(JSON.stringify(res)).not.toContain(TEST_TOKEN)
    expect(JSON.stringify(res)).not.toContain('wrong-token')
    expect((await c.closed).code).toBe(1008)
  })

  it('rejects a bad signature', async () => {
    const { c, res } = await handshake((n, ts) => {
      const p = connectParams(n, ts)
      const sig = Buffer.from(p.device.signature, 'base64url')
      sig[10] ^= 0xff
      return { ...p, device: { ...p.device, signature: sig.toString('base64url') } }
    })
    expect(res.error?.details?.code).toBe('DEVICE_AUTH_SIGNATURE_INVALID')
    expect((await c.closed).code).toBe(1008)
  })

  it('rejects a signature over different scopes than requested (scope escalation)', async () => {
    const { res } = await handshake((n, ts) => ({ ...connectParams(n, ts), scopes: ['operator.admin'] }))
    expect(res.error?.details?.code).toBe('DEVICE_AUTH_SIGNATURE_INVALID')
  })

  it('rejects a device id that does not match the key', async () => {
    const { res } = await handshake((n, ts) => {
      const p = connectParams(n, ts)
      return { ...p, device: { ...p.device, id: 'a'.repeat(64) } }
    })
    expect(res.error?.details?.code).toBe('DEVICE_AUTH_DEVICE_ID_MISMATCH')
  })

  it('rejects a non-Ed25519 public key', async () => {
    const { res } = await handshake((n, ts) => {
      const p = connectParams(n, ts)
      return { ...p, device: { ...p.device, publicKey: 'not-a-key' } }
    })
    expect(res.error?.details?.code).toBe('DEVICE_AUTH_PUBLIC_KEY_INVALID')
  })

  it('rejects a nonce that is not the challenge nonce', async () => {
    const { c, res } = await handshake((_n, ts) => connectParams('some-other-nonce', ts))
    expect(res.error?.details?.code).toBe('DEVICE_AUTH_NONCE_MISMATCH')
    expect((await c.closed).code).toBe(1008)
  })

  it('rejects a replayed connect (captured frame sent on a new connection)', async () => {
    let captured: any
    const first = await handshake((n, ts) => (captured = connectParams(n, ts)))
    expect(first.res.ok).toBe(true)
    const replay = RawClient.open(t.gw.url)
    await replay.challenge()
    replay.send({ type: 'req', id: 'c1', method: 'connect', params: captured })
    const res = await replay.res('c1')
    expect(res.error?.details?.code).toBe('DEVICE_AUTH_NONCE_MISMATCH')
    expect((await replay.closed).code).toBe(1008)
    first.c.ws.close()
  })

  it('rejects a signature outside ±2 min (skew)', async () => {
    const late = await handshake((n) => connectParams(n, Date.now() - 3 * 60_000))
    expect(late.res.error?.details?.code).toBe('DEVICE_AUTH_SIGNATURE_EXPIRED')
    const early = await handshake((n) => connectParams(n, Date.now() + 3 * 60_000))
    expect(early.res.error?.details?.code).toBe('DEVICE_AUTH_SIGNATURE_EXPIRED')
    const ok = await handshake((n) => connectParams(n, Date.now() - 90_000))
    expect(ok.res.ok).toBe(true)
    ok.c.ws.close()
  })

  it('accepts the legacy v2 payload and a PEM public key', async () => {
    const id = generateNodeDeviceIdentity()
    const { res, c } = await handshake((nonce, ts) => {
      const payload = buildDeviceAuthPayloadV2({
        deviceId: id.deviceId,
        clientId: client.id,
        clientMode: client.mode,
        role: 'operator',
        scopes,
        signedAtMs: ts,
        token: TEST_TOKEN,
        nonce,
      })
      return {
        ...connectParams(nonce, ts),
        device: { id: id.deviceId, publicKey: id.publicKeyPem, signature: signDevicePayload(id.privateKeyPem, payload), signedAt: ts, nonce },
      }
    })
    expect(res.ok).toBe(true)
    expect(res.payload.auth.scopes).toEqual(scopes)
    c.ws.close()
  })

  it('v3 signs normalized platform/deviceFamily (case-insensitive)', async () => {
    const { res, c } = await handshake((nonce, ts) => {
      const device = createNodeDeviceProof(t.identity, {
        clientId: client.id,
        clientMode: client.mode,
        role: 'operator',
        scopes,
        signedAtMs: ts,
        token: TEST_TOKEN,
        nonce,
        platform: '  LINUX ',
        deviceFamily: 'Desktop',
      })
      return { ...connectParams(nonce, ts), client: { ...client, platform: 'linux', deviceFamily: 'DESKTOP' }, device }
    })
    expect(res.ok).toBe(true)
    c.ws.close()
  })

  it('clears scopes for a device-less shared-token client: only health works', async () => {
    const conn = await t.connect({ identity: null, scopes: ['operator.admin'] })
    expect(conn.hello.auth).toEqual({ role: 'operator', scopes: [] })
    await expect(conn.request('health')).resolves.toMatchObject({ ok: true })
    await expect(conn.request('status')).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'missing scope: operator.read' })
    await conn.close()
  })

  it('reports a missing scope as INVALID_REQUEST to a v3 client (FORBIDDEN is v4 only)', async () => {
    const conn = await t.connect({ identity: null, maxProtocol: 3 })
    expect(conn.hello.protocol).toBe(3)
    await expect(conn.request('status')).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'missing scope: operator.read',
      details: { code: 'MISSING_SCOPE', missingScope: 'operator.read' },
    })
    await conn.close()
  })

  it('drops unknown scopes and keeps the known ones', async () => {
    const conn = await t.connect({ scopes: ['operator.read', 'operator.pairing', 'operator.talk.secrets', 'bogus'] })
    expect(conn.hello.auth.scopes).toEqual(['operator.read', 'operator.pairing'])
    await conn.close()
  })

  it('rejects a first frame that is not connect (INVALID_REQUEST + 1008)', async () => {
    const c = RawClient.open(t.gw.url)
    await c.challenge()
    c.send({ type: 'req', id: 'x', method: 'health' })
    const res = await c.res('x')
    expect(res.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'invalid handshake: first request must be connect' })
    expect((await c.closed).code).toBe(1008)
  })

  it('closes on garbage, binary and non-request first frames with 1008 and no response (as OpenClaw)', async () => {
    for (const bad of ['not json', Buffer.from([1, 2, 3]), '[]', '{"type":"event","event":"x"}', '{"type":"req","id":"r1"}']) {
      const c = RawClient.open(t.gw.url)
      await c.challenge()
      const frames: unknown[] = []
      c.ws.on('message', (d) => frames.push(JSON.parse(d.toString())))
      c.ws.send(bad)
      expect(await c.closed).toEqual({ code: 1008, reason: 'invalid handshake: first request must be connect' })
      expect(frames).toEqual([])
    }
  })

  it('rejects invalid connect params (closed schema) with INVALID_REQUEST + 1008', async () => {
    const { c, res } = await handshake((n, ts) => ({ ...connectParams(n, ts), extra: true }))
    expect(res.error?.message).toMatch(/^invalid connect params: .*unexpected property 'extra'/)
    expect((await c.closed).code).toBe(1008)
    const bad = await handshake((n, ts) => connectParams(n, ts, { client: { ...client, id: 'not-a-client' } }))
    expect(bad.res.error?.message).toMatch(/invalid connect params/)
  })

  it('rejects a node without a device identity as OpenClaw does (NOT_PAIRED "device identity required", 1008)', async () => {
    for (const auth of [{ token: TEST_TOKEN }, undefined, { deviceToken: 'x'.repeat(43) }]) {
      const { c, res } = await handshake((n, ts) => connectParams(n, ts, { role: 'node', device: undefined, scopes: [], auth }))
      expect(res.error, JSON.stringify(auth)).toEqual({ code: 'NOT_PAIRED', message: 'device identity required', details: { code: 'DEVICE_IDENTITY_REQUIRED' } })
      expect(await c.closed).toEqual({ code: 1008, reason: 'device identity required' })
    }
    // a wrong shared token stays the token error
    const wrong = await handshake((n, ts) => connectParams(n, ts, { role: 'node', device: undefined, auth: { token: 'wrong' } }))
    expect(wrong.res.error).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'AUTH_TOKEN_MISMATCH' } })
  })

  it('refuses the node role itself once a node presents a device and its token passes; other roles at once', async () => {
    const node = (token: string) => (n: string, ts: number) => {
      const device = createNodeDeviceProof(t.identity, { clientId: client.id, clientMode: client.mode, role: 'node', scopes: [], signedAtMs: ts, token, nonce: n, platform: client.platform })
      return connectParams(n, ts, { role: 'node', scopes: [], device, auth: { token } })
    }
    const { c, res } = await handshake(node(TEST_TOKEN))
    expect(res.error).toEqual({ code: 'INVALID_REQUEST', message: 'unauthorized role: node', details: { code: 'UNAUTHORIZED_ROLE', role: 'node' } })
    expect((await c.closed).code).toBe(1008)
    // not before the token: a wrong one is the token error
    expect((await handshake(node('wrong'))).res.error?.details).toMatchObject({ code: 'AUTH_TOKEN_MISMATCH' })
    const worker = await handshake((n, ts) => connectParams(n, ts, { role: 'worker', device: undefined, auth: undefined }))
    expect(worker.res.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'unauthorized role: worker', details: { code: 'UNAUTHORIZED_ROLE' } })
  })

  it('closes an oversized pre-auth frame with 1009', async () => {
    const c = RawClient.open(t.gw.url)
    await c.challenge()
    c.send({ type: 'req', id: 'big', method: 'connect', params: { pad: 'x'.repeat(70 * 1024) } })
    expect(await c.closed).toEqual({ code: 1009, reason: 'preauth payload too large' })
  })

  it('accepts frames above 64 KiB after hello (25 MiB limit)', async () => {
    const conn = await t.connect()
    // a 1 MiB message reaches the handler (and fails only its own schema, not the frame limit)
    const err = await conn.request('chat.history', { sessionKey: 'agent:main:main', pad: 'x'.repeat(1024 * 1024) }).catch((e) => e)
    expect(err.code).toBe('INVALID_REQUEST')
    expect(err.message).toMatch(/unexpected property 'pad'/)
    await conn.close()
  })

  it('closes a connection that never sends connect (handshake timeout)', async () => {
    const quick = await startTestGateway({}, { limits: { handshakeTimeoutMs: 200 } })
    try {
      const c = RawClient.open(quick.gw.url)
      await c.challenge()
      const closed = await c.closed
      expect(closed.code).toBe(1008)
      expect(closed.reason).toBe('handshake timeout')
    } finally {
      await quick.stop()
    }
  })

  it('a full pending-handshake budget evicts its oldest idle socket instead of refusing the newcomer', async () => {
    const small = await startTestGateway({}, { limits: { maxPreauthPerIp: 3 } })
    try {
      const pending = [RawClient.open(small.gw.url), RawClient.open(small.gw.url), RawClient.open(small.gw.url)]
      await Promise.all(pending.map((c) => c.challenge()))
      // a fourth idle socket gets in; the oldest goes, so the address still holds 3
      const extra = RawClient.open(small.gw.url)
      await extra.challenge()
      expect(await pending[0].closed).toEqual({ code: 1008, reason: 'evicted: too many pending connections from this address' })
      // the client that speaks at once gets in while the budget is full of idle sockets
      const conn = await small.connect()
      expect(conn.hello.type).toBe('hello-ok')
      // one newcomer, one eviction
      expect(await pending[1].closed).toMatchObject({ code: 1008 })
      expect(pending[2].ws.readyState).toBe(pending[2].ws.OPEN)
      await conn.close()
      for (const c of [...pending, extra]) c.ws.close()
    } finally {
      await small.stop()
    }
  })

  it('an evicted socket is dropped at once, not left closing for a peer that never answers the close', async () => {
    const small = await startTestGateway({}, { limits: { maxPreauthPerIp: 2 } })
    try {
      // a raw upgrade whose peer never reads frames, so never answers a close frame
      const raw = net.connect(small.gw.port, '127.0.0.1')
      const upgraded = new Promise<void>((resolve) => raw.once('data', () => resolve()))
      const gone = new Promise<number>((resolve) => raw.once('close', () => resolve(Date.now())))
      raw.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${Buffer.alloc(16, 1).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
      await upgraded
      const others = [RawClient.open(small.gw.url), RawClient.open(small.gw.url)]
      await Promise.all(others.map((c) => c.challenge()))
      const evictedAt = Date.now()
      const closedAt = await Promise.race([gone, new Promise<number>((r) => setTimeout(() => r(Number.POSITIVE_INFINITY), 2000))])
      expect(closedAt - evictedAt).toBeLessThan(1000)
      for (const c of others) c.ws.close()
    } finally {
      await small.stop()
    }
  })

  it('sockets already closed after one frame, whose peers never answer the close, do not keep the budget full', async () => {
    const small = await startTestGateway({}, { limits: { maxPreauthPerIp: 2 } })
    const raws: net.Socket[] = []
    try {
      for (let i = 0; i < 2; i++) {
        // a raw upgrade that sends one junk text frame (the gateway closes it) and never reads the close frame
        const raw = net.connect(small.gw.port, '127.0.0.1')
        raws.push(raw)
        raw.on('error', () => {})
        const upgraded = new Promise<void>((resolve) => raw.once('data', () => resolve()))
        raw.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${Buffer.alloc(16, i + 1).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
        await upgraded
        raw.write(Buffer.from([0x81, 0x81, 0, 0, 0, 0, 0x78])) // masked (zero mask) text frame "x"
      }
      await new Promise((r) => setTimeout(r, 100))
      const conn = await small.connect()
      expect(conn.hello.type).toBe('hello-ok')
      await conn.close()
    } finally {
      for (const r of raws) r.destroy()
      await small.stop()
    }
  })

  it("a foreign web page's pending sockets use their own budget: the address's clients still get in", async () => {
    const small = await startTestGateway({}, { limits: { maxPreauthPerIp: 3 } })
    try {
      const evil = { Origin: 'http://evil.example' }
      const local = RawClient.open(small.gw.url)
      await local.challenge()
      const pending = [1, 2, 3, 4].map(() => RawClient.open(small.gw.url, evil))
      await Promise.all(pending.map((c) => c.challenge()))
      // the page's fourth socket evicts its own first one, never the address's idle socket
      expect(await pending[0].closed).toMatchObject({ code: 1008 })
      expect(local.ws.readyState).toBe(local.ws.OPEN)
      const conn = await small.connect()
      expect(conn.hello.type).toBe('hello-ok')
      await conn.close()
      for (const c of [local, ...pending]) c.ws.close()
    } finally {
      await small.stop()
    }
  })

  it('closes after 10 consecutive unauthorized calls', async () => {
    const conn = await t.connect({ scopes: ['operator.read'] })
    const errors: string[] = []
    for (let i = 0; i < 9; i++) errors.push((await conn.request('agent', { message: 'x', idempotencyKey: `k${i}` }).catch((e) => e.code)) as string)
    expect(errors.every((c) => c === 'FORBIDDEN')).toBe(true)
    // an authorized call resets the streak
    await conn.request('status')
    for (let i = 0; i < 9; i++) await conn.request('agent', { message: 'x', idempotencyKey: `k${i}` }).catch(() => {})
    expect(conn.closed).toBe(false)
    await conn.request('agent', { message: 'x', idempotencyKey: 'last' }).catch(() => {})
    await new Promise((r) => setTimeout(r, 100))
    expect(conn.closed).toBe(true)
    expect(conn.closeCode).toBe(1008)
  })

  it('rejects a foreign browser Origin (CONTROL_UI_ORIGIN_NOT_ALLOWED) and accepts its own origin', async () => {
    const foreign = await t.connect({ origin: 'http://evil.example' }).catch((e) => e)
    expect(foreign.code).toBe('INVALID_REQUEST')
    expect(foreign.details.code).toBe('CONTROL_UI_ORIGIN_NOT_ALLOWED')
    expect(foreign.kind).toBe('auth')
    const ownPort = await t.connect({ origin: `http://127.0.0.1:${t.gw.port + 1}` }).catch((e) => e)
    expect(ownPort.details?.code).toBe('CONTROL_UI_ORIGIN_NOT_ALLOWED')
    for (const origin of [`http://127.0.0.1:${t.gw.port}`, `http://localhost:${t.gw.port}`]) {
      const ok = await t.connect({ origin, clientId: 'openclaw-control-ui', clientMode: 'ui' })
      expect(ok.hello.type).toBe('hello-ok')
      await ok.close()
    }
  })

  it('accepts an allow-listed origin', async () => {
    const g = await startTestGateway({}, { allowedOrigins: ['http://localhost:5173'] })
    try {
      const ok = await g.connect({ origin: 'http://localhost:5173' })
      expect(ok.hello.type).toBe('hello-ok')
      await ok.close()
    } finally {
      await g.stop()
    }
  })

  it('remote (proxied) devices must have been paired (over loopback, or approved) first', async () => {
    const { statSync } = await import('node:fs')
    const { join } = await import('node:path')
    const fresh = generateNodeDeviceIdentity()
    const proxied = { 'X-Forwarded-For': '203.0.113.7' }
    const refused = await t.connect({ identity: fresh, headers: proxied }).catch((e) => e)
    expect(refused.code).toBe('NOT_PAIRED')
    expect(refused.details.code).toBe('PAIRING_REQUIRED')
    // a device-less client over a proxy only gets health (scopes cleared), it is not refused
    const deviceless = await t.connect({ identity: null, headers: proxied })
    expect(deviceless.hello.auth.scopes).toEqual([])
    await deviceless.close()
    // pair by connecting once locally, then the proxied connection works
    const local = await t.connect({ identity: fresh })
    await local.close()
    const remote = await t.connect({ identity: fresh, headers: proxied })
    expect(remote.hello.auth.scopes.length).toBe(4)
    await remote.close()
    expect(statSync(join(t.stateDir, 'gateway', 'devices.json')).mode & 0o777).toBe(0o600)
  })

  it('the CLI client maps auth failures to kind "auth"', async () => {
    const err = await t.connect({ token: 'definitely-wrong-token-123' }).catch((e) => e)
    expect(err.kind).toBe('auth')
    expect(err.details.code).toBe('AUTH_TOKEN_MISMATCH')
  })

  it('a key generated outside our helpers (raw Node keypair) also works', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString()
    const privateKeyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
    const raw = Buffer.from(publicKeyRawBase64Url(publicKeyPem), 'base64url')
    const { createHash } = await import('node:crypto')
    const deviceId = createHash('sha256').update(raw).digest('hex')
    const conn = await t.connect({ identity: { deviceId, publicKeyPem, privateKeyPem } })
    expect(conn.hello.auth.scopes.length).toBe(4)
    await conn.close()
  })
})
