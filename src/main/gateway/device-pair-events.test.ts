// What other pairers hear when a device is removed or a rejection lifted, over real WebSockets against the
// real runtime + gateway: device.pair.remove of a device that only asks answers its request (OpenClaw's
// device.pair.resolved, "rejected"), and every lift — liftRejection or remove — sends Loopdesk's
// loopdesk.device.pair.rejectionLifted to operator.pairing connections, without a frame seq, so OpenClaw's
// own client (which does not know the event) sees no seq gap.
import { describe, expect, it } from 'vitest'
import { GatewayClient } from '@openclaw/gateway-client'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { until } from '../../../test/fixtures/until'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity, publicKeyRawBase64Url, signDevicePayload, type NodeDeviceIdentity } from '../../cli/identity'
import { REJECTION_LIFTED_EVENT } from '../../shared/pairing'

const TOKEN = 'pair-events-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const PAIRING = ['operator.pairing']

const connect = (identity: NodeDeviceIdentity, scopes: string[], headers?: Record<string, string>) =>
  connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, scopes, ...(headers ? { headers } : {}) })

/** a device on another machine (through a proxy) asks to pair: its request id */
const ask = async (identity: NodeDeviceIdentity, ip: string): Promise<{ requestId?: string; reason?: string }> => {
  const refused = await connect(identity, ['operator.read'], { 'X-Forwarded-For': ip }).then(
    () => {
      throw new Error('connected without pairing')
    },
    (e: { details?: { requestId?: string; reason?: string } }) => e,
  )
  return refused.details ?? {}
}

/** frames of the pairing events a connection received */
const pairingFrames = (frames: EventFrameIn[]) => frames.filter((f) => f.event.startsWith('device.pair.') || f.event === REJECTION_LIFTED_EVENT)

/** OpenClaw's GatewayClient with a device identity of its own, recording its events and the seq gaps it reports */
async function openClawClient(scopes: string[]) {
  const identity = generateNodeDeviceIdentity()
  const store = new Map<string, { token: string; scopes: string[] }>()
  const hostDeps = {
    signDevicePayload,
    publicKeyRawBase64UrlFromPem: publicKeyRawBase64Url,
    loadDeviceAuthToken: ({ deviceId, role }: { deviceId: string; role: string }) => store.get(`${deviceId}/${role}`) ?? null,
    storeDeviceAuthToken: ({ deviceId, role, token, scopes: s }: { deviceId: string; role: string; token: string; scopes: string[] }) =>
      void store.set(`${deviceId}/${role}`, { token, scopes: s }),
    clearDeviceAuthToken: ({ deviceId, role }: { deviceId: string; role: string }) => void store.delete(`${deviceId}/${role}`),
  }
  const events: Array<{ event: string; seq?: number }> = []
  const gaps: Array<{ expected: number; received: number }> = []
  const client = await new Promise<GatewayClient>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no hello-ok')), 5000)
    const c: GatewayClient = new GatewayClient({
      url: env.stack.gw.url,
      token: TOKEN,
      deviceIdentity: identity,
      hostDeps: hostDeps as never,
      scopes,
      onEvent: (e) => void events.push({ event: e.event, ...(typeof e.seq === 'number' ? { seq: e.seq } : {}) }),
      onGap: (g) => void gaps.push(g),
      onHelloOk: () => {
        clearTimeout(timer)
        resolve(c)
      },
    })
    c.start()
  })
  return { client, events, gaps }
}

