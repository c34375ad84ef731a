import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { QueueItem } from '../../../shared/events'
import { SessionQueues, type QueueDeps } from './session-queues'
import { resolveQueueSettings, normalizeQueueMode, type QueueSettings } from './settings'
import { COLLECT_TITLE, summarizeLine } from './prompt'
import { CONFIG_DEFAULTS } from '../config/defaults'

const K = 'agent:main:main'

/** A fake runtime: one active run per session, ended explicitly by the test. */
class FakeRuntime {
  private active = new Map<string, { runId: string; waiters: Array<() => void> }>()
  runs: Array<{ sessionKey: string; text: string; itemIds: string[]; metas: unknown[]; runId: string }> = []
  steered: string[] = []
  aborted: string[] = []
  acceptSteer = true
  failNextStart?: string
  private n = 0
  changes: QueueItem[][] = []
  settings: QueueSettings = { mode: 'followup', debounceMs: 1000, cap: 20, drop: 'summarize' }

  deps(): QueueDeps {
    return {
      isActive: (k) => this.active.has(k),
      steer: (k, text) => {
        if (!this.active.has(k) || !this.acceptSteer) return false
        this.steered.push(text)
        return true
      },
      abort: async (k) => {
        this.aborted.push(k)
        // the aborted run winds down a little later
        setTimeout(() => this.end(k), 10)
      },
      startRun: async (k, text, itemIds, metas) => {
        if (this.failNextStart) {
          const msg = this.failNextStart
          this.failNextStart = undefined
          throw new Error(msg)
        }
        const runId = `run${++this.n}`
        this.runs.push({ sessionKey: k, text, itemIds, metas, runId })
        this.active.set(k, { runId, waiters: [] })
        return { runId }
      },
      waitIdle: (k) => {
        const a = this.active.get(k)
        if (!a) return Promise.resolve()
        return new Promise<void>((res) => a.waiters.push(res))
      },
      settings: () => this.settings,
      onChange: (_k, items) => this.changes.push(items),
    }
  }

  /** Start a run that did not come through the queue (the first message of a busy period). */
  begin(k = K): string {
    const runId = `run${++this.n}`
    this.runs.push({ sessionKey: k, text: '(initial)', itemIds: [], metas: [], runId })
    this.active.set(k, { runId, waiters: [] })
    return runId
  }

  end(k = K): void {
    const a = this.active.get(k)
    if (!a) return
    this.active.delete(k)
    for (const w of a.waiters) w()
  }
}

let rt: FakeRuntime
let q: SessionQueues
const tick = () => vi.advanceTimersByTimeAsync(0)

beforeEach(() => {
  vi.useFakeTimers()
  rt = new FakeRuntime()
  q = new SessionQueues(rt.deps())
})
afterEach(() => {
  q.dispose()
  vi.useRealTimers()
})

describe('idle session', () => {
  it('starts a run immediately and records no queue item', async () => {
    expect(await q.submit(K, 'hello', { meta: { key: 'idem-1' } })).toEqual({ status: 'started', runId: 'run1' })
    expect(rt.runs[0]).toMatchObject({ text: 'hello', itemIds: [], metas: [{ key: 'idem-1' }] })
    expect(q.list(K)).toEqual([])
  })

  it('reports a failed start', async () => {
    rt.failNextStart = 'model not configured'
    expect(await q.submit(K, 'x')).toEqual({ status: 'failed', error: 'model not configured' })
  })
})

describe('steer', () => {
  it('injects into the active run and records a steered item', async () => {
    rt.begin()
    const res = await q.submit(K, 'also check the tests', { mode: 'steer' })
    expect(res).toMatchObject({ status: 'steered' })
    expect(rt.steered).toEqual(['also check the tests'])
    expect(q.list(K)).toEqual([expect.objectContaining({ status: 'steered', mode: 'steer', text: 'also check the tests' })])
    expect(q.pendingCount(K)).toBe(0)
  })

  it('falls back to followup when the run cannot take it', async () => {
    rt.begin()
    rt.acceptSteer = false
    const res = await q.submit(K, 'later please', { mode: 'steer' })
    expect(res).toMatchObject({ status: 'queued', mode: 'steer' })
    expect(q.list(K)[0]).toMatchObject({ status: 'queued', detail: expect.stringMatching(/follow-up/) })
    rt.end()
    await tick()
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'later please'])
    expect(q.list(K)[0]).toMatchObject({ status: 'started', runId: 'run2' })
  })
})

