import { describe, expect, it } from 'vitest'
import { TurnPacer } from './turn-pacer'

describe('TurnPacer', () => {
  it('gives turns in request order, never in the requesting macrotask', async () => {
    const p = new TurnPacer()
    const order: string[] = []
    const all = ['a', 'b', 'c'].map((n) => p.turn().then(() => order.push(n)))
    await Promise.resolve()
    expect(order).toEqual([])
    expect(p.pending).toBe(3)
    await Promise.all(all)
    expect(order).toEqual(['a', 'b', 'c'])
    expect(p.pending).toBe(0)
  })

  it('gives one turn per loop iteration: a timer due meanwhile fires between turns, not after all of them', async () => {
    const p = new TurnPacer()
    let done = 0
    const busy = (ms: number) => {
      const until = performance.now() + ms
      while (performance.now() < until);
    }
    const turns = Array.from({ length: 200 }, () =>
      p.turn().then(() => {
        busy(0.2) // a heavy run step
        done++
      }),
    )
    let doneWhenTimerFired = -1
    setTimeout(() => (doneWhenTimerFired = done), 1)
    await Promise.all(turns)
    expect(done).toBe(200)
    expect(doneWhenTimerFired).toBeGreaterThanOrEqual(0)
    expect(doneWhenTimerFired).toBeLessThan(100)
  })

  it('a turn requested while turns are handed out waits behind the earlier ones', async () => {
    const p = new TurnPacer()
    const order: number[] = []
    const late: Promise<unknown>[] = []
    const first = p.turn().then(() => {
      order.push(1)
      late.push(p.turn().then(() => order.push(3)))
    })
    const second = p.turn().then(() => order.push(2))
    await Promise.all([first, second])
    await Promise.all(late)
    expect(order).toEqual([1, 2, 3])
  })

  it('turnIfBusy goes ahead at once when nobody waits, and queues behind waiting turns otherwise', async () => {
    const p = new TurnPacer()
    expect(p.turnIfBusy()).toBeUndefined()
    const order: string[] = []
    const a = p.turn().then(() => order.push('a'))
    const b = p.turnIfBusy()!.then(() => order.push('b'))
    await Promise.all([a, b])
    expect(order).toEqual(['a', 'b'])
  })
})
