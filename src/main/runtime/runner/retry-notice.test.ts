// The run tells the user when the model server refused a request pi will send again: unit rules, then the real
// pi-ai client against the scripted server (a 429 with retry-after, then the reply).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { RetryWatch } from './retry-notice'

const res = (status: number, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers) })

describe('RetryWatch', () => {
  it('notices the responses pi retries, up to its budget, with the wait the server asked for', () => {
    const w = new RetryWatch({ maxRetries: 2, maxRetryDelayMs: 15_000 })
    expect(w.onResponse(res(200))).toBeUndefined()
    expect(w.onResponse(res(400))).toBeUndefined()
    expect(w.onResponse(res(429, { 'retry-after': '2' }))).toEqual({ reason: 'model_retry', status: 429, attempt: 1, retryAfterMs: 2000 })
    expect(w.onResponse(res(503, { 'retry-after-ms': '250' }))).toEqual({ reason: 'model_retry', status: 503, attempt: 2, retryAfterMs: 250 })
    expect(w.onResponse(res(500))).toBeUndefined() // the budget is spent: this one is the run's error
  })

  it('no notice where pi gives up at once: x-should-retry false, or a wait longer than the cap', () => {
    const w = new RetryWatch({ maxRetries: 2, maxRetryDelayMs: 15_000 })
    expect(w.onResponse(res(429, { 'x-should-retry': 'false' }))).toBeUndefined()
    expect(w.onResponse(res(429, { 'retry-after': '60' }))).toBeUndefined()
    expect(w.onResponse(res(400, { 'x-should-retry': 'true' }))).toMatchObject({ status: 400, attempt: 1 })
    expect(w.onResponse(res(502))).toEqual({ reason: 'model_retry', status: 502, attempt: 2 })
  })
})

describe('a run whose request is retried', () => {
  let server: ModelServer
  let t: TestRuntime
  beforeAll(async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    t = await startTestRuntime(server, { runtime: { modelRetries: 2 } })
  })
  afterAll(async () => {
    await t?.close()
    await server?.close()
  })

  it('emits agent error {reason: model_retry} before the retried reply arrives', async () => {
    server.script([{ status: 429, retryAfter: 1, message: 'slow down' }, { text: 'After the wait.' }])
    await t.call('agent', { message: 'hi', idempotencyKey: 'rt-1', sessionKey: 'agent:main:retry' })
    expect(await t.call('agent.wait', { runId: 'rt-1', timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
    const mine = t.events.filter((e) => e.event === 'agent' && e.payload.runId === 'rt-1').map((e) => (e.event === 'agent' ? e.payload : undefined)!)
    const notice = mine.findIndex((e) => e.stream === 'error')
    expect(mine[notice]?.data).toEqual({ reason: 'model_retry', status: 429, attempt: 1, retryAfterMs: 1000 })
    expect(mine.findIndex((e) => e.stream === 'assistant')).toBeGreaterThan(notice)
    expect(server.requests.length).toBe(2)
  })
})
