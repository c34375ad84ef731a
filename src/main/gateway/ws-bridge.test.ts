// The renderer's WebSocket Bridge against a real gateway (Node's WebCrypto stands in for the browser's).
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Bridge } from '../../shared/bridge'
import type { AnyEvent } from '../../shared/events'
import { REJECTION_LIFTED_EVENT, type PairingEvent } from '../../shared/pairing'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { FakeHost } from './fake-host'
import { startGateway } from './server'
import { startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'
import { until as pollUntil } from '../../../test/fixtures/until'

// The bridge belongs to the renderer's TypeScript project (DOM lib); tsconfig.node.json is composite and
// may not pull it in, so it is loaded by path at runtime and typed here by the surface the test uses.
interface SocketLike {
  readonly readyState: number
}
interface WsBridge extends Bridge {
  readonly connection: { state: string; attempt: number; scopes?: string[] }
  close(): void
}
interface WsBridgeOptions {
  url: string
  token?: string
  socketFactory?: (url: string) => SocketLike
  backoffInitialMs?: number
  backoffMaxMs?: number
}
const bridgeModule = new URL('../../renderer/src/bridge/ws-bridge.ts', import.meta.url).href
const { connectWsBridge, createWsBridge } = (await import(/* @vite-ignore */ bridgeModule)) as {
  connectWsBridge(o: WsBridgeOptions): Promise<WsBridge>
  createWsBridge(o: WsBridgeOptions): WsBridge
}

let t: TestGateway | undefined
let bridge: WsBridge | undefined
afterEach(async () => {
  bridge?.close()
  bridge = undefined
  await t?.stop()
  t = undefined
})

/** Node `ws` sockets presenting the page's Origin, like a browser on http://127.0.0.1:<port>/ would. */
const browserSocket = (origin: string) => (url: string) => new WebSocket(url, { headers: { Origin: origin } }) as unknown as SocketLike

const until = (cond: () => boolean, ms = 5000) => pollUntil(cond, ms)

describe('ws-bridge against the gateway', () => {
  it('connects with a WebCrypto device identity, runs (resolves with the ack) and streams filtered events', async () => {
    t = await startTestGateway({ withTool: true })
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl) })
    expect(bridge.transport).toBe('ws')
    expect(bridge.connection.state).toBe('open')
    expect(bridge.connection.scopes).toEqual(['operator.admin', 'operator.read', 'operator.write', 'operator.approvals'])

    const mine: AnyEvent[] = []
    const chatOnly: AnyEvent[] = []
    const other: AnyEvent[] = []
    bridge.subscribe({ sessionKey: 'agent:main:main' }, (e) => mine.push(e))
    bridge.subscribe({ sessionKey: 'agent:main:main', events: ['chat'] }, (e) => chatOnly.push(e))
    bridge.subscribe({ sessionKey: 'agent:main:other' }, (e) => other.push(e))

    const ack = await bridge.run({ message: 'hi', sessionKey: 'agent:main:main', idempotencyKey: 'wb-1' })
    expect(ack).toMatchObject({ ok: true, data: { runId: 'wb-1', status: 'accepted' } })
    await until(() => chatOnly.some((e) => e.event === 'chat' && e.payload.state === 'final'))
    expect(mine.some((e) => e.event === 'agent' && e.payload.stream === 'tool')).toBe(true) // caps: tool-events
    // the browser UI (client openclaw-control-ui) renders tool output: it gets results at verbose off too
    const result = mine.find((e) => e.event === 'agent' && e.payload.stream === 'tool' && (e.payload.data as { phase?: string }).phase === 'result')
    expect((result?.payload as { data: { result?: unknown } }).data.result).toBe('contents')
    expect(chatOnly.every((e) => e.event === 'chat')).toBe(true)
    expect(other).toEqual([])
    // sessions.subscribe was issued on connect, so sessions.changed arrives
    expect(mine.some((e) => e.event === 'sessions.changed')).toBe(true)

    await expect(bridge.wait({ runId: 'wb-1', timeoutMs: 1000 })).resolves.toMatchObject({ ok: true, data: { status: 'ok' } })
    await expect(bridge.health({})).resolves.toMatchObject({ ok: true, data: { ok: true } })
    // handler errors come back as Result errors
    await expect(bridge.modelsList({})).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'NOT_FOUND' } } })
  })

  it('the window takes no second copies: session.message, sessions.changed {phase: "message"} and session.tool stay out', async () => {
    t = await startTestGateway({ withTool: true })
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl) })
    const seen: AnyEvent[] = []
    bridge.subscribe({}, (e) => seen.push(e))
    // the same gateway sends them to an OpenClaw client subscribed as the window is (sessions.subscribe on connect);
    // a v3 one gets the most (its sessions.changed {phase: "message"} too)
    const openclaw = await t.connect({ minProtocol: 3, maxProtocol: 3 })
    await openclaw.request('sessions.subscribe', {})
    const theirs: string[] = []
    openclaw.onEvent((e) => theirs.push(e.event))
    await until(() => t!.host.calls.filter((c) => c.method === 'sessions.subscribe').length === 2)

    await bridge.run({ message: 'hi', sessionKey: 'agent:main:main', idempotencyKey: 'wb-copies' })
    t.host.emitSessionMessage({
      sessionKey: 'agent:main:main',
      message: { role: 'user', content: [{ type: 'text', text: 'hi' }], __openclaw: { id: 'm1', seq: 1 } },
      messageId: 'm1',
      messageSeq: 1,
      ts: Date.now(),
    })
    await until(() => seen.some((e) => e.event === 'chat' && e.payload.state === 'final') && theirs.includes('session.message') && theirs.includes('session.tool'))
    await new Promise((r) => setTimeout(r, 50))
    expect(theirs.filter((e) => e === 'sessions.changed').length).toBeGreaterThan(seen.filter((e) => e.event === 'sessions.changed').length)
    const names = seen.map((e) => e.event as string)
    expect(names).not.toContain('session.message')
    expect(names).not.toContain('session.tool')
    expect(seen.filter((e) => e.event === 'sessions.changed').map((e) => e.payload.reason)).toEqual(['start', 'end'])
    // tool events still arrive once, as `agent`
    expect(seen.filter((e) => e.event === 'agent' && e.payload.stream === 'tool').length).toBe(2)
    await openclaw.close()
  })

  it('the window gets the lifecycle end of a queued message removed before it ran (its reducer closes the run with it)', async () => {
    t = await startTestGateway()
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl) })
    const seen: AnyEvent[] = []
    bridge.subscribe({ sessionKey: 'agent:main:main' }, (e) => seen.push(e))
    const data = { phase: 'end', endedAt: 1, aborted: true, stopReason: 'removed', reason: 'removed by user' }
    t.host.emit({ event: 'agent', payload: { runId: 'q-removed', seq: 1, stream: 'lifecycle', ts: 1, sessionKey: 'agent:main:main', data } })
    await until(() => seen.length === 1)
    expect(seen[0]).toEqual({ event: 'agent', payload: expect.objectContaining({ runId: 'q-removed', data }) })
  })

  it('rejects on a wrong token and does not retry', async () => {
    t = await startTestGateway()
    const err = await connectWsBridge({ url: t.gw.url, token: 'wrong-token-xxxxxxxxxxxxx', socketFactory: browserSocket(t.gw.httpUrl) }).catch((e) => e)
    expect(err.details?.code).toBe('AUTH_TOKEN_MISMATCH')
  })

  it('a page from a foreign origin cannot connect', async () => {
    t = await startTestGateway()
    const err = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket('http://evil.example') }).catch((e) => e)
    expect(err.details?.code).toBe('CONTROL_UI_ORIGIN_NOT_ALLOWED')
  })

  it('reconnects after the gateway restarts and flushes calls made while disconnected', async () => {
    t = await startTestGateway()
    const port = t.gw.port
    bridge = createWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl), backoffInitialMs: 50, backoffMaxMs: 200 })
    await until(() => bridge!.connection.state === 'open')
    await t.gw.close('restart')
    await until(() => bridge!.connection.state === 'reconnecting')
    const pendingCall = bridge.health({})
    const host2 = new FakeHost()
    const gw2 = await startGateway({ host: host2, port, token: TEST_TOKEN, stateDir: t.stateDir, staticDir: null })
    try {
      await expect(pendingCall).resolves.toMatchObject({ ok: true })
      expect(bridge.connection.state).toBe('open')
      expect(bridge.connection.attempt).toBe(0)
    } finally {
      bridge.close()
      await gw2.close()
    }
  })

  it('in-flight calls resolve UNAVAILABLE when the connection drops', async () => {
    t = await startTestGateway({ hold: true })
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl), backoffInitialMs: 5000 })
    const waiting = bridge.wait({ runId: 'never', timeoutMs: 60_000 })
    await new Promise((r) => setTimeout(r, 50))
    await t.gw.close('bye')
    await expect(waiting).resolves.toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } })
  })

  it('after the shared token is rotated (4001), the page reconnects with the device token it was issued', async () => {
    t = await startTestGateway()
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl), backoffInitialMs: 20 })
    const states: string[] = []
    const first = bridge.connection
    expect(first.state).toBe('open')
    t.gw.setToken('rotated-token-0123456789abcdef-xyz')
    await until(() => {
      states.push(bridge!.connection.state)
      return states.includes('reconnecting') && bridge!.connection.state === 'open'
    })
    // still the page's full scopes: the device token was issued with them
    expect(bridge.connection.scopes).toEqual(['operator.admin', 'operator.read', 'operator.write', 'operator.approvals'])
    const r = await bridge.health({})
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true })
  })

  it('device pairing from a browser page: it hears device.pair.requested, approves, and the remote device connects', async () => {
    t = await startTestGateway()
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl) })
    const heard: PairingEvent[] = []
    const runtimeEvents: AnyEvent[] = []
    bridge.subscribePairing((e) => heard.push(e))
    bridge.subscribe({}, (e) => runtimeEvents.push(e))
    // what the desktop window's IPC uses: the same object behind the handle
    const viaHandle: PairingEvent[] = []
    t.gw.pairing.subscribe((e) => viaHandle.push(e))
    await expect(bridge.pairingList({})).resolves.toMatchObject({ ok: true, data: { pending: [] } })

    // a phone behind a proxy (not loopback) with the gateway token but no pairing
    const phone = generateNodeDeviceIdentity()
    const proxied = { 'X-Forwarded-For': '203.0.113.9' }
    const refused = await t.connect({ identity: phone, headers: proxied }).catch((e) => e)
    expect(refused).toMatchObject({ code: 'NOT_PAIRED', details: { code: 'PAIRING_REQUIRED', requestId: expect.any(String) } })
    const requestId: string = refused.details.requestId
    await until(() => heard.length === 1)
    expect(heard[0]).toEqual({ event: 'device.pair.requested', payload: expect.objectContaining({ requestId, deviceId: phone.deviceId, role: 'operator' }) })
    await expect(bridge.pairingList({})).resolves.toMatchObject({ ok: true, data: { pending: [expect.objectContaining({ requestId, deviceId: phone.deviceId })] } })
    expect(t.gw.pairing.list({})).toEqual(await bridge.pairingList({}))
    expect(viaHandle).toEqual(heard)

    const approved = await bridge.pairingApprove({ requestId })
    expect(approved).toMatchObject({ ok: true, data: { requestId, device: { deviceId: phone.deviceId } } })
    await until(() => heard.length === 2)
    expect(heard[1]).toEqual({ event: 'device.pair.resolved', payload: { requestId, deviceId: phone.deviceId, decision: 'approved', ts: expect.any(Number) } })
    expect(viaHandle).toEqual(heard)
    // pairing events go to the pairing listeners only, not to the runtime's event subscribers
    expect(runtimeEvents.some((e) => (e.event as string).startsWith('device.pair.'))).toBe(false)

    const ok = await t.connect({ identity: phone, headers: proxied })
    expect(ok.hello.auth.scopes.length).toBeGreaterThan(0)
    await ok.close()
    // answered: a second answer is refused with a structured error
    await expect(bridge.pairingReject({ requestId })).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'PAIRING_REQUEST_NOT_FOUND' } } })
  })

  it('a browser page hears what the CLI does elsewhere: a removed request answered, a lifted rejection — never as runtime events', async () => {
    t = await startTestGateway()
    bridge = await connectWsBridge({ url: t.gw.url, token: TEST_TOKEN, socketFactory: browserSocket(t.gw.httpUrl) })
    const heard: PairingEvent[] = []
    const runtimeEvents: AnyEvent[] = []
    bridge.subscribePairing((e) => heard.push(e))
    bridge.subscribe({}, (e) => runtimeEvents.push(e))
    const cli = await t.connect({ identity: generateNodeDeviceIdentity(), scopes: ['operator.pairing'] })
    const phone = generateNodeDeviceIdentity()
    const proxied = { 'X-Forwarded-For': '203.0.113.10' }
    const asks = async () => ((await t!.connect({ identity: phone, headers: proxied }).catch((e) => e)).details.requestId as string)

    // loopdesk devices remove <id> of a device that only asks: its card's request is answered
    const first = await asks()
    await cli.request('device.pair.remove', { deviceId: phone.deviceId })
    await until(() => heard.length === 2)
    expect(heard[1]).toEqual({ event: 'device.pair.resolved', payload: { requestId: first, deviceId: phone.deviceId, decision: 'rejected', ts: expect.any(Number) } })

    // rejected, then lifted by the CLI: the page's "Recently rejected" line is told
    await cli.request('device.pair.reject', { requestId: await asks() })
    await cli.request('loopdesk.device.pair.liftRejection', { deviceId: phone.deviceId })
    await until(() => heard.some((e) => e.event === REJECTION_LIFTED_EVENT))
    expect(heard.at(-1)).toEqual({ event: REJECTION_LIFTED_EVENT, payload: { deviceId: phone.deviceId, ts: expect.any(Number) } })
    expect(runtimeEvents.some((e) => (e.event as string).includes('device.pair.'))).toBe(false)
    await cli.close()
  })
})