describe('followup', () => {
  it('runs each queued message after the active run, in order, one run each', async () => {
    rt.begin()
    const a = await q.submit(K, 'first')
    const b = await q.submit(K, 'second')
    expect(a).toMatchObject({ status: 'queued' })
    expect(b).toMatchObject({ status: 'queued' })
    await tick()
    expect(rt.runs).toHaveLength(1)
    rt.end()
    await tick()
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'first'])
    expect(rt.runs[1].itemIds).toEqual([(a as { itemId: string }).itemId])
    rt.end()
    await tick()
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'first', 'second'])
    expect(q.list(K).map((i) => [i.text, i.status, i.runId])).toEqual([
      ['first', 'started', 'run2'],
      ['second', 'started', 'run3'],
    ])
  })

  it('a failed start marks the item failed and the next one still runs', async () => {
    rt.begin()
    await q.submit(K, 'doomed')
    await q.submit(K, 'fine')
    rt.failNextStart = 'boom'
    rt.end()
    await tick()
    expect(q.list(K).map((i) => [i.text, i.status])).toEqual([
      ['doomed', 'failed'],
      ['fine', 'started'],
    ])
    expect(q.list(K)[0].detail).toBe('boom')
  })
})

describe('hold and release (the window stopped the run)', () => {
  it('held messages stay queued after the run ends; a new message starts at once; released ones then run in order', async () => {
    rt.begin()
    const a = (await q.submit(K, 'first')) as { itemId: string }
    const b = (await q.submit(K, 'second')) as { itemId: string }
    expect(q.hold(K)).toEqual([a.itemId, b.itemId])
    expect(q.list(K).map((i) => [i.text, i.status, i.held])).toEqual([
      ['first', 'queued', true],
      ['second', 'queued', true],
    ])
    rt.end()
    await vi.advanceTimersByTimeAsync(1000)
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)'])
    expect(q.pendingCount(K)).toBe(2)
    // the user sends something else meanwhile: it does not wait behind the held ones
    expect(await q.submit(K, 'other')).toMatchObject({ status: 'started' })
    rt.end()
    await tick()
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'other'])
    expect(q.release(K, [b.itemId])).toEqual([b.itemId])
    await tick()
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'other', 'second'])
    expect(q.list(K).find((i) => i.id === b.itemId)).toMatchObject({ status: 'started' })
    rt.end()
    await tick()
    expect(q.list(K).find((i) => i.id === a.itemId)).toMatchObject({ status: 'queued', held: true })
    expect(q.release(K)).toEqual([a.itemId])
    await tick()
    expect(rt.runs.at(-1)!.text).toBe('first')
  })

  it('a held message can still be removed; a steer the stopped run missed is held too', async () => {
    rt.begin()
    const a = (await q.submit(K, 'queued')) as { itemId: string }
    const st = (await q.submit(K, 'steer me', { mode: 'steer' })) as { itemId: string }
    q.hold(K)
    expect(q.remove(K, a.itemId)).toBe(true)
    expect(q.requeueSteered(K, st.itemId)).toBe(true)
    rt.end()
    await tick()
    expect(rt.runs).toHaveLength(1)
    expect(q.list(K).find((i) => i.id === st.itemId)).toMatchObject({ status: 'queued', held: true })
  })
})

