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

async function officialClient(events: Array<{ event: string; payload?: any }>): Promise<GatewayClient> {
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
  return client
}

/** OpenClaw's projection of one session: a snapshot, then the live events as they were received. */
function projector(key: string, events: Array<{ event: string; payload?: any }>, snapshot: unknown[]) {
  const scope = { sessionKey: key }
  let projection: SessionProjectionState = reduceSessionProjection(createSessionProjection(scope), { type: 'snapshotLoaded', messages: snapshot })
  let seen = 0
  return {
    scope,
    /** feeds every event received since the last call; returns the projection */
    feed(): SessionProjectionState {
      for (; seen < events.length; seen++) {
        const e = events[seen]
        if (e.event === 'session.message' && e.payload?.sessionKey === key) {
          const { message, messageId, messageSeq, runId } = e.payload
          projection = reduceSessionProjection(projection, { type: 'messagePersisted', message, messageId, messageSeq, runId })
        } else if (e.event === 'chat' && e.payload?.sessionKey === key) {
          projection = reduceSessionProjectionRunEvent(projection, e.payload, scope)?.projection ?? projection
        }
      }
      return projection
    },
  }
}

const chatState = (events: Array<{ event: string; payload?: any }>, runId: string, state: string) =>
  events.some((e) => e.event === 'chat' && e.payload?.runId === runId && e.payload?.state === state)

describe('OpenClaw session projection over this gateway', () => {
  it('live session.message + chat events and a later snapshot give the transcript’s conversation, once', async () => {
    const events: Array<{ event: string; payload?: any }> = []
    const client = await officialClient(events)
    try {
      const key = 'agent:main:projected'
      await client.request('sessions.create', { key })
      const coordinator = getGatewaySessionMessageSubscriptionCoordinator(client)
      const sub = await coordinator.acquire(key)
      expect(sub.key).toBe(key)

      const snapshot = (await client.request('chat.history', { sessionKey: key })) as any
      const p = projector(key, events, snapshot.messages)

      server.push({ text: 'First answer, streamed.', chunks: 5, delayMs: 20 }, { text: 'Second answer.' })
      for (const [i, message] of ['first question', 'second question'].entries()) {
        const runId = `proj-${i}`
        await client.request('chat.send', { sessionKey: key, message, idempotencyKey: runId })
        await until(() => chatState(events, runId, 'final'))
      }
      await until(() => events.filter((e) => e.event === 'session.message').length >= 4)
      const projection = p.feed()

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
      const reconciled = reconcileSessionProjectionSnapshot(projection, later.messages, p.scope)
      expect(reconciled.messages.map((m: any) => [m.role, textOf(m)])).toEqual(expected)

      await coordinator.release(sub)
    } finally {
      client.stop()
    }
  })
  it('a stopped run and a failed run end as aborted and error in the projection; the partial reply shows once', async () => {
    const events: Array<{ event: string; payload?: any }> = []
    const client = await officialClient(events)
    try {
      const key = 'agent:main:projected-ends'
      await client.request('sessions.create', { key })
      const coordinator = getGatewaySessionMessageSubscriptionCoordinator(client)
      const sub = await coordinator.acquire(key)
      const p = projector(key, events, [])

      server.push({ text: 'partial '.repeat(60), chunks: 60, delayMs: 40 })
      await client.request('chat.send', { sessionKey: key, message: 'tell me a long story', idempotencyKey: 'ends-stop' })
      await until(() => chatState(events, 'ends-stop', 'delta'))
      await client.request('chat.abort', { sessionKey: key, runId: 'ends-stop' })
      await until(() => chatState(events, 'ends-stop', 'aborted'))

      server.push({ status: 400, message: 'the model refused the request' })
      await client.request('chat.send', { sessionKey: key, message: 'and now fail', idempotencyKey: 'ends-error' })
      await until(() => chatState(events, 'ends-error', 'error'), 20_000)
      await expect(client.request('agent.wait', { runId: 'ends-error', timeoutMs: 20_000 })).resolves.toMatchObject({ status: 'error' })

      const later = (await client.request('chat.history', { sessionKey: key })) as any
      await until(() => events.filter((e) => e.event === 'session.message').length >= later.messages.length)
      const projection = p.feed()
      expect(projection.runs['ends-stop']?.status).toBe('aborted')
      expect(projection.runs['ends-error']).toMatchObject({ status: 'error', errorMessage: expect.any(String) })
      const rows = (st: SessionProjectionState) => st.messages.map((m: any) => [m.role, textOf(m).slice(0, 16)])
      const reconciled = reconcileSessionProjectionSnapshot(projection, later.messages, p.scope)
      expect(rows(reconciled)).toEqual(later.messages.map((m: any) => [m.role, textOf(m).slice(0, 16)]))
      // the stopped run's partial reply is in the transcript (and so in the projection) exactly once
      expect(rows(reconciled).filter(([role, text]) => role === 'assistant' && text.startsWith('partial'))).toHaveLength(1)
      await coordinator.release(sub)
    } finally {
      client.stop()
    }
  })
})
