// Regression (found by the faults suite, test/faults/load.test.ts): the run that created a session waited
// for the durable sessions.json write while later messages to the same session were enqueued, acked and
// run before it — per-session order was not acceptance order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime } from '../../../../test/fixtures/test-runtime'
import { KeyedSerializer } from './keyed-serializer'

describe('KeyedSerializer', () => {
  it('runs work of one key in call order, other keys independently, and survives a failure', async () => {
    const s = new KeyedSerializer()
    const log: string[] = []
    const slow = (tag: string, ms: number) => () => new Promise<string>((r) => setTimeout(() => (log.push(tag), r(tag)), ms))
    const a = s.run('k', slow('a', 30))
    const b = s.run('k', async () => {
      throw new Error('b failed')
    })
    const c = s.run('k', slow('c', 1))
    const x = s.run('other', slow('x', 1))
    await expect(b).rejects.toThrow('b failed')
    expect(await Promise.all([a, c, x])).toEqual(['a', 'c', 'x'])
    expect(log).toEqual(['x', 'a', 'c'])
    await new Promise((r) => setTimeout(r, 0))
    expect(s.size).toBe(0)
  })
})

describe('acceptance order on a new session', () => {
  let server: ModelServer
  beforeAll(async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
  })
  afterAll(() => server.close())

  it('messages sent back to back run in the order they were sent, the session-creating one first', async () => {
    const t = await startTestRuntime(server)
    try {
      const key = 'agent:main:fresh'
      const ids = Array.from({ length: 6 }, (_, i) => `order-${i}`)
      const acks = await Promise.all(ids.map((id) => t.call('agent', { message: id, idempotencyKey: id, sessionKey: key })))
      expect(acks.map((a) => a.runId)).toEqual(ids)
      for (const id of ids) await t.call('agent.wait', { runId: id, timeoutMs: 15_000 })
      const starts = t.events
        .filter((e) => e.event === 'agent' && e.payload.stream === 'lifecycle' && (e.payload as AgentEvent).data.phase === 'start')
        .map((e) => (e.payload as AgentEvent).runId)
      expect(starts).toEqual(ids)
      const accepted = acks.map((a) => a.acceptedAt)
      expect([...accepted].sort((a, b) => a - b)).toEqual(accepted)
    } finally {
      await t.close()
    }
  })
})
