import { afterEach, describe, expect, it, vi } from 'vitest'
import { createFlushScheduler, FLUSH_BUDGET_SHARE, MAX_FLUSH_INTERVAL_MS, MIN_FLUSH_INTERVAL_MS, nextInterval } from './flush-scheduler'

describe('flush interval', () => {
  it('updates as often as allowed while updates are cheap', () => {
    expect(nextInterval(MIN_FLUSH_INTERVAL_MS, 2)).toBe(MIN_FLUSH_INTERVAL_MS)
  })

  it('backs off at once so updates take at most their share of the main thread', () => {
    expect(nextInterval(MIN_FLUSH_INTERVAL_MS, 20)).toBeCloseTo(20 / FLUSH_BUDGET_SHARE)
    expect(nextInterval(MIN_FLUSH_INTERVAL_MS, 500)).toBe(MAX_FLUSH_INTERVAL_MS)
  })

  it('speeds up again gradually', () => {
    const next = nextInterval(MAX_FLUSH_INTERVAL_MS, 1)
    expect(next).toBeLessThan(MAX_FLUSH_INTERVAL_MS)
    expect(next).toBeGreaterThan(MIN_FLUSH_INTERVAL_MS)
  })
})

describe('flush scheduler', () => {
  afterEach(() => vi.unstubAllGlobals())

  /** A fake frame: rAF callbacks run in a timer task, flagged while they run. */
  function fakeFrames() {
    const state = { inFrame: false, frames: 0 }
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) =>
      setTimeout(() => {
        state.inFrame = true
        state.frames++
        try {
          cb(performance.now())
        } finally {
          state.inFrame = false
        }
      }, 4),
    )
    return state
  }

  it('runs the flush after a frame in a task of its own, not inside the frame callback', async () => {
    const frames = fakeFrames()
    const schedule = createFlushScheduler()
    const seen: boolean[] = []
    await new Promise<void>((resolve) =>
      schedule(() => {
        seen.push(frames.inFrame)
        resolve()
      }),
    )
    expect(seen).toEqual([false])
    expect(frames.frames).toBeGreaterThan(0)
  })

  it('runs each scheduled flush once (the hidden-window fallback does not repeat it)', async () => {
    fakeFrames()
    const schedule = createFlushScheduler()
    let runs = 0
    schedule(() => runs++)
    await new Promise((r) => setTimeout(r, 350))
    expect(runs).toBe(1)
  })

  it('keeps consecutive flushes at least the minimum interval apart', async () => {
    fakeFrames()
    const schedule = createFlushScheduler()
    const at: number[] = []
    await new Promise<void>((resolve) => schedule(() => (at.push(performance.now()), resolve())))
    await new Promise<void>((resolve) => schedule(() => (at.push(performance.now()), resolve())))
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(MIN_FLUSH_INTERVAL_MS - 2)
  })
})
