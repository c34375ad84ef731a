// When the controller applies queued events to the stores (and React renders them). Streaming deltas
// arrive far faster than anyone reads; one update per animation frame at most, and fewer when updates
// get expensive, keeps the main thread free for input and scrolling.
//
// Two rules keep every main-thread task short:
// - The flush (reducer + React render + commit) runs in its own task posted right after a frame, not
//   inside requestAnimationFrame: a rAF callback shares its task with the frame's style, layout and
//   paint, so JS and rendering would add up to one long task. Split, each is a task of its own.
// - The interval adapts to what an update really costs: the flush itself plus the next frame that
//   renders it (measured in wall time, so a busy machine also backs off).

export type Schedule = (cb: () => void) => void

/** Fastest update rate while streaming (~30/s: smooth to read, half the layout/paint of 60/s). */
export const MIN_FLUSH_INTERVAL_MS = 33
/** Slowest: when updates get expensive (a huge transcript, a busy machine), back off to ~7/s. */
export const MAX_FLUSH_INTERVAL_MS = 150
/** Share of the main thread that rendering streamed updates may take (the rest stays free). */
export const FLUSH_BUDGET_SHARE = 0.25
/** Fallback when no frame comes (hidden window: rAF pauses). */
const HIDDEN_FALLBACK_MS = 250

/**
 * The next interval: long enough that updates (`cost` ms each) use at most FLUSH_BUDGET_SHARE of
 * the main thread, within [MIN, MAX]. Grows at once when updates get expensive, shrinks gradually.
 */
export function nextInterval(interval: number, cost: number): number {
  const want = Math.min(MAX_FLUSH_INTERVAL_MS, Math.max(MIN_FLUSH_INTERVAL_MS, cost / FLUSH_BUDGET_SHARE))
  return want >= interval ? want : Math.max(want, interval * 0.9)
}

/** Runs `cb` in a new task as soon as possible (after the current frame when called from rAF). */
export function postTask(cb: () => void): void {
  if (typeof MessageChannel === 'function') {
    const ch = new MessageChannel()
    ch.port1.onmessage = () => {
      ch.port1.close()
      cb()
    }
    ch.port2.postMessage(null)
  } else setTimeout(cb, 0)
}

export function createFlushScheduler(): Schedule {
  let last = -Infinity
  let interval = MIN_FLUSH_INTERVAL_MS
  const hasRaf = typeof requestAnimationFrame === 'function'
  return (cb) => {
    let done = false
    const run = () => {
      if (done) return
      done = true
      const start = performance.now()
      last = start
      cb()
      if (!hasRaf) return
      // React renders store updates in a microtask queued by cb(); the frame after paints them.
      queueMicrotask(() => {
        const js = performance.now() - start
        requestAnimationFrame(() => {
          const frameStart = performance.now()
          postTask(() => {
            interval = nextInterval(interval, js + (performance.now() - frameStart))
          })
        })
      })
    }
    const go = () => {
      if (hasRaf) requestAnimationFrame(() => postTask(run))
      setTimeout(run, HIDDEN_FALLBACK_MS)
    }
    const wait = last + interval - performance.now()
    if (wait > 0) setTimeout(go, wait)
    else go()
  }
}

export const flushScheduler: Schedule = createFlushScheduler()
