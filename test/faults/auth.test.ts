// Auth against the headless gateway (child process, verbose logging): no token, a wrong token, a bad
// device signature, a replayed nonce, an expired signature, a foreign browser Origin — all rejected with a
// structured error and a 1008 close; a token-only client gets no scopes and is cut off when it keeps
// trying; the gateway binds to loopback only unless a token was configured; and no secret (gateway token,
// provider API key, device private key) ever shows up in the gateway's output, the state dir or an error
// message a client received — even when the provider echoes the key back in its error.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../fixtures/model-server'
import { createNodeDeviceProof, generateNodeDeviceIdentity } from '../../src/cli/identity'
import { openClient, testIdentity } from './support/client'
import { cliArgv, ROOT } from './support/cli-bundle'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { findSecrets, LogSink } from './support/logs'
import { lastUserText, newApiKey, newToken, suiteConfig, tempStateDir, writeConfig } from './support/setup'

const token = newToken()
const apiKey = newApiKey()
const logs = new LogSink()
const seen: Array<[string, string]> = []
let server: ModelServer
let stateDir: string
let gw: GatewayChild

function script(req: CapturedRequest): Turn {
  // a provider that echoes the credential it got in its error (some do, partially)
  if (lastUserText(req).includes('AUTHFAIL')) {
    return { status: 401, message: `Incorrect API key provided: ${String(req.headers.authorization ?? req.headers['x-api-key'] ?? '')}` }
  }
  return { text: 'hi', chunks: 1 }
}

beforeAll(async () => {
  server = await startModelServer()
  server.script(script)
  stateDir = tempStateDir('auth')
  writeConfig(stateDir, suiteConfig(server, { apiKey }))
  gw = await startGatewayChild({ stateDir, token, logs, label: 'auth', args: ['--verbose'] })
})
afterAll(async () => {
  await gw?.stop()
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

interface Outcome {
  res?: any
  close: { code: number; reason: string }
}

/** Opens a socket, answers the challenge with `build(nonce)` as connect params, reports the answer and the close. */
function rawConnect(url: string, build: (nonce: string, ts: number) => unknown, headers?: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false })
    let res: any
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString())
      if (f.type === 'event' && f.event === 'connect.challenge') {
        ws.send(JSON.stringify({ type: 'req', id: 'c1', method: 'connect', params: build(f.payload.nonce, f.payload.ts) }))
      } else if (f.type === 'res' && f.id === 'c1') {
        res = f
        if (f.ok) ws.close(1000)
      }
    })
    ws.on('error', () => undefined)
    ws.on('unexpected-response', (_req, r) => reject(new Error(`HTTP ${r.statusCode}`)))
    ws.on('close', (code, reason) => resolve({ res, close: { code, reason: reason.toString() } }))
  })
}

const SCOPES = ['operator.admin', 'operator.read', 'operator.write', 'operator.approvals']
const base = (auth?: unknown) => ({
  minProtocol: 3,
  maxProtocol: 4,
  client: { id: 'test', version: '1', platform: 'linux', mode: 'test' },
  role: 'operator',
  scopes: SCOPES,
  ...(auth === undefined ? {} : { auth }),
})

function signed(nonce: string, o: { tok?: string; signedAt?: number; identity?: ReturnType<typeof testIdentity>; signNonce?: string } = {}) {
  const id = o.identity ?? testIdentity()
  const signedAtMs = o.signedAt ?? Date.now()
  const device = createNodeDeviceProof(id, {
    clientId: 'test',
    clientMode: 'test',
    role: 'operator',
    scopes: SCOPES,
    signedAtMs,
    token: o.tok ?? token,
    nonce: o.signNonce ?? nonce,
    platform: 'linux',
  })
  return { ...base({ token: o.tok ?? token }), device }
}

function expectRejected(o: Outcome, detail: string) {
  expect(o.res?.ok, JSON.stringify(o.res)).toBe(false)
  expect(o.res.error.details?.code).toBe(detail)
  expect(typeof o.res.error.message).toBe('string')
  expect(o.close.code).toBe(1008)
  seen.push([`connect ${detail}`, JSON.stringify(o.res) + o.close.reason])
}