describe('reorder (the window moves a waiting message up or down)', () => {
  it('follow-ups start in the new order; messages not named and ones no longer waiting stay put', async () => {
    rt.begin()
    const [a, b, c] = [(await q.submit(K, 'A')) as { itemId: string }, (await q.submit(K, 'B')) as { itemId: string }, (await q.submit(K, 'C')) as { itemId: string }]
    rt.changes = []
    // C before A; B is not named and keeps its place; an unknown id is ignored
    expect(q.reorder(K, [c.itemId, 'q_unknown', a.itemId])).toEqual([c.itemId, b.itemId, a.itemId])
    expect(rt.changes.at(-1)!.map((i) => i.text)).toEqual(['C', 'B', 'A'])
    // the same order again changes nothing
    rt.changes = []
    expect(q.reorder(K, [c.itemId, a.itemId])).toEqual([c.itemId, b.itemId, a.itemId])
    expect(rt.changes).toEqual([])
    rt.end()
    await tick()
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'C'])
    // C started: it no longer moves
    expect(q.reorder(K, [a.itemId, c.itemId, b.itemId])).toEqual([a.itemId, b.itemId])
    for (let i = 0; i < 3; i++) {
      rt.end()
      await tick()
    }
    expect(rt.runs.map((r) => r.text)).toEqual(['(initial)', 'C', 'A', 'B'])
  })

  it('a held message moves too and keeps its hold', async () => {
    rt.begin()
    const a = (await q.submit(K, 'A')) as { itemId: string }
    const b = (await q.submit(K, 'B')) as { itemId: string }
    q.hold(K)
    expect(q.reorder(K, [b.itemId, a.itemId])).toEqual([b.itemId, a.itemId])
    expect(q.list(K).map((i) => [i.text, i.held])).toEqual([
      ['B', true],
      ['A', true],
    ])
  })

  it('an unknown session has nothing to reorder', () => {
    expect(q.reorder('agent:main:other', ['x'])).toEqual([])
  })
})

describe('collect', () => {
  beforeEach(() => {
    rt.settings = { ...rt.settings, mode: 'collect', debounceMs: 1000 }
  })

  it('waits for the debounce quiet window, then coalesces everything into one turn', async () => {
    rt.begin()
    await q.submit(K, 'msg A')
    await vi.advanceTimersByTimeAsync(500)
    await q.submit(K, 'msg B')
    await vi.advanceTimersByTimeAsync(100)
    rt.end() // run ends at t=600; quiet window runs until t=1500 (last enqueue + 1000)
    await vi.advanceTimersByTimeAsync(800) // t=1400
    expect(rt.runs).toHaveLength(1)
    await q.submit(K, 'msg C') // restarts the window: now until t=2400
    await vi.advanceTimersByTimeAsync(999)
    expect(rt.runs).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(rt.runs).toHaveLength(2)
    const prompt = rt.runs[1].text
    expect(prompt).toBe(`${COLLECT_TITLE}\n\n---\nQueued #1\nmsg A\n\n---\nQueued #2\nmsg B\n\n---\nQueued #3\nmsg C`)
    expect(rt.runs[1].itemIds).toHaveLength(3)
    expect(q.list(K).map((i) => [i.status, i.runId])).toEqual([
      ['collected', 'run2'],
      ['collected', 'run2'],
      ['collected', 'run2'],
    ])
    rt.end()
    await vi.advanceTimersByTimeAsync(5000)
    expect(rt.runs).toHaveLength(2) // nothing left, no extra run
  })

  it('a batch follows the order the user gave the waiting messages', async () => {
    rt.begin()
    const a = (await q.submit(K, 'msg A')) as { itemId: string }
    await q.submit(K, 'msg B')
    const c = (await q.submit(K, 'msg C')) as { itemId: string }
    q.reorder(K, [c.itemId, a.itemId])
    rt.end()
    await vi.advanceTimersByTimeAsync(1000)
    expect(rt.runs).toHaveLength(2)
    expect(rt.runs[1].text).toBe(`${COLLECT_TITLE}\n\n---\nQueued #1\nmsg C\n\n---\nQueued #2\nmsg B\n\n---\nQueued #3\nmsg A`)
    expect(q.list(K).map((i) => i.text)).toEqual(['msg C', 'msg B', 'msg A'])
  })

  it('a single collected message is sent as-is (once the window passes)', async () => {
    rt.begin()
    await q.submit(K, 'only one')
    rt.end()
    await vi.advanceTimersByTimeAsync(999)
    expect(rt.runs).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(rt.runs[1].text).toBe('only one')
    expect(q.list(K)[0].status).toBe('started')
  })

  it('does not start while the run is still active even after the window passed', async () => {
    rt.begin()
    await q.submit(K, 'x')
    await vi.advanceTimersByTimeAsync(5000)
    expect(rt.runs).toHaveLength(1)
    rt.end()
    await tick()
    expect(rt.runs).toHaveLength(2)
  })
})

