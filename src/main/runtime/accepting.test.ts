// An abort or a retried chat.send that arrives while a message is still being accepted (sent right behind it):
// the abort stops that run, the retry gets the first call's answer — one message, one run. Calls go through
// dispatch without awaiting each other, as frames back to back on one connection do.
import { describe, expect, it } from 'vitest'
import { useTestRuntime } from '../../../test/fixtures/use-test-runtime'
import { Accepting } from './accepting'

const env = useTestRuntime()

const roles = async (sessionKey: string) =>
  (await env.t.call('chat.history', { sessionKey })).messages.map((m) => `${m.role}:${(m as { stopReason?: string }).stopReason ?? ''}`)

describe('an abort sent right behind the message', () => {
  it('chat.abort naming the run stops it (new and existing session, with an attachment)', async () => {
    await env.t.call('agent', { sessionKey: 'agent:main:ab-existing', message: 'hi', idempotencyKey: 'ab-e0' })
    env.server.script([{ text: 'hello' }])
    await env.t.call('agent.wait', { runId: 'ab-e0', timeoutMs: 5000 })
    const content = Buffer.from('y'.repeat(256 * 1024)).toString('base64')
    for (const [key, id, attachments] of [
      ['agent:main:ab-new', 'ab-n1', undefined],
      ['agent:main:ab-existing', 'ab-e1', undefined],
      ['agent:main:ab-attach', 'ab-a1', [{ type: 'file', mimeType: 'text/plain', fileName: 'a.txt', content }]],
    ] as const) {
      const before = env.server.requests.length
      const [send, abort] = await Promise.all([
        env.t.call('chat.send', { sessionKey: key, message: 'stop me', idempotencyKey: id, ...(attachments ? { attachments: [...attachments] } : {}) }),
        env.t.call('chat.abort', { sessionKey: key, runId: id }),
      ])
      expect(send.status).toBe('started')
      expect(abort).toEqual({ ok: true, aborted: true, runIds: [id] })
      expect((await env.t.call('agent.wait', { runId: id, timeoutMs: 5000 })).status).toBe('timeout') // aborted
      expect(env.server.requests.length).toBe(before)
      expect((await roles(key)).slice(-2)).toEqual(['user:', 'assistant:aborted'])
    }
  })

  it("chat.abort of the session, sessions.abort by key or runId, and an agent call's run", async () => {
    const cases = [
      ['agent:main:ab-s1', 'ab-s1', (key: string) => env.t.call('chat.abort', { sessionKey: key }).then((r) => r.runIds)],
      ['agent:main:ab-s2', 'ab-s2', (key: string) => env.t.call('sessions.abort', { key }).then((r) => [r.abortedRunId])],
      ['agent:main:ab-s3', 'ab-s3', (_key: string, id: string) => env.t.call('sessions.abort', { runId: id }).then((r) => [r.abortedRunId])],
    ] as const
    for (const [key, id, abort] of cases) {
      const [send, runIds] = await Promise.all([env.t.call('chat.send', { sessionKey: key, message: 'stop me', idempotencyKey: id }), abort(key, id)])
      expect(send.status).toBe('started')
      expect(runIds).toEqual([id])
      expect((await env.t.call('agent.wait', { runId: id, timeoutMs: 5000 })).status).toBe('timeout')
    }
    // the /stop command typed right after a message: the same
    const [sent, stop] = await Promise.all([
      env.t.call('chat.send', { sessionKey: 'agent:main:ab-s4', message: 'stop me', idempotencyKey: 'ab-s4' }),
      env.t.call('chat.send', { sessionKey: 'agent:main:ab-s4', message: '/stop', idempotencyKey: 'ab-s4-stop' }),
    ])
    expect(sent.status).toBe('started')
    expect(stop).toMatchObject({ status: 'command', aborted: true, runIds: ['ab-s4'] })
    expect((await env.t.call('agent.wait', { runId: 'ab-s4', timeoutMs: 5000 })).status).toBe('timeout')
    const [ack, abort] = await Promise.all([
      env.t.call('agent', { sessionKey: 'agent:main:ab-agent', message: 'stop me', idempotencyKey: 'ab-g1' }),
      env.t.call('chat.abort', { sessionKey: 'agent:main:ab-agent', runId: 'ab-g1' }),
    ])
    expect(ack.status).toBe('accepted')
    expect(abort.aborted).toBe(true)
    expect((await env.t.call('agent.wait', { runId: 'ab-g1', timeoutMs: 5000 })).status).toBe('timeout')
  })
})

it('chat.send retried with the same idempotencyKey while the first is being accepted runs once', async () => {
  const key = 'agent:main:dup'
  env.server.script([{ text: 'one reply' }])
  const before = env.server.requests.length
  const acks = await Promise.all([1, 2, 3].map(() => env.t.call('chat.send', { sessionKey: key, message: 'double click', idempotencyKey: 'dup1' })))
  expect(acks).toEqual([1, 2, 3].map(() => ({ runId: 'dup1', status: 'started' })))
  expect((await env.t.call('agent.wait', { runId: 'dup1', timeoutMs: 5000 })).status).toBe('ok')
  expect(env.server.requests.length).toBe(before + 1)
  expect(await roles(key)).toEqual(['user:', 'assistant:stop'])
})

describe('Accepting', () => {
  it('an abort waits only for the accepts of its session (and of its run when named)', async () => {
    const a = new Accepting()
    let finish!: () => void
    const done = a.track('chat', 'r1', 's1', new Promise<void>((r) => (finish = r)))
    expect(a.settled('s2')).toBeUndefined()
    expect(a.settled('s1', 'other')).toBeUndefined()
    expect(a.inProgress('agent', 'r1')).toBeUndefined()
    expect(a.inProgress('chat', 'r1')).toBe(done)
    const waiting = a.settled('s1', 'r1')!
    let settled = false
    void waiting.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    finish()
    await waiting
    expect(a.settled('s1')).toBeUndefined()
    expect(a.sessionOf('r1')).toBeUndefined()
  })
})
