// Interop of the live-session surface with OpenClaw's own client-side logic: @openclaw/gateway-client's
// subscription coordinator (sessions.messages.subscribe) and its session projection, fed with this
// gateway's chat.history, session.message and chat events over the REAL runtime, must end with the same
// conversation as the transcript, without duplicates when a later snapshot is reconciled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSessionProjection,
  GatewayClient,
  getGatewaySessionMessageSubscriptionCoordinator,
  reconcileSessionProjectionSnapshot,
  reduceSessionProjection,
  reduceSessionProjectionRunEvent,
  type SessionProjectionState,
} from '@openclaw/gateway-client'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'
import { generateNodeDeviceIdentity, publicKeyRawBase64Url, signDevicePayload } from '../../cli/identity'
import { startGateway, type GatewayHandle } from './server'

const TOKEN = 'projection-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  rt = await startTestRuntime(server, { config: testConfig(server) })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

const textOf = (m: any): string =>
  typeof m?.content === 'string' ? m.content : (m?.content ?? []).filter((c: any) => c?.type === 'text').map((c: any) => c.text).join('')

describe('OpenClaw session projection over this gateway', () => {
  it('live session.message + chat events and a later snapshot give the transcript’s conversation, once', async () => {
    const events: Array<{ event: string; payload?: any }> = []
    let client!: GatewayClient
    await new Promise<void>((resolve, reject) => {
      client = new GatewayClient({
        url: gw.url,
        token: TOKEN,
        deviceIdentity: generateNodeDeviceIdentity(),
        hostDeps: { signDevicePayload, publicKeyRawBase64UrlFromPem: publicKeyRawBase64Url },
        scopes: ['operator.admin'],
        onHelloOk: () => resolve(),
        onConnectError: reject,
        onEvent: (e) => events.push(e as { event: string; payload?: any }),
      })
      client.start()
    })
    try {
      const key = 'agent:main:projected'
      await client.request('sessions.create', { key })
      const coordinator = getGatewaySessionMessageSubscriptionCoordinator(client)
      const sub = await coordinator.acquire(key)
      expect(sub.key).toBe(key)

      const scope = { sessionKey: key }
      const snapshot = (await client.request('chat.history', { sessionKey: key })) as any
      let projection: SessionProjectionState = reduceSessionProjection(createSessionProjection(scope), {
        type: 'snapshotLoaded',
        messages: snapshot.messages,
      })
      let seen = 0
      const feed = () => {
        for (; seen < events.length; seen++) {
          const e = events[seen]
          if (e.event === 'session.message' && e.payload?.sessionKey === key) {
            const { message, messageId, messageSeq, runId } = e.payload
            projection = reduceSessionProjection(projection, { type: 'messagePersisted', message, messageId, messageSeq, runId })
          } else if (e.event === 'chat' && e.payload?.sessionKey === key) {
            projection = reduceSessionProjectionRunEvent(projection, e.payload, scope)?.projection ?? projection
          }
        }
      }

      server.push({ text: 'First answer, streamed.', chunks: 5, delayMs: 20 }, { text: 'Second answer.' })
      for (const [i, message] of ['first question', 'second question'].entries()) {
        const runId = `proj-${i}`
        await client.request('chat.send', { sessionKey: key, message, idempotencyKey: runId })
        await until(() => events.some((e) => e.event === 'chat' && e.payload?.runId === runId && e.payload?.state === 'final'))
      }
      await until(() => events.filter((e) => e.event === 'session.message').length >= 4)
      feed()

      const expected = [
        ['user', 'first question'],
        ['assistant', 'First answer, streamed.'],
        ['user', 'second question'],
        ['assistant', 'Second answer.'],
      ]
      expect(projection.messages.map((m: any) => [m.role, textOf(m)])).toEqual(expected)
      expect(projection.runs['proj-0']?.status).toBe('completed')
      expect(projection.runs['proj-1']?.status).toBe('completed')
      expect(projection.hasTransportGap).toBe(false)

      // a fresh snapshot (what a reconnecting client reloads) reconciles onto the same rows, no duplicates
      const later = (await client.request('chat.history', { sessionKey: key })) as any
      // the two sides name each row the same way: entry id and its position among the transcript's messages
      for (const e of events.filter((x) => x.event === 'session.message')) {
        const row = later.messages.find((m: any) => m.id === e.payload.messageId)
        expect(row?.__openclaw).toEqual({ id: e.payload.messageId, seq: e.payload.messageSeq, runId: e.payload.runId })
        expect(e.payload.message.__openclaw).toEqual(row.__openclaw)
      }
      const reconciled = reconcileSessionProjectionSnapshot(projection, later.messages, scope)
      expect(reconciled.messages.map((m: any) => [m.role, textOf(m)])).toEqual(expected)

      await coordinator.release(sub)
    } finally {
      client.stop()
    }
  })
})