describe('interrupt', () => {
  it('aborts the active run, waits for it to end, then runs the new message ahead of waiting ones', async () => {
    rt.begin()
    await q.submit(K, 'queued followup', { mode: 'followup' })
    let settled: unknown
    const p = q.submit(K, 'STOP and do this', { mode: 'interrupt' }).then((r) => (settled = r))
    await tick()
    expect(rt.aborted).toEqual([K])
    expect(rt.runs).toHaveLength(1) // still winding down
    expect(q.list(K).map((i) => [i.text, i.status])).toEqual([
      ['STOP and do this', 'queued'],
      ['queued followup', 'queued'],
    ])
    await vi.advanceTimersByTimeAsync(10) // aborted run ends
    await p
    expect(settled).toMatchObject({ status: 'started', runId: 'run2' })
    expect(rt.runs[1].text).toBe('STOP and do this')
    rt.end()
    await tick()
    expect(rt.runs[2].text).toBe('queued followup')
  })

  it('interrupt on an idle session just starts', async () => {
    expect(await q.submit(K, 'go', { mode: 'interrupt' })).toEqual({ status: 'started', runId: 'run1' })
    expect(rt.aborted).toEqual([])
  })

  it('an interrupt message removed before it starts settles as dropped', async () => {
    rt.begin()
    const p = q.submit(K, 'never mind', { mode: 'interrupt' })
    await tick()
    const id = q.list(K)[0].id
    expect(q.remove(K, id)).toBe(true)
    expect(await p).toEqual({ status: 'dropped', itemId: id, reason: 'removed' })
  })
})

describe('cap and drop policies', () => {
  it('old: drops the oldest waiting message', async () => {
    rt.settings = { ...rt.settings, cap: 2, drop: 'old' }
    rt.begin()
    await q.submit(K, 'one')
    await q.submit(K, 'two')
    expect(await q.submit(K, 'three')).toMatchObject({ status: 'queued' })
    expect(q.list(K).map((i) => [i.text, i.status])).toEqual([
      ['one', 'dropped'],
      ['two', 'queued'],
      ['three', 'queued'],
    ])
    rt.end()
    await tick()
    expect(rt.runs[1].text).toBe('two') // no overflow notice with `old`
  })

  it('new: rejects the newest message', async () => {
    rt.settings = { ...rt.settings, cap: 2, drop: 'new' }
    rt.begin()
    await q.submit(K, 'one')
    await q.submit(K, 'two')
    const r = await q.submit(K, 'three')
    expect(r).toMatchObject({ status: 'dropped', reason: expect.stringMatching(/cap 2/) })
    expect(q.list(K).map((i) => [i.text, i.status])).toEqual([
      ['one', 'queued'],
      ['two', 'queued'],
      ['three', 'dropped'],
    ])
    expect(q.pendingCount(K)).toBe(2)
  })

  it('summarize: drops the oldest and injects a one-line summary into the next prompt', async () => {
    rt.settings = { ...rt.settings, cap: 2, drop: 'summarize' }
    rt.begin()
    const long = 'please   refactor\nthe parser ' + 'x'.repeat(300)
    await q.submit(K, long)
    await q.submit(K, 'two')
    await q.submit(K, 'three')
    await q.submit(K, 'four')
    expect(q.list(K).filter((i) => i.status === 'dropped').map((i) => i.text)).toEqual([long, 'two'])
    rt.end()
    await tick()
    const prompt = rt.runs[1].text
    const summary = summarizeLine(long)
    expect(summary.length).toBeLessThanOrEqual(160)
    expect(summary.startsWith('please refactor the parser x')).toBe(true)
    expect(prompt).toBe(`[Queue overflow] Dropped 2 messages due to cap.\nSummary:\n- ${summary}\n- two\n\nthree`)
    rt.end()
    await tick()
    expect(rt.runs[2].text).toBe('four') // the notice is injected only once
  })

  it('summarize with collect puts the notice inside the coalesced prompt', async () => {
    rt.settings = { mode: 'collect', debounceMs: 0, cap: 1, drop: 'summarize' }
    rt.begin()
    await q.submit(K, 'a')
    await q.submit(K, 'b')
    rt.end()
    await tick()
    expect(rt.runs[1].text).toBe(`${COLLECT_TITLE}\n\n[Queue overflow] Dropped 1 message due to cap.\nSummary:\n- a\n\n---\nQueued #1\nb`)
  })
})

