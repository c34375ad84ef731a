import { describe, expect, it, vi } from 'vitest'
import { CommandQueue, LaneClearedError } from './command-queue'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A task whose completion the test controls. */
function gate<T = void>() {
  let open!: (v: T) => void
  let fail!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    open = res
    fail = rej
  })
  return { promise, open, fail }
}

describe('CommandQueue', () => {
  it('runs one task at a time per lane, in FIFO order', async () => {
    const q = new CommandQueue()
    const log: string[] = []
    let running = 0
    let maxRunning = 0
    const mk = (id: number) => async () => {
      running++
      maxRunning = Math.max(maxRunning, running)
      log.push(`start ${id}`)
      await sleep(Math.random() * 5)
      log.push(`end ${id}`)
      running--
      return id
    }
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => q.enqueue('session:a', mk(i))))
    expect(results).toEqual([1, 2, 3, 4, 5])
    expect(maxRunning).toBe(1)
    expect(log).toEqual([1, 2, 3, 4, 5].flatMap((i) => [`start ${i}`, `end ${i}`]))
  })

  it('runs different lanes concurrently', async () => {
    const q = new CommandQueue()
    const a = gate()
    const b = gate()
    let started = 0
    const pa = q.enqueue('session:a', async () => {
      started++
      await a.promise
    })
    const pb = q.enqueue('session:b', async () => {
      started++
      await b.promise
    })
    expect(started).toBe(2) // both started synchronously: neither lane waited for the other
    b.open()
    await pb
    a.open()
    await pa
  })

  it('honours a lane concurrency cap and raises it live', async () => {
    const q = new CommandQueue({ concurrency: { g: 2 } })
    const gates = [gate(), gate(), gate(), gate()]
    const started: number[] = []
    const ps = gates.map((g, i) =>
      q.enqueue('g', async () => {
        started.push(i)
        await g.promise
      }),
    )
    expect(started).toEqual([0, 1])
    expect(q.stats().g).toEqual({ active: 2, queued: 2 })
    gates[1].open()
    await sleep(0)
    expect(started).toEqual([0, 1, 2])
    q.setConcurrency('g', 3)
    expect(started).toEqual([0, 1, 2, 3])
    gates.forEach((g) => g.open())
    await Promise.all(ps)
    expect(q.stats().g).toBeUndefined() // idle lanes are forgotten
    expect(q.concurrency('g')).toBe(3) // but their concurrency is kept
  })

  it('main defaults to 4, other lanes to 1', () => {
    const q = new CommandQueue()
    expect(q.concurrency('main')).toBe(4)
    expect(q.concurrency('session:x')).toBe(1)
    expect(() => q.setConcurrency('x', 0)).toThrow(RangeError)
    expect(() => q.setConcurrency('x', 1.5)).toThrow(RangeError)
  })

  it('a task that throws (sync or async) rejects only its own promise and never stalls the lane', async () => {
    const q = new CommandQueue()
    const p1 = q.enqueue('l', async () => {
      throw new Error('async fail')
    })
    const p2 = q.enqueue('l', (() => {
      throw new Error('sync fail')
    }) as () => Promise<void>)
    const p3 = q.enqueue('l', async () => 'ok')
    await expect(p1).rejects.toThrow('async fail')
    await expect(p2).rejects.toThrow('sync fail')
    await expect(p3).resolves.toBe('ok')
  })

  it('reports wait time and queued-ahead count via onWait', async () => {
    const q = new CommandQueue()
    const g = gate()
    const waits: Array<[number, number]> = []
    const first = q.enqueue('l', () => g.promise, { onWait: (ms, ahead) => waits.push([ms, ahead]) })
    const second = q.enqueue('l', async () => {}, { onWait: (ms, ahead) => waits.push([ms, ahead]) })
    const third = q.enqueue('l', async () => {}, { onWait: (ms, ahead) => waits.push([ms, ahead]) })
    await sleep(30)
    g.open()
    await Promise.all([first, second, third])
    expect(waits).toHaveLength(3)
    expect(waits[0][0]).toBeLessThan(5)
    expect(waits[0][1]).toBe(0)
    expect(waits[1][0]).toBeGreaterThanOrEqual(25)
    expect(waits[1][1]).toBe(0) // queued while the first was running, nothing queued ahead
    expect(waits[2][1]).toBe(1)
  })

  it('emits a lane-wait-exceeded diagnostic past warnAfterMs; throwing callbacks are ignored', async () => {
    const exceeded = vi.fn()
    const q = new CommandQueue({ onWaitExceeded: exceeded })
    const g = gate()
    const a = q.enqueue('l', () => g.promise)
    const b = q.enqueue('l', async () => 'b', {
      warnAfterMs: 10,
      onWait: () => {
        throw new Error('diag broke')
      },
    })
    await sleep(25)
    g.open()
    await expect(b).resolves.toBe('b')
    await a
    expect(exceeded).toHaveBeenCalledOnce()
    expect(exceeded.mock.calls[0][0]).toMatchObject({ lane: 'l', queuedAhead: 0 })
    expect(exceeded.mock.calls[0][0].waitedMs).toBeGreaterThanOrEqual(10)
  })

  it('clearLane rejects queued tasks but leaves the active one running', async () => {
    const q = new CommandQueue()
    const g = gate<string>()
    const active = q.enqueue('session:s', () => g.promise)
    const q1 = q.enqueue('session:s', async () => 'never')
    const q2 = q.enqueue('session:s', async () => 'never')
    expect(q.clearLane('session:s', 'stop')).toBe(2)
    await expect(q1).rejects.toBeInstanceOf(LaneClearedError)
    await expect(q2).rejects.toThrow('lane session:s cleared: stop')
    expect(q.active('session:s')).toBe(1)
    g.open('done')
    await expect(active).resolves.toBe('done')
    // the lane keeps working afterwards
    await expect(q.enqueue('session:s', async () => 'after')).resolves.toBe('after')
    expect(q.clearLane('nope', 'x')).toBe(0)
  })

  it('an aborted signal removes a queued task; an already-aborted one never enqueues', async () => {
    const q = new CommandQueue()
    const g = gate()
    const first = q.enqueue('l', () => g.promise)
    const ac = new AbortController()
    const ran = vi.fn(async () => {})
    const second = q.enqueue('l', ran, { signal: ac.signal })
    expect(q.size('l')).toBe(1)
    ac.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError' })
    expect(q.size('l')).toBe(0)
    await expect(q.enqueue('l', ran, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' })
    g.open()
    await first
    expect(ran).not.toHaveBeenCalled()
  })

  it('inPlaceOfAborted: an abort answers at once, and the kept place runs after the task ahead and before the one behind', async () => {
    const q = new CommandQueue()
    const g = gate()
    const order: string[] = []
    const first = q.enqueue('l', () => g.promise.then(() => void order.push('first')))
    const ac = new AbortController()
    const second = q.enqueue('l', async () => void order.push('second'), { signal: ac.signal, inPlaceOfAborted: () => void order.push('in place') })
    const third = q.enqueue('l', async () => void order.push('third'))
    ac.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError' })
    // the place stays, and a clear leaves it: its caller was answered already
    expect(q.clearLane('l', 'x')).toBe(1)
    await expect(third).rejects.toBeInstanceOf(LaneClearedError)
    const fourth = q.enqueue('l', async () => void order.push('fourth'))
    expect(order).toEqual([])
    g.open()
    await first
    await fourth
    expect(order).toEqual(['first', 'in place', 'fourth'])
  })

  it('handles many queued tasks in order (array compaction)', async () => {
    const q = new CommandQueue()
    const out: number[] = []
    await Promise.all(Array.from({ length: 500 }, (_, i) => q.enqueue('big', async () => void out.push(i))))
    expect(out).toEqual(Array.from({ length: 500 }, (_, i) => i))
  })
})