describe('pairing events of remove and lift', () => {
  it('device.pair.remove of a device that only asks drops its request and answers it device.pair.resolved "rejected"; no rejection is kept', async () => {
    const pairer = await connect(generateNodeDeviceIdentity(), PAIRING)
    const reader = await connect(generateNodeDeviceIdentity(), ['operator.read'])
    const heard: EventFrameIn[] = []
    const readerHeard: EventFrameIn[] = []
    pairer.onEvent((f) => heard.push(f))
    reader.onEvent((f) => readerHeard.push(f))
    const phone = generateNodeDeviceIdentity()
    const { requestId } = await ask(phone, '198.51.100.20')
    expect(requestId).toEqual(expect.any(String))
    await until(() => pairingFrames(heard).length === 1)

    // the id as a CLI may type it (upper case) names the device
    await expect(pairer.request('device.pair.remove', { deviceId: phone.deviceId.toUpperCase() })).resolves.toEqual({
      ok: true,
      deviceId: phone.deviceId,
      removed: true,
      loopdeskRequestDropped: requestId,
    })
    await until(() => pairingFrames(heard).length === 2)
    const resolved = pairingFrames(heard)[1]
    // OpenClaw's DevicePairResolvedEvent: exactly these fields, a decision its clients know, a broadcast's seq
    expect(resolved).toEqual({ type: 'event', event: 'device.pair.resolved', payload: { requestId, deviceId: phone.deviceId, decision: 'rejected', ts: expect.any(Number) }, seq: expect.any(Number) })
    expect(((await pairer.request('device.pair.list', {})) as { pending: unknown[] }).pending).toEqual([])
    expect(pairingFrames(readerHeard)).toEqual([]) // pair events need operator.pairing

    // nothing is left of it: a second remove is refused as before, and the device's next try asks anew
    await expect(pairer.request('device.pair.remove', { deviceId: phone.deviceId })).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'DEVICE_NOT_PAIRED' } })
    const again = await ask(phone, '198.51.100.20')
    expect(again.reason).toBeUndefined()
    expect(again.requestId).toEqual(expect.any(String))
    expect(again.requestId).not.toBe(requestId)
    await Promise.all([pairer.close(), reader.close()])
  })

  it('every lift (liftRejection, remove) tells the pairers with loopdesk.device.pair.rejectionLifted, listed in hello and sent without seq', async () => {
    const pairer = await connect(generateNodeDeviceIdentity(), PAIRING)
    const other = await connect(generateNodeDeviceIdentity(), ['operator.admin']) // another window (admin covers pairing)
    const reader = await connect(generateNodeDeviceIdentity(), ['operator.read'])
    expect(pairer.hello.features.events).toContain(REJECTION_LIFTED_EVENT)
    const heard: EventFrameIn[] = []
    const otherHeard: EventFrameIn[] = []
    const readerHeard: EventFrameIn[] = []
    pairer.onEvent((f) => heard.push(f))
    other.onEvent((f) => otherHeard.push(f))
    reader.onEvent((f) => readerHeard.push(f))
    const lifted = () => otherHeard.filter((f) => f.event === REJECTION_LIFTED_EVENT)

    const phone = generateNodeDeviceIdentity()
    await pairer.request('device.pair.reject', { requestId: (await ask(phone, '198.51.100.21')).requestId })
    await expect(pairer.request('loopdesk.device.pair.liftRejection', { deviceId: phone.deviceId })).resolves.toEqual({ deviceId: phone.deviceId, lifted: true })
    await until(() => lifted().length === 1)
    expect(lifted()[0]).toEqual({ type: 'event', event: REJECTION_LIFTED_EVENT, payload: { deviceId: phone.deviceId, ts: expect.any(Number) } })
    expect(heard.filter((f) => f.event === REJECTION_LIFTED_EVENT)).toEqual([lifted()[0]]) // the lifter's own connection too

    // device.pair.remove of a rejected device lifts it too, and says so the same way
    await pairer.request('device.pair.reject', { requestId: (await ask(phone, '198.51.100.21')).requestId })
    await expect(pairer.request('device.pair.remove', { deviceId: phone.deviceId })).resolves.toEqual({ ok: true, deviceId: phone.deviceId, removed: true, loopdeskRejectionLifted: true })
    await until(() => lifted().length === 2)
    expect(lifted()[1].payload).toEqual({ deviceId: phone.deviceId, ts: expect.any(Number) })

    // a refused lift lifts nothing and tells nobody
    await expect(pairer.request('loopdesk.device.pair.liftRejection', { deviceId: phone.deviceId })).rejects.toMatchObject({ details: { code: 'PAIRING_REJECTION_NOT_FOUND' } })
    // a remove of a paired device with no rejection does not claim one was lifted
    const laptop = generateNodeDeviceIdentity()
    await (await connect(laptop, ['operator.read'])).close() // pairs over loopback
    await pairer.request('device.pair.remove', { deviceId: laptop.deviceId })
    await pairer.request('device.pair.list', {}) // a round trip: anything sent before its answer has arrived
    expect(lifted()).toHaveLength(2)
    expect(readerHeard.filter((f) => f.event === REJECTION_LIFTED_EVENT)).toEqual([])
    await Promise.all([pairer.close(), other.close(), reader.close()])
  })

  it("OpenClaw's client, which does not know the event, is unaffected: it sees no seq gap across a lift", async () => {
    const pairer = await connect(generateNodeDeviceIdentity(), PAIRING)
    const phone = generateNodeDeviceIdentity()
    await pairer.request('device.pair.reject', { requestId: (await ask(phone, '198.51.100.22')).requestId })
    // one that may see the event, one that may not
    const withPairing = await openClawClient(['operator.read', 'operator.pairing'])
    const readOnly = await openClawClient(['operator.read'])
    // pairer lacks write scope: the runs are started by a writer of their own
    const writer = await connect(generateNodeDeviceIdentity(), ['operator.read', 'operator.write'])
    const send = async (id: string) => {
      const seen = readOnly.events.length
      await writer.request('chat.send', { sessionKey: 'agent:main:pair-events', message: 'hi', idempotencyKey: id })
      await writer.request('agent.wait', { runId: id, timeoutMs: 10_000 })
      await until(() => readOnly.events.slice(seen).some((e) => e.event === 'chat' && typeof e.seq === 'number'), 10_000, `chat events of ${id}`)
    }
    await send('pair-events-before')
    await pairer.request('loopdesk.device.pair.liftRejection', { deviceId: phone.deviceId })
    await until(() => withPairing.events.some((e) => e.event === REJECTION_LIFTED_EVENT))
    await send('pair-events-after')

    expect(withPairing.events.find((e) => e.event === REJECTION_LIFTED_EVENT)).toEqual({ event: REJECTION_LIFTED_EVENT }) // no seq
    expect(readOnly.events.some((e) => e.event === REJECTION_LIFTED_EVENT)).toBe(false)
    expect(readOnly.gaps).toEqual([])
    expect(withPairing.gaps).toEqual([])
    withPairing.client.stop()
    readOnly.client.stop()
    await Promise.all([pairer.close(), writer.close()])
  })
  it('a device that asked from elsewhere and then connects from this machine is paired: its request is answered "approved", a rejection of it lifted', async () => {
    const pairer = await connect(generateNodeDeviceIdentity(), PAIRING)
    const heard: EventFrameIn[] = []
    pairer.onEvent((f) => heard.push(f))
    const laptop = generateNodeDeviceIdentity()
    const { requestId } = await ask(laptop, '198.51.100.23')
    await until(() => pairingFrames(heard).length === 1)

    const local = await connect(laptop, ['operator.read']) // loopback: paired on connect
    await until(() => pairingFrames(heard).length === 2)
    expect(pairingFrames(heard)[1]).toMatchObject({ event: 'device.pair.resolved', payload: { requestId, deviceId: laptop.deviceId, decision: 'approved' } })
    const list = (await pairer.request('device.pair.list', {})) as { pending: Array<{ deviceId: string }>; paired: Array<{ deviceId: string }> }
    expect(list.pending.filter((r) => r.deviceId === laptop.deviceId)).toEqual([])
    expect(list.paired.map((d) => d.deviceId)).toContain(laptop.deviceId)
    await local.close()

    // rejected from elsewhere, then connected here: the "Recently rejected" line goes too
    const tablet = generateNodeDeviceIdentity()
    await pairer.request('device.pair.reject', { requestId: (await ask(tablet, '198.51.100.24')).requestId })
    const before = heard.length
    await (await connect(tablet, ['operator.read'])).close()
    await until(() => heard.slice(before).some((f) => f.event === REJECTION_LIFTED_EVENT))
    expect(heard.slice(before).find((f) => f.event === REJECTION_LIFTED_EVENT)?.payload).toMatchObject({ deviceId: tablet.deviceId })
    const after = (await pairer.request('device.pair.list', {})) as { loopdeskRejected: Array<{ deviceId: string }> }
    expect(after.loopdeskRejected.filter((r) => r.deviceId === tablet.deviceId)).toEqual([])

    // an already paired device reconnecting says nothing
    const quiet = heard.length
    await (await connect(laptop, ['operator.read'])).close()
    await pairer.request('device.pair.list', {})
    expect(pairingFrames(heard.slice(quiet))).toEqual([])
    await pairer.close()
  })
})