describe('observability', () => {
  it('remove, clear and onChange', async () => {
    rt.begin()
    const a = (await q.submit(K, 'a')) as { itemId: string }
    const b = (await q.submit(K, 'b')) as { itemId: string }
    await q.submit(K, 'c')
    expect(q.remove(K, a.itemId)).toBe(true)
    expect(q.remove(K, a.itemId)).toBe(false)
    expect(q.remove(K, 'unknown')).toBe(false)
    expect(q.remove('other', b.itemId)).toBe(false)
    expect(q.clear(K, 'reset by user')).toHaveLength(2)
    expect(q.list(K).map((i) => [i.text, i.status, i.detail])).toEqual([
      ['a', 'removed', 'removed by user'],
      ['b', 'removed', 'reset by user'],
      ['c', 'removed', 'reset by user'],
    ])
    rt.end()
    await tick()
    expect(rt.runs).toHaveLength(1)
    // every mutation was reported with a full snapshot
    expect(rt.changes.length).toBeGreaterThanOrEqual(5)
    expect(rt.changes.at(-1)!.map((i) => i.status)).toEqual(['removed', 'removed', 'removed'])
    expect(rt.changes[0]).toEqual([expect.objectContaining({ text: 'a', status: 'queued', mode: 'followup', sessionKey: K })])
  })

  it('cannot remove an item once started; list returns copies', async () => {
    rt.begin()
    const a = (await q.submit(K, 'a')) as { itemId: string }
    rt.end()
    await tick()
    expect(q.remove(K, a.itemId)).toBe(false)
    q.list(K)[0].status = 'removed'
    expect(q.list(K)[0].status).toBe('started')
  })

  it('keeps a bounded history of finished items', async () => {
    const small = new SessionQueues({ ...rt.deps(), historyLimit: 3 })
    rt.begin()
    for (let i = 0; i < 5; i++) {
      await small.submit(K, `s${i}`, { mode: 'steer' })
    }
    expect(small.list(K).map((i) => i.text)).toEqual(['s2', 's3', 's4'])
    small.dispose()
  })

  it('sessions are independent', async () => {
    rt.begin('a')
    expect(await q.submit('b', 'hi')).toMatchObject({ status: 'started' })
    expect(await q.submit('a', 'wait')).toMatchObject({ status: 'queued' })
    expect(q.list('b')).toEqual([])
  })
})

