// `agent` over the gateway when the model call fails (spec §9, reference §2.3): the call still completes, its
// final carries the error as an isError payload after whatever the model wrote first, and meta.error says why;
// the run's own outcome (lifecycle error, agent.wait "error") stays an error.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'

const TOKEN = 'model-failure-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()
const connect = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })

describe('agent: a failed model call', () => {
  it('an HTTP 400 completes the call with the error text as an isError payload and meta.error', async () => {
    env.server.push({ status: 400, message: 'bad request: model exploded' }) // not retried
    const c = await connect()
    const final = await c.request('agent', { message: 'hi', sessionKey: 'agent:main:fail400', idempotencyKey: 'mf-400' }, { expectFinal: true })
    expect(final).toMatchObject({ runId: 'mf-400', status: 'ok', summary: 'completed' })
    expect(final.result.payloads).toEqual([{ text: expect.stringContaining('bad request: model exploded'), isError: true }])
    expect(final.result.meta.error).toEqual({ kind: expect.any(String), message: expect.stringContaining('model exploded') })
    await expect(c.request('agent.wait', { runId: 'mf-400', timeoutMs: 1000 })).resolves.toMatchObject({
      status: 'error',
      error: expect.stringContaining('model exploded'),
    })
    // a retry with the same key gets the same final from the gateway's dedupe
    await expect(c.request('agent', { message: 'hi', sessionKey: 'agent:main:fail400', idempotencyKey: 'mf-400' })).resolves.toEqual(final)
    await c.close()
  })

  it('a stream that fails after some text keeps the partial text before the error payload', async () => {
    env.server.push({ textChunks: ['half ', 'an answer'], streamError: 'upstream stream broke' })
    const c = await connect()
    const final = await c.request('agent', { message: 'hi', sessionKey: 'agent:main:failmid', idempotencyKey: 'mf-mid' }, { expectFinal: true })
    expect(final).toMatchObject({ runId: 'mf-mid', status: 'ok', summary: 'completed' })
    expect(final.result.payloads).toEqual([{ text: 'half an answer' }, { text: expect.stringContaining('upstream stream broke'), isError: true }])
    // attributed as an HTTP refusal is: whose server said it
    expect(final.result.meta.error.message).toMatch(/^Model request failed \(error in the reply stream from \w+\): upstream stream broke$/)
    await expect(c.request('agent.wait', { runId: 'mf-mid', timeoutMs: 1000 })).resolves.toMatchObject({ status: 'error' })
    await c.close()
  })
})
