import { describe, expect, it } from 'vitest'
import { CommandQueue } from './command-queue'
import { applyLaneConcurrency, runInLanes, sessionLane, type LaneQueued, type LaneWait } from './run-in-lanes'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('runInLanes', () => {
  it('names session lanes session:<key>', () => {
    expect(sessionLane('agent:main:main')).toBe('session:agent:main:main')
    expect(sessionLane('session:x')).toBe('session:x')
  })

  it('serializes runs of one session, overlaps different sessions, caps globally', async () => {
    const q = new CommandQueue()
    applyLaneConcurrency(q, { defaults: { maxConcurrent: 2 } } as never)
    const active = new Map<string, number>()
    let global = 0
    let maxGlobal = 0
    let maxPerSession = 0
    const run = (key: string) =>
      runInLanes(q, key, 'main', async () => {
        const n = (active.get(key) ?? 0) + 1
        active.set(key, n)
        maxPerSession = Math.max(maxPerSession, n)
        global++
        maxGlobal = Math.max(maxGlobal, global)
        await sleep(5)
        global--
        active.set(key, (active.get(key) ?? 1) - 1)
      })
    const keys = ['a', 'b', 'c', 'd']
    await Promise.all(keys.flatMap((k) => [run(k), run(k), run(k)]))
    expect(maxPerSession).toBe(1)
    expect(maxGlobal).toBe(2)
  })

  it('keeps per-session order even when the global lane is the bottleneck', async () => {
    const q = new CommandQueue({ concurrency: { main: 1 } })
    const order: string[] = []
    await Promise.all([
      runInLanes(q, 's1', 'main', async () => void order.push('s1-1')),
      runInLanes(q, 's2', 'main', async () => void order.push('s2-1')),
      runInLanes(q, 's1', 'main', async () => void order.push('s1-2')),
      runInLanes(q, 's1', 'main', async () => void order.push('s1-3')),
    ])
    expect(order.filter((x) => x.startsWith('s1'))).toEqual(['s1-1', 's1-2', 's1-3'])
  })

  it('reports session and global wait times to the task and onWait', async () => {
    const q = new CommandQueue({ concurrency: { main: 1 } })
    let release!: () => void
    const blocker = runInLanes(q, 'other', 'main', () => new Promise<void>((r) => (release = r)))
    const seen: LaneWait[] = []
    const p = runInLanes(q, 'mine', 'main', async (w) => ({ ...w }), { onWait: (w) => seen.push({ ...w }) })
    await sleep(30)
    release()
    await blocker
    const w = await p
    expect(w.globalWaitMs).toBeGreaterThanOrEqual(25)
    expect(w.sessionWaitMs).toBeLessThan(5)
    expect(w.globalQueuedAhead).toBe(0)
    expect(seen).toEqual([w])
  })

  it('a failing run does not block the next run of the session', async () => {
    const q = new CommandQueue()
    const a = runInLanes(q, 'k', undefined, async () => {
      throw new Error('model failed')
    })
    const b = runInLanes(q, 'k', undefined, async () => 'second')
    await expect(a).rejects.toThrow('model failed')
    await expect(b).resolves.toBe('second')
  })

  it('aborting a run queued behind another run of its session frees the slot without running it', async () => {
    const q = new CommandQueue()
    let release!: () => void
    const first = runInLanes(q, 'k', 'main', () => new Promise<void>((r) => (release = r)))
    const ac = new AbortController()
    let ran = false
    const second = runInLanes(q, 'k', 'main', async () => void (ran = true), { signal: ac.signal })
    ac.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError' })
    release()
    await first
    expect(ran).toBe(false)
  })

  it('applyLaneConcurrency defaults to 4 without config', () => {
    const q = new CommandQueue({ concurrency: { main: 1 } })
    applyLaneConcurrency(q)
    expect(q.concurrency('main')).toBe(4)
  })

  it('onQueued says where a run waits: nothing when it starts at once, its session lane, then the global lane', async () => {
    const q = new CommandQueue({ concurrency: { main: 1 } })
    const seen: Record<string, LaneQueued[]> = { a1: [], a2: [], b1: [] }
    let free!: () => void
    const held = new Promise<void>((r) => (free = r))
    const a1 = runInLanes(q, 'a', 'main', () => held, { onQueued: (w) => seen.a1.push(w) })
    const a2 = runInLanes(q, 'a', 'main', async () => {}, { onQueued: (w) => seen.a2.push(w) })
    const b1 = runInLanes(q, 'b', 'main', async () => {}, { onQueued: (w) => seen.b1.push(w) })
    expect(seen.a1).toEqual([])
    expect(seen.a2).toEqual([{ lane: 'session', ahead: 0 }])
    expect(seen.b1).toEqual([{ lane: 'global', running: 1, limit: 1, ahead: 0 }])
    free()
    await Promise.all([a1, a2, b1])
    // a2 got its session slot when a1 ended, then found b1 ahead of it in the global lane
    expect(seen.a2).toEqual([{ lane: 'session', ahead: 0 }, { lane: 'global', running: 1, limit: 1, ahead: 0 }])
  })
})
