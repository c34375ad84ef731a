import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { EventBus, RunRegistry } from '../events'
import { ChatQueueModes } from './chat-queue'
import { FoldMirror } from './fold-mirror'

const K = 'agent:main:main'

function setup() {
  const bus = new EventBus()
  const runs = new RunRegistry({ errorGraceMs: 0 })
  runs.attach(bus)
  const mirror = new FoldMirror(bus)
  const seen: AgentEvent[] = []
  bus.subscribe((e) => seen.push(e))
  const life = (runId: string, data: Record<string, unknown>) => bus.emit({ runId, sessionKey: K, stream: 'lifecycle', data })
  return { bus, runs, mirror, seen, life }
}

describe('FoldMirror', () => {
  it('folded runIds follow the batch run: start, then its end (stopReason collected) or error, each marked foldedInto', async () => {
    const { runs, mirror, seen, life } = setup()
    mirror.fold(K, 'b1', ['f1', 'f2', 'b1'])
    expect(mirror.foldedInto('b1')).toEqual(['f1', 'f2'])
    life('b1', { phase: 'start', startedAt: 10 })
    life('b1', { phase: 'end', startedAt: 10, endedAt: 20, stopReason: 'stop' })
    const of = (id: string) => seen.filter((e) => e.runId === id).map((e) => [e.seq, e.data])
    expect(of('f1')).toEqual([
      [1, { phase: 'start', startedAt: 10, foldedInto: 'b1' }],
      [2, { phase: 'end', startedAt: 10, endedAt: 20, stopReason: 'collected', foldedInto: 'b1' }],
    ])
    await expect(runs.waitForAgentJob('f2', 0)).resolves.toEqual({ runId: 'f2', status: 'ok', startedAt: 10, endedAt: 20, stopReason: 'collected' })
    expect(mirror.foldedInto('b1')).toEqual([])

    mirror.fold(K, 'b2', ['f3'])
    life('b2', { phase: 'error', error: 'model down', endedAt: 30 })
    await expect(runs.waitForAgentJob('f3', 0)).resolves.toMatchObject({ status: 'error', error: 'model down' })
    mirror.fold(K, 'b3', ['f4'])
    life('b3', { phase: 'end', endedAt: 40, aborted: true, stopReason: 'timeout' })
    expect(seen.at(-1)!.data).toEqual({ phase: 'end', endedAt: 40, aborted: true, stopReason: 'timeout', foldedInto: 'b3' })
  })

  it('unfold forgets a batch that never started; other runs are not mirrored', () => {
    const { mirror, seen, life } = setup()
    mirror.fold(K, 'b1', ['f1'])
    mirror.unfold('b1')
    life('b1', { phase: 'end', endedAt: 1 })
    life('other', { phase: 'end', endedAt: 1 })
    expect(seen.map((e) => e.runId)).toEqual(['b1', 'other'])
  })

  it('ChatQueueModes folds the other messages of a batch before starting it, and unfolds when the start fails', async () => {
    const calls: string[] = []
    let fail = false
    const modes = new ChatQueueModes({
      tracked: new Map(),
      activeRunsOf: () => [],
      startRun: (req) => {
        calls.push(`start ${req.runId}`)
        if (fail) throw new Error('no')
        return { runId: req.runId }
      },
      queueDefaults: () => ({}),
      sessionEntry: () => undefined,
      onChange: () => {},
      fold: (_k, into, ids) => calls.push(`fold ${into} ${ids.join(',')}`),
      unfold: (into) => calls.push(`unfold ${into}`),
    })
    // the queue's startRun dependency, as SessionQueues calls it for a batch
    const start = (modes.queues as unknown as { deps: { startRun: (k: string, t: string, ids: string[], metas: unknown[]) => Promise<unknown> } }).deps.startRun
    await start(K, 'batch', ['i1', 'i2'], [{ runId: 'r1', agentId: 'main' }, { runId: 'r2', agentId: 'main' }])
    fail = true
    await expect(start(K, 'batch', ['i3', 'i4'], [{ runId: 'r3', agentId: 'main' }, { runId: 'r4', agentId: 'main' }])).rejects.toThrow('no')
    expect(calls).toEqual(['fold r1 r2', 'start r1', 'fold r3 r4', 'start r3', 'unfold r3'])
  })
})