/** Listening TCP sockets on `port` → their local IPv4/IPv6 address (from /proc/net/tcp*). */
function listeners(port: number): string[] {
  const out: string[] = []
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = fs.readFileSync(f, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      if (cols.length < 4 || cols[3] !== '0A') continue
      const [addr, p] = cols[1].split(':')
      if (p !== hexPort) continue
      out.push(addr === '0100007F' ? '127.0.0.1' : /^0+$/.test(addr) ? (addr.length > 8 ? '::' : '0.0.0.0') : addr)
    }
  }
  return out
}

function runCli(args: string[], env: NodeJS.ProcessEnv, label: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgv(args), { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      logs.add(label, out)
      resolve({ code, out })
    })
  })
}

describe('auth', () => {
  it('rejects no token, a wrong token, bad/expired/mismatched device proofs and a replayed nonce', async () => {
    expectRejected(await rawConnect(gw.url, () => base()), 'AUTH_TOKEN_MISSING')
    expectRejected(await rawConnect(gw.url, () => base({ token: '' })), 'AUTH_TOKEN_MISSING')
    expectRejected(await rawConnect(gw.url, () => base({ token: `${token}x` })), 'AUTH_TOKEN_MISMATCH')
    expectRejected(await rawConnect(gw.url, () => base({ token: 'short' })), 'AUTH_TOKEN_MISMATCH')
    // a wrong token with an otherwise valid device proof
    expectRejected(await rawConnect(gw.url, (n) => signed(n, { tok: 'not-the-token-at-all-0123' })), 'AUTH_TOKEN_MISMATCH')

    // signature by another key over the right payload, presented as this device
    const other = generateNodeDeviceIdentity()
    expectRejected(
      await rawConnect(gw.url, (n) => {
        const p = signed(n)
        return { ...p, device: { ...p.device, signature: signed(n, { identity: other }).device.signature } }
      }),
      'DEVICE_AUTH_SIGNATURE_INVALID',
    )
    // a flipped byte in a valid signature
    expectRejected(
      await rawConnect(gw.url, (n) => {
        const p = signed(n)
        const sig = Buffer.from(p.device.signature, 'base64url')
        sig[10] ^= 0xff
        return { ...p, device: { ...p.device, signature: sig.toString('base64url') } }
      }),
      'DEVICE_AUTH_SIGNATURE_INVALID',
    )
    // the device id of another key
    expectRejected(
      await rawConnect(gw.url, (n) => {
        const p = signed(n)
        return { ...p, device: { ...p.device, id: other.deviceId } }
      }),
      'DEVICE_AUTH_DEVICE_ID_MISMATCH',
    )
    // signed 10 minutes ago
    expectRejected(await rawConnect(gw.url, (n) => signed(n, { signedAt: Date.now() - 10 * 60_000 })), 'DEVICE_AUTH_SIGNATURE_EXPIRED')

    // replay: a connect frame that authenticated once, sent again on a new connection (new challenge)
    let captured: unknown
    const first = await rawConnect(gw.url, (n) => (captured = signed(n)))
    expect(first.res?.ok).toBe(true)
    expectRejected(await rawConnect(gw.url, () => captured), 'DEVICE_AUTH_NONCE_MISMATCH')
    // a proof signed for an old nonce but claiming the new one
    expectRejected(
      await rawConnect(gw.url, (n) => {
        const p = captured as ReturnType<typeof signed>
        return { ...p, device: { ...p.device, nonce: n } }
      }),
      'DEVICE_AUTH_SIGNATURE_INVALID',
    )
  })

  it('rejects foreign browser origins and accepts its own', async () => {
    for (const origin of ['https://evil.example', `http://localhost:${gw.port + 1}`, 'null', `http://127.0.0.1.evil.example:${gw.port}`, 'file://']) {
      expectRejected(await rawConnect(gw.url, (n) => signed(n), { Origin: origin }), 'CONTROL_UI_ORIGIN_NOT_ALLOWED')
    }
    const own = await rawConnect(gw.url, (n) => signed(n), { Origin: `http://127.0.0.1:${gw.port}` })
    expect(own.res?.ok).toBe(true)
  })

  it('a token-only client (no device) gets no scopes and is cut off when it keeps calling', async () => {
    const c = await openClient(gw.url, token, { identity: null })
    await expect(c.request('health')).resolves.toMatchObject({ ok: true })
    const errs: string[] = []
    for (let i = 0; i < 12 && !c.conn.closed; i++) {
      await c.request('agent', { message: 'x', idempotencyKey: `nope-${i}` }).catch((e: { code?: string; message: string }) => errs.push(`${e.code}`))
    }
    expect(errs.slice(0, 10)).toEqual(Array(10).fill('FORBIDDEN'))
    await expect.poll(() => c.conn.closeCode, { timeout: 5000 }).toBe(1008)
  })

  it('a provider error that echoes the API key does not reach the user or the logs with the key', async () => {
    const c = await openClient(gw.url, token)
    const r = await c.agent({ message: 'AUTHFAIL please', idempotencyKey: 'authfail', sessionKey: 'agent:main:authfail' }).final
    const chat = c.chatEvents('authfail').find((e) => e.state === 'error')
    expect(server.requests.some((q) => JSON.stringify(q.headers).includes(apiKey))).toBe(true) // the key was really sent
    // the call completes with the provider's error as an isError payload (the run's outcome is error)
    expect(r.ok).toBe(true)
    expect(JSON.stringify(r.payload?.result?.payloads)).toMatch(/401/)
    expect(chat?.errorMessage).toMatch(/401/)
    seen.push(['401 chat', chat?.errorMessage ?? ''], ['401 final', JSON.stringify(r)])
    const hist = await c.request('chat.history', { sessionKey: 'agent:main:authfail' })
    seen.push(['401 history', JSON.stringify(hist)])
    seen.push(['config.get', JSON.stringify(await c.request('config.get', {}))])
    seen.push(['status', JSON.stringify(await c.request('status', {}))])
    seen.push(['hello', JSON.stringify(c.conn.hello)])
    await c.close()
  })

  it('binds to loopback only, unless a token was configured', async () => {
    expect(listeners(gw.port)).toEqual(['127.0.0.1'])

    // --bind lan with only a generated token: refused, nothing listens
    const lanDir = tempStateDir('auth-lan')
    writeConfig(lanDir, suiteConfig(server, { apiKey }))
    const refused = await runCli(['gateway', 'run', '--port', '0', '--bind', 'lan'], { LOOPDESK_STATE_DIR: lanDir }, 'lan-refused')
    expect(refused.code).not.toBe(0)
    expect(refused.out).toMatch(/token/i)
    expect(fs.existsSync(`${lanDir}/gateway/gateway.json`)).toBe(false)
    // the same through the config file
    writeConfig(lanDir, { ...suiteConfig(server, { apiKey }), gateway: { bind: 'all' } })
    const refused2 = await runCli(['gateway', 'run', '--port', '0'], { LOOPDESK_STATE_DIR: lanDir }, 'lan-refused-config')
    expect(refused2.code).not.toBe(0)
    expect(fs.existsSync(`${lanDir}/gateway/gateway.json`)).toBe(false)

    // with a configured token it binds beyond loopback
    const lanToken = newToken()
    writeConfig(lanDir, { ...suiteConfig(server, { apiKey }), gateway: { bind: 'lan', auth: { token: lanToken } } })
    const lan = await startGatewayChild({ stateDir: lanDir, token: lanToken, logs, label: 'lan', env: { LOOPDESK_GATEWAY_TOKEN: '' } })
    try {
      expect(listeners(lan.port)).toEqual(['0.0.0.0'])
      const c = await openClient(lan.url, lanToken)
      await expect(c.request('health')).resolves.toMatchObject({ ok: true })
      await c.close()
    } finally {
      await lan.stop()
      fs.rmSync(lanDir, { recursive: true, force: true })
    }
  })

  it('no secret in the gateway output, the state dir or any error a client saw', () => {
    const privateKeyBody = testIdentity().privateKeyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')
    const findings = findSecrets([token, apiKey, privateKeyBody], { logs, texts: seen, stateDirs: [stateDir] })
    console.log(`FAULTS auth: rejected=${seen.filter(([w]) => w.startsWith('connect')).length} scanned=${logs.bytes}B of gateway output + ${seen.length} client-visible texts, secretsFound=${findings.length}`)
    expect(findings).toEqual([])
    // the gateway did log the rejections (so there was something to scan)
    expect(logs.text()).toMatch(/connect rejected/)
  })
})