describe('planned run ids, discards and missed steers', () => {
  it('a queued item shows its planned runId; removed / dropped / cleared items are reported as discarded', async () => {
    const discarded: Array<[string, string | undefined]> = []
    const qq = new SessionQueues({ ...rt.deps(), onDiscard: (_k, item) => void discarded.push([item.status, item.runId]) })
    rt.settings = { ...rt.settings, cap: 2, drop: 'old' }
    rt.begin()
    const a = (await qq.submit(K, 'a', { runId: 'run-a' })) as { itemId: string }
    await qq.submit(K, 'b', { runId: 'run-b' })
    expect(qq.list(K)[0]).toMatchObject({ status: 'queued', runId: 'run-a' })
    await qq.submit(K, 'c', { runId: 'run-c' }) // drops a (oldest)
    expect(discarded).toEqual([['dropped', 'run-a']])
    expect(qq.remove(K, a.itemId)).toBe(false)
    expect(qq.clear(K, 'stop').map((i) => i.runId)).toEqual(['run-b', 'run-c'])
    expect(discarded).toEqual([
      ['dropped', 'run-a'],
      ['removed', 'run-b'],
      ['removed', 'run-c'],
    ])
    qq.dispose()
  })

  it('requeueSteered turns a steer the run missed into a follow-up', async () => {
    rt.begin()
    const r = (await q.submit(K, 'steer me', { mode: 'steer' })) as { itemId: string }
    expect(q.requeueSteered(K, r.itemId)).toBe(true)
    expect(q.requeueSteered(K, r.itemId)).toBe(false)
    expect(q.list(K)[0]).toMatchObject({ status: 'queued', mode: 'followup', detail: expect.stringMatching(/follow-up/) })
    rt.end()
    await tick()
    expect(rt.runs.at(-1)!.text).toBe('steer me')
  })
})

describe('the default quiet window', () => {
  it('is OpenClaw v4’s 500 ms unless the config sets one', async () => {
    // the config's own resolution (defaults.ts fills in the default when loopdesk.json names none)
    rt.settings = resolveQueueSettings({ mode: 'collect', debounceMs: CONFIG_DEFAULTS.queue.debounceMs })
    rt.begin()
    await q.submit(K, 'msg A')
    rt.end()
    await vi.advanceTimersByTimeAsync(499)
    expect(rt.runs).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(rt.runs).toHaveLength(2)

    // messages.queue.debounceMs still overrides it (the batch's run is still going)
    rt.settings = resolveQueueSettings({ mode: 'collect', debounceMs: 1200 })
    await q.submit(K, 'msg B')
    rt.end()
    await vi.advanceTimersByTimeAsync(1199)
    expect(rt.runs).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(rt.runs).toHaveLength(3)
  })
})

describe('settings', () => {
  it('resolves inline → session → config → defaults and normalizes aliases', () => {
    expect(resolveQueueSettings(undefined)).toEqual({ mode: 'steer', debounceMs: 500, cap: 20, drop: 'summarize' })
    expect(resolveQueueSettings({ mode: 'collect', debounceMs: 200, cap: 5, drop: 'old' })).toEqual({
      mode: 'collect',
      debounceMs: 200,
      cap: 5,
      drop: 'old',
    })
    expect(
      resolveQueueSettings({ mode: 'collect', cap: 5 }, { queueMode: 'followup', queueCap: 3, queueDrop: 'new', queueDebounceMs: 0 }, 'interrupt'),
    ).toEqual({ mode: 'interrupt', debounceMs: 0, cap: 3, drop: 'new' })
    expect(resolveQueueSettings({ cap: 0, debounceMs: -1 })).toMatchObject({ cap: 20, debounceMs: 500 })
    expect(normalizeQueueMode('queue')).toBe('steer')
    expect(normalizeQueueMode('abort')).toBe('interrupt')
    expect(normalizeQueueMode('coalesce')).toBe('collect')
    expect(normalizeQueueMode('Follow-Ups')).toBe('followup')
    expect(normalizeQueueMode('whatever')).toBeUndefined()
    // a session stored with April's steer-backlog runs as followup, over the config's mode
    expect(resolveQueueSettings({ mode: 'collect' }, { queueMode: 'steer-backlog' }).mode).toBe('followup')
  })
})
