// Steer while the session's run only waits for a global slot (every `main` lane slot taken by other sessions):
// the run has not started, so there is no turn to steer into. The steered message is queued as a follow-up —
// answered once, after the waiting run, never lost or sent twice (not inside the waiting run's prompt either).
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server?.close()
})

const textOf = (m: unknown) => ((m as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('')
const lastUser = (req: CapturedRequest) =>
  JSON.stringify((req.body.messages as Array<{ role: string }>).filter((m) => m.role === 'user').at(-1) ?? '')

it('a steer while the run waits for a slot is queued as a follow-up and answered once, after that run', async () => {
  const t = await startTestRuntime(server, { config: testConfig(server, { agents: { defaults: { maxConcurrent: 1 } } }) })
  try {
    const key = 'agent:main:steer-waiting'
    // each request answered by what it asks: the other session's reply is slow, holding the one slot
    server.script((req) =>
      lastUser(req).includes('elsewhere')
        ? { text: 'other answer', chunks: 6, delayMs: 120 }
        : lastUser(req).includes('also this')
          ? { text: 'answer to the steer' }
          : { text: 'answer to the question' },
    )
    await t.call('chat.send', { sessionKey: 'agent:main:other', message: 'busy elsewhere', idempotencyKey: 'sw-other' })
    await until(() => server.inFlight() === 1, 5000)
    await t.call('chat.send', { sessionKey: key, message: 'the question', idempotencyKey: 'sw1' })
    await until(
      () => t.events.some((e) => e.event === 'agent' && e.payload.runId === 'sw1' && e.payload.stream === 'lane' && (e.payload.data as { lane?: string }).lane === 'global'),
      5000,
    )
    const steer = await t.call('chat.send', { sessionKey: key, message: 'also this', idempotencyKey: 'sw2', queueMode: 'steer' })
    expect(steer).toMatchObject({ runId: 'sw2', status: 'queued' })
    // waiting in the queue, as a follow-up of the run that waits
    expect(t.runtime.core.queueModes?.itemFor?.(key, 'sw2')).toMatchObject({ status: 'queued', detail: expect.stringMatching(/follow-up/) })
    expect((await t.call('agent.wait', { runId: 'sw1', timeoutMs: 10_000 })).status).toBe('ok')
    expect((await t.call('agent.wait', { runId: 'sw2', timeoutMs: 10_000 })).status).toBe('ok')
    const rows = (await t.call('chat.history', { sessionKey: key })).messages.map((m) => `${(m as { role: string }).role}:${textOf(m)}`)
    expect(rows).toEqual(['user:the question', 'assistant:answer to the question', 'user:also this', 'assistant:answer to the steer'])
    // the waiting run's request did not carry it; the follow-up's carries it once
    const mine = server.requests.filter((r) => JSON.stringify(r.body).includes('the question'))
    expect(mine).toHaveLength(2)
    expect(JSON.stringify(mine[0].body)).not.toContain('also this')
    expect(JSON.stringify(mine[1].body).split('also this').length - 1).toBe(1)
  } finally {
    await t.close()
  }
})
