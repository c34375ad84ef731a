// A failed run's chat error over a real WebSocket, the real runtime behind the gateway: v4 carries OpenClaw's
// `errorDetail` (provider, model, HTTP status, failover reason — no provider text) and fits the package's
// ChatEvent schema; v3's closed April shape has none.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { until } from '../../../test/fixtures/until'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { chatErrorDetail } from '../runtime/runner/error-detail'

const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(JSON.parse(fs.readFileSync(schemaFile, 'utf8')), 'openclaw')
const chatEvent = ajv.getSchema('openclaw#/definitions/ChatEvent')!

const TOKEN = 'chat-error-detail-token-01234567'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()

describe('chatErrorDetail', () => {
  it('failover reason from the classified kind first, else the status; bounded texts; nothing when nothing is known', () => {
    expect(chatErrorDetail({ provider: 'openai', model: 'gpt-x', status: 401 })).toEqual({ provider: 'openai', model: 'gpt-x', failoverReason: 'auth', httpStatus: 401 })
    expect(chatErrorDetail({ status: 400, kind: 'context_length' })).toEqual({ failoverReason: 'context_overflow', httpStatus: 400 })
    expect(chatErrorDetail({ status: 503 })).toEqual({ failoverReason: 'server_error', httpStatus: 503 })
    expect(chatErrorDetail({ status: 200, kind: 'unknown' })).toBeUndefined()
    expect(chatErrorDetail({ model: 'm'.repeat(400) })!.model).toHaveLength(300)
  })
})

describe('chat error errorDetail over the wire', () => {
  it('v4: provider, model, status and reason, fitting the package schema; v3: none', async () => {
    const four = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const three = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
    const errors = { v3: [] as any[], v4: [] as any[] }
    four.onEvent((e) => e.event === 'chat' && (e.payload as any).state === 'error' && errors.v4.push(e.payload))
    three.onEvent((e) => e.event === 'chat' && (e.payload as any).state === 'error' && errors.v3.push(e.payload))
    const key = 'agent:main:error-detail'
    await four.request('sessions.create', { key })
    await four.request('sessions.messages.subscribe', { key })
    await three.request('sessions.messages.subscribe', { key })

    env.server.push({ status: 401, message: 'Incorrect API key provided: sk-live-SECRET' }) // not retried
    await four.request('chat.send', { sessionKey: key, message: 'hello', idempotencyKey: 'ed-1' })
    await four.request('agent.wait', { runId: 'ed-1', timeoutMs: 10_000 })
    await until(() => errors.v4.length >= 1 && errors.v3.length >= 1)

    const [v4] = errors.v4
    expect(v4.errorDetail).toEqual({ provider: expect.any(String), model: expect.any(String), failoverReason: 'auth', httpStatus: 401 })
    expect(JSON.stringify(v4.errorDetail)).not.toContain('SECRET')
    expect(chatEvent(v4) ? [] : chatEvent.errors).toEqual([])
    expect(errors.v3[0]).not.toHaveProperty('errorDetail')
    expect(errors.v3[0]).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('401') })
    await four.close()
    await three.close()
  })
})
