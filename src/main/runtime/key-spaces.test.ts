// agent and chat.send dedupe their idempotency keys apart, but a key is also its run's id: a key the other method
// used is refused (it gave an agent call the other session's run and reply, its own message never ran), while each
// method's own retry is answered as before.
import { describe, expect, it } from 'vitest'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'

const env = useTestRuntimePerTest()

const userTexts = async (sessionKey: string) =>
  (await env.t.call('chat.history', { sessionKey })).messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))

describe("a key the other method's run has", () => {
  it('agent with the key of a chat.send run going on is refused; the chat.send retry still gets in_flight', async () => {
    env.server.script([{ text: 'slow reply', delayMs: 40 }])
    const before = env.server.requests.length
    const sent = await env.t.call('chat.send', { sessionKey: 'agent:main:ks-a', message: 'first', idempotencyKey: 'ks-1' })
    expect(sent.status).toBe('started')
    const r = await env.t.raw('agent', { sessionKey: 'agent:main:ks-b', message: 'second', idempotencyKey: 'ks-1' })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('already the id of a run that chat.send started'), details: { code: 'IDEMPOTENCY_KEY_IN_USE' } })
    expect((await env.t.call('chat.send', { sessionKey: 'agent:main:ks-a', message: 'first', idempotencyKey: 'ks-1' })).status).toBe('in_flight')
    expect((await env.t.call('agent.wait', { runId: 'ks-1', timeoutMs: 10_000 })).status).toBe('ok')
    // after it ended too (the key is remembered): still refused, and nothing was written to the other session
    expect((await env.t.raw('agent', { sessionKey: 'agent:main:ks-b', message: 'second', idempotencyKey: 'ks-1' })).ok).toBe(false)
    expect(await userTexts('agent:main:ks-b')).toEqual([])
    expect(env.server.requests.length - before).toBe(1)
  })

  it('chat.send with the key of an agent run going on (or being accepted) is refused; agent retries still replay', async () => {
    env.server.script([{ text: 'slow reply', delayMs: 40 }])
    const before = env.server.requests.length
    // sent back to back: the chat.send arrives while the agent call is still being accepted
    const [ack, refused] = await Promise.all([
      env.t.call('agent', { sessionKey: 'agent:main:ks-c', message: 'first', idempotencyKey: 'ks-2' }),
      env.t.raw('chat.send', { sessionKey: 'agent:main:ks-d', message: 'second', idempotencyKey: 'ks-2' }),
    ])
    expect(ack).toMatchObject({ runId: 'ks-2', status: 'accepted' })
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('already the id of a run that agent started') })
    expect((await env.t.raw('chat.send', { sessionKey: 'agent:main:ks-d', message: 'second', idempotencyKey: 'ks-2' })).ok).toBe(false)
    expect((await env.t.call('agent', { sessionKey: 'agent:main:ks-c', message: 'first', idempotencyKey: 'ks-2' })).runId).toBe('ks-2')
    expect((await env.t.call('agent.wait', { runId: 'ks-2', timeoutMs: 10_000 })).status).toBe('ok')
    expect(await userTexts('agent:main:ks-d')).toEqual([])
    expect(env.server.requests.length - before).toBe(1)
  })
})
