// Seq-gap notices: a run's agent event whose seq is not last+1 is preceded by an `agent` event
// {runId, stream:"error", ts, sessionKey, data:{reason:"seq gap", expected, received}} without any seq.
import { afterEach, describe, expect, it } from 'vitest'
import type { EventFrameIn } from '../../cli/gateway-client'
import type { AgentEvent } from '../../shared/events'
import { RunSeqTracker } from './seq-gap'
import { startTestGateway, type TestGateway } from './test-support'
import { until } from '../../../test/fixtures/until'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const ev = (runId: string, seq: number, stream: AgentEvent['stream'] = 'assistant'): AgentEvent => ({
  runId,
  seq,
  stream,
  ts: Date.now(),
  data: stream === 'assistant' ? { text: `t${seq}`, delta: `t${seq}` } : { phase: 'start' },
  sessionKey: 'agent:main:gap',
})

describe('RunSeqTracker', () => {
  it('flags a skip, an unseen run joined mid-way and a repeat; a run restarting at 1 is fresh', () => {
    const s = new RunSeqTracker(2)
    expect(s.observe(ev('a', 1))).toBeUndefined()
    expect(s.observe(ev('a', 2))).toBeUndefined()
    expect(s.observe(ev('a', 4))).toEqual({ expected: 3, received: 4 })
    expect(s.observe(ev('a', 5))).toBeUndefined()
    expect(s.observe(ev('a', 5))).toEqual({ expected: 6, received: 5 })
    expect(s.observe(ev('a', 6))).toBeUndefined()
    expect(s.observe(ev('b', 7))).toEqual({ expected: 1, received: 7 })
    expect(s.observe(ev('a', 1))).toBeUndefined()
    expect(s.observe(ev('a', 2))).toBeUndefined()
    // bounded: a third run evicts the oldest entry (a), b is still known
    s.observe(ev('c', 1))
    expect(s.observe(ev('b', 8))).toBeUndefined()
    expect(s.observe(ev('a', 3))).toEqual({ expected: 1, received: 3 })
  })
})

describe('seq-gap notices over the gateway', () => {
  it('precede the event after the gap, carry no seq, reach every reader; a contiguous run produces none', async () => {
    t = await startTestGateway({ withTool: true })
    const a = await t.connect()
    const b = await t.connect({ scopes: ['operator.read'] })
    const none = await t.connect({ identity: null })
    const seen = (c: typeof a) => {
      const list: EventFrameIn[] = []
      c.onEvent((e) => list.push(e))
      return list
    }
    const [ea, eb, en] = [seen(a), seen(b), seen(none)]
    // a normal scripted run: contiguous, no notice
    await a.request('agent', { message: 'go', idempotencyKey: 'clean-1' }, { expectFinal: true })
    t.host.emit({ event: 'agent', payload: ev('gap-1', 1, 'lifecycle') })
    t.host.emit({ event: 'agent', payload: ev('gap-1', 2) })
    t.host.emit({ event: 'agent', payload: ev('gap-1', 5) })
    t.host.emit({ event: 'agent', payload: ev('gap-1', 6) })
    await until(() => eb.filter((e) => (e.payload as any).runId === 'gap-1').length === 5)
    for (const list of [ea, eb]) {
      const run = list.filter((e) => e.event === 'agent' && (e.payload as any).runId === 'gap-1')
      expect(run.map((e) => (e.payload as any).stream)).toEqual(['lifecycle', 'assistant', 'error', 'assistant', 'assistant'])
      const notice = run[2]
      expect(notice.seq).toBeUndefined()
      expect(notice.payload).toEqual({ runId: 'gap-1', stream: 'error', ts: expect.any(Number), sessionKey: 'agent:main:gap', data: { reason: 'seq gap', expected: 3, received: 5 } })
      expect('seq' in (notice.payload as object)).toBe(false)
      // the event after the gap is a normal broadcast with its frame seq
      expect(typeof run[3].seq).toBe('number')
    }
    expect(ea.some((e) => e.event === 'agent' && (e.payload as any).runId === 'clean-1' && (e.payload as any).stream === 'error')).toBe(false)
    expect(en.filter((e) => e.event === 'agent')).toEqual([])
    await Promise.all([a.close(), b.close(), none.close()])
  })
})
